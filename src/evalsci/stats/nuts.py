"""A small No-U-Turn sampler in numpy, for low-dimensional densities with analytic gradients.

Why our own: `evalsci compare`'s model (evalsci.compare.model) has 2 J + 4 parameters and a
log density over J x 2 binomial cells, which costs microseconds in numpy. PyMC's NUTS spends
most of its time in per-step overhead on such a model, nutpie's numba code is not byte-stable
across CPUs unless pinned, and JAX is not a dependency. This sampler uses only numpy's
element-wise float64 arithmetic (no BLAS: dot products are written as sums), so its draws are
byte-identical on every x86-64 CPU under the project's portable pins (numpy's baseline loops,
glibc's non-FMA libm; docs/reproducibility.md; tests/test_compare_portable.py).

The algorithm is Stan's (Hoffman & Gelman 2014, Algorithm 6, with Betancourt 2017's
multinomial sampling of the trajectory and the generalised no-U-turn criterion):
- each iteration draws a momentum, doubles a trajectory forwards or backwards at random until
  its ends turn back or `max_depth` doublings, and picks the next state from the trajectory
  with probability proportional to exp(-H), biased towards the newest half (progressive
  sampling);
- warm-up adapts the step size by dual averaging to `target_accept` and a diagonal inverse
  mass matrix from the draws' variances in Stan's windows (75 / doubling windows from 25 / 50),
  regularised towards 1e-3 as Stan does;
- a trajectory whose energy error exceeds 1000 is divergent: it stops, and is counted.

Chains run one after another, each from its own `SeedSequence([seed, chain])` stream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MAX_ENERGY_ERROR = 1000.0  # Stan's divergence threshold


@dataclass
class NutsResult:
    draws: np.ndarray  # (chains, draws, dim), unconstrained coordinates
    divergent: np.ndarray  # (chains, draws) bool
    tree_depth: np.ndarray  # (chains, draws) int
    n_steps: np.ndarray  # (chains, draws) leapfrog steps
    step_size: np.ndarray  # (chains,) after adaptation
    inv_mass: np.ndarray  # (chains, dim) after adaptation


class _Tree:
    __slots__ = (
        "x_l",
        "p_l",
        "g_l",
        "x_r",
        "p_r",
        "g_r",
        "x_prop",
        "lp_prop",
        "g_prop",
        "log_w",
        "rho",
        "n_steps",
        "sum_accept",
        "stop",
        "divergent",
    )


def _windows(tune: int) -> list[tuple[int, int]]:
    """Stan's slow warm-up windows (start, end) for the mass matrix: after an initial fast
    buffer of 75 iterations, windows of 25, 50, 100, ... up to a terminal buffer of 50 (the
    last window stretched to it); Stan's 15% / 75% / 10% split when `tune` is short."""
    init, term, base = 75, 50, 25
    if tune < 20:
        return []
    if init + term + base > tune:
        init, term = int(0.15 * tune), int(0.1 * tune)
        base = tune - init - term
    out, start, size = [], init, base
    while True:
        end = start + size
        if end + 2 * size > tune - term:
            out.append((start, tune - term))
            return out
        out.append((start, end))
        start, size = end, size * 2


class _Chain:
    def __init__(self, logp_grad, x0, rng, max_depth, target_accept):
        self.f = logp_grad
        self.rng = rng
        self.max_depth = max_depth
        self.target = target_accept
        self.x = np.array(x0, dtype=float)
        self.lp, self.g = self.f(self.x)
        if not np.isfinite(self.lp):
            raise ValueError("the starting point has a non-finite log density")
        self.inv_m = np.ones_like(self.x)

    # -- one leapfrog step --------------------------------------------------------------------
    def _leapfrog(self, x, p, g, eps):
        p = p + 0.5 * eps * g
        x = x + eps * (self.inv_m * p)
        lp, g = self.f(x)
        p = p + 0.5 * eps * g
        return x, p, g, lp

    def _kinetic(self, p):
        return 0.5 * float((self.inv_m * p * p).sum())

    def _turning(self, rho, p_l, p_r) -> bool:
        return (
            float((self.inv_m * p_l * rho).sum()) <= 0.0
            or float((self.inv_m * p_r * rho).sum()) <= 0.0
        )

    def _build(self, x, p, g, v, depth, eps, h0):
        if depth == 0:
            x1, p1, g1, lp1 = self._leapfrog(x, p, g, v * eps)
            h = lp1 - self._kinetic(p1)
            if not math.isfinite(h):
                h = -math.inf
            t = _Tree()
            t.x_l = t.x_r = t.x_prop = x1
            t.p_l = t.p_r = t.rho = p1
            t.g_l = t.g_r = g1
            t.lp_prop, t.g_prop = lp1, g1
            t.log_w = h - h0
            t.n_steps = 1
            t.sum_accept = min(1.0, math.exp(min(0.0, h - h0))) if h > -math.inf else 0.0
            t.divergent = (h0 - h) > MAX_ENERGY_ERROR
            t.stop = t.divergent
            return t
        a = self._build(x, p, g, v, depth - 1, eps, h0)
        if a.stop:
            return a
        if v > 0:
            b = self._build(a.x_r, a.p_r, a.g_r, v, depth - 1, eps, h0)
        else:
            b = self._build(a.x_l, a.p_l, a.g_l, v, depth - 1, eps, h0)
        a.n_steps += b.n_steps
        a.sum_accept += b.sum_accept
        if b.stop:
            a.stop, a.divergent = True, b.divergent
            return a
        log_w = np.logaddexp(a.log_w, b.log_w)
        # uniform (multinomial) choice within a subtree
        if math.log(self.rng.random()) < b.log_w - log_w:
            a.x_prop, a.lp_prop, a.g_prop = b.x_prop, b.lp_prop, b.g_prop
        a.log_w = float(log_w)
        if v > 0:
            a.x_r, a.p_r, a.g_r = b.x_r, b.p_r, b.g_r
        else:
            a.x_l, a.p_l, a.g_l = b.x_l, b.p_l, b.g_l
        a.rho = a.rho + b.rho
        a.stop = self._turning(a.rho, a.p_l, a.p_r)
        return a

    def step(self, eps):
        """One NUTS transition; returns (accept statistic, depth, steps, divergent)."""
        p0 = self.rng.standard_normal(self.x.shape) / np.sqrt(self.inv_m)
        h0 = self.lp - self._kinetic(p0)
        x_l = x_r = self.x
        p_l = p_r = rho = p0
        g_l = g_r = self.g
        log_w = 0.0
        x_new, lp_new, g_new = self.x, self.lp, self.g
        n_steps, sum_accept, divergent, depth = 0, 0.0, False, 0
        for depth in range(self.max_depth):
            v = 1 if self.rng.random() < 0.5 else -1
            if v > 0:
                t = self._build(x_r, p_r, g_r, v, depth, eps, h0)
                x_r, p_r, g_r = t.x_r, t.p_r, t.g_r
            else:
                t = self._build(x_l, p_l, g_l, v, depth, eps, h0)
                x_l, p_l, g_l = t.x_l, t.p_l, t.g_l
            n_steps += t.n_steps
            sum_accept += t.sum_accept
            if t.stop:
                divergent = t.divergent
                depth += 1
                break
            # biased progressive sampling: prefer the new half
            if math.log(self.rng.random()) < t.log_w - log_w:
                x_new, lp_new, g_new = t.x_prop, t.lp_prop, t.g_prop
            log_w = float(np.logaddexp(log_w, t.log_w))
            rho = rho + t.rho
            depth += 1
            if self._turning(rho, p_l, p_r):
                break
        self.x, self.lp, self.g = x_new, lp_new, g_new
        return sum_accept / max(n_steps, 1), depth, n_steps, divergent

    def find_step_size(self):
        """Stan's heuristic: double or halve until one step's acceptance crosses 0.5."""
        eps = 1.0
        p = self.rng.standard_normal(self.x.shape) / np.sqrt(self.inv_m)
        h0 = self.lp - self._kinetic(p)

        def log_accept(e):
            _, p1, _, lp1 = self._leapfrog(self.x, p, self.g, e)
            h = lp1 - self._kinetic(p1)
            return h - h0 if math.isfinite(h) else -math.inf

        up = log_accept(eps) > math.log(0.5)
        for _ in range(60):
            eps = eps * 2.0 if up else eps / 2.0
            if (log_accept(eps) > math.log(0.5)) != up:
                break
        return eps


def sample(
    logp_grad,
    x0s,
    *,
    draws: int = 1000,
    tune: int = 1000,
    seed: int = 0,
    max_depth: int = 10,
    target_accept: float = 0.8,
) -> NutsResult:
    """NUTS draws of the density `logp_grad(x) -> (log density, gradient)` from each start in
    `x0s` (one chain per row), after `tune` warm-up iterations."""
    x0s = np.atleast_2d(np.asarray(x0s, dtype=float))
    chains, dim = x0s.shape
    out = np.empty((chains, draws, dim))
    div = np.zeros((chains, draws), bool)
    depth = np.zeros((chains, draws), np.int64)
    steps = np.zeros((chains, draws), np.int64)
    eps_out, inv_out = np.empty(chains), np.empty((chains, dim))
    windows = _windows(tune)
    for c in range(chains):
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, c])))
        ch = _Chain(logp_grad, x0s[c], rng, max_depth, target_accept)
        eps = ch.find_step_size()
        # dual averaging (Hoffman & Gelman 2014, section 3.2; Stan's constants)
        mu, h_bar, log_eps_bar, t0, gamma, kappa = math.log(10 * eps), 0.0, 0.0, 10.0, 0.05, 0.75
        window, it_da = [], 0
        for it in range(tune):
            acc, _, _, _ = ch.step(eps)
            it_da += 1
            eta = 1.0 / (it_da + t0)
            h_bar = (1 - eta) * h_bar + eta * (target_accept - acc)
            log_eps = mu - math.sqrt(it_da) / gamma * h_bar
            w = it_da**-kappa
            log_eps_bar = w * log_eps + (1 - w) * log_eps_bar
            eps = math.exp(log_eps)
            if any(lo <= it < hi for lo, hi in windows):
                window.append(ch.x.copy())
            if any(it + 1 == hi for _, hi in windows):
                arr = np.asarray(window)
                n = len(arr)
                var = arr.var(axis=0, ddof=1) if n > 1 else np.ones(dim)
                ch.inv_m = (n / (n + 5.0)) * var + 1e-3 * (5.0 / (n + 5.0))
                window = []
                eps = ch.find_step_size()
                mu, h_bar, log_eps_bar, it_da = math.log(10 * eps), 0.0, 0.0, 0
        if tune:
            eps = math.exp(log_eps_bar)
        for i in range(draws):
            _, d, s, dv = ch.step(eps)
            out[c, i] = ch.x
            div[c, i], depth[c, i], steps[c, i] = dv, d, s
        eps_out[c], inv_out[c] = eps, ch.inv_m
    return NutsResult(out, div, depth, steps, eps_out, inv_out)
