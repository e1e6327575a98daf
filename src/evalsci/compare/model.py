"""The tapt paper's hierarchical comparison of two conditions across tasks, on binomial cells.

The paper's Section 6 model (paper 002, eqs. 1-8, as the study fits it in
`evalsci.studies.tapt.hierarchical`) with one LM type and no subsamples, the case of two
systems A and B evaluated once on J tasks:

    y_jl ~ Binomial(n_jl, logistic(eta_jl))            l = A (x = 0) or B (x = 1)
    eta_jl = mu + U_j + W_jl + beta (x_l - 1/2)
    mu ~ N(0, 1)            (eq. 3)       beta ~ N(0, 1)          (eq. 7)
    U_j ~ N(0, sigma_U)     (eq. 5)       sigma_U ~ HalfNormal(1) (eq. 8)
    W_jl ~ N(0, sigma_W)    (the authors' task x method term)
    sigma_W ~ HalfNormal(2.5)  (bambi's prior printed in the authors' notebooks for one LM)

bambi centres the treatment dummy before the intercept's prior applies, hence x - 1/2 with
both conditions on every task. U_j is the task's random intercept; W_jB - W_jA is its random
B-vs-A slope (sd sqrt(2) sigma_W), so task j's effect in log-odds is
theta_j = beta + W_jB - W_jA.

Sampled coordinates. The likelihood depends on (U, W) only through each task's two cell
log-odds, so (U_j, W_jA, W_jB) are integrated out exactly: per task, the mean log-odds
m_j = (eta_jA + eta_jB) / 2 and the contrast c_j = eta_jB - eta_jA are independent normals
given the hyperparameters,

    m_j ~ N(mu, tau_m),   tau_m^2 = sigma_U^2 + sigma_W^2 / 2
    c_j ~ N(beta, tau_c), tau_c = sqrt(2) sigma_W,

which is the same posterior for (mu, beta, sigma_U, sigma_W, theta_j = c_j) in 2 J + 4
dimensions. Each task's m_j and c_j is sampled centred where its data pin it down better than
the spread across tasks does, else non-centred (m_j = mu + tau_m z_j), which avoids the
funnel of a small sigma_W (`parametrise`); either choice is the same density. sigma_U and
sigma_W are sampled on the log scale.

Reported effects (per posterior draw):
- population, log-odds: beta; accuracy points: 100 (logistic(mu + beta/2) -
  logistic(mu - beta/2)), the difference on a typical task (U = W = 0);
- task j, log-odds: c_j; accuracy points: 100 (logistic(m_j + c_j/2) - logistic(m_j - c_j/2)).

The binomial likelihood treats a task's items as exchangeable and the two systems' cells as
independent given the task's parameters (as the paper's model does), so it does not use the
pairing of shared items; the exact cross-check (evalsci.compare.exact) does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# The priors (paper 002, eqs. 3, 7, 8; sigma_W: bambi's default printed in the authors'
# notebooks for one LM type, as evalsci.studies.tapt.hierarchical.priors states them).
PRIOR_MU_SD = 1.0
PRIOR_BETA_SD = 1.0
PRIOR_SIGMA_U = 1.0
PRIOR_SIGMA_W = 2.5

_SQRT2 = float(np.sqrt(2.0))


@dataclass(frozen=True)
class Cells:
    """Correct counts y and item counts n of systems A and B on each of J tasks."""

    tasks: tuple[str, ...]
    n_a: np.ndarray
    y_a: np.ndarray
    n_b: np.ndarray
    y_b: np.ndarray

    def __post_init__(self):
        for name in ("n_a", "y_a", "n_b", "y_b"):
            arr = np.asarray(getattr(self, name), dtype=np.int64)
            object.__setattr__(self, name, arr)
            if arr.shape != (len(self.tasks),):
                raise ValueError(f"{name} must have one entry per task ({len(self.tasks)})")
        if (self.n_a < 1).any() or (self.n_b < 1).any():
            raise ValueError("every cell needs n >= 1 item")
        if (self.y_a < 0).any() or (self.y_a > self.n_a).any():
            raise ValueError("correct counts of A must be in 0..n")
        if (self.y_b < 0).any() or (self.y_b > self.n_b).any():
            raise ValueError("correct counts of B must be in 0..n")


class Density:
    """Log posterior density and gradient in the sampled coordinates
    x = [mu, beta, log sigma_U, log sigma_W, z_m (J), z_c (J)]."""

    def __init__(self, cells: Cells, centred_m: np.ndarray, centred_c: np.ndarray):
        self.cells = cells
        self.J = len(cells.tasks)
        self.cm = np.asarray(centred_m, bool)
        self.cc = np.asarray(centred_c, bool)
        self.ncm = ~self.cm
        self.ncc = ~self.cc
        self.cmf, self.ccf = self.cm.astype(float), self.cc.astype(float)
        self.ncmf, self.nccf = 1.0 - self.cmf, 1.0 - self.ccf
        self.k_m, self.k_c = float(self.cm.sum()), float(self.cc.sum())
        self.yy = np.concatenate((cells.y_a, cells.y_b)).astype(float)
        self.nn = np.concatenate((cells.n_a, cells.n_b)).astype(float)
        self.dim = 4 + 2 * self.J

    def unpack(self, x):
        """(mu, beta, sigma_U, sigma_W, tau_m, tau_c, m, c) of a point (or draws, last axis)."""
        J = self.J
        mu, beta = x[..., 0], x[..., 1]
        s_u, s_w = np.exp(x[..., 2]), np.exp(x[..., 3])
        tau_m = np.sqrt(s_u * s_u + 0.5 * s_w * s_w)
        tau_c = _SQRT2 * s_w
        zm, zc = x[..., 4 : 4 + J], x[..., 4 + J :]
        m = np.where(self.cm, zm, mu[..., None] + tau_m[..., None] * zm)
        c = np.where(self.cc, zc, beta[..., None] + tau_c[..., None] * zc)
        return mu, beta, s_u, s_w, tau_m, tau_c, m, c

    def __call__(self, x):
        """(log density up to a constant, gradient). Written for few numpy calls: on 2 J
        cells the cost is numpy's per-call overhead, not arithmetic."""
        J = self.J
        mu, beta = float(x[0]), float(x[1])
        # sigma outside (e^-50, e^50): no prior mass there, and its powers would over- or
        # underflow (the step-size search tries huge steps)
        if not (abs(x[2]) < 50 and abs(x[3]) < 50 and np.isfinite(x).all()):
            return -math.inf, np.zeros_like(x)
        s_u, s_w = math.exp(x[2]), math.exp(x[3])
        tau_m = math.sqrt(s_u * s_u + 0.5 * s_w * s_w)
        tau_c = _SQRT2 * s_w
        zm, zc = x[4 : 4 + J], x[4 + J :]
        cm, cc, ncm, ncc = self.cmf, self.ccf, self.ncmf, self.nccf
        m = zm * (cm + ncm * tau_m) + ncm * mu
        c = zc * (cc + ncc * tau_c) + ncc * beta
        eta = np.concatenate((m - 0.5 * c, m + 0.5 * c))
        e = np.exp(-np.abs(eta))  # in (0, 1]: no overflow
        inv = 1.0 / (1.0 + e)
        ll = float((self.yy * eta - self.nn * (np.maximum(eta, 0.0) + np.log1p(e))).sum())
        r = self.yy - self.nn * np.where(eta >= 0.0, inv, e * inv)
        r_a, r_b = r[:J], r[J:]
        g_m = r_a + r_b  # d loglik / d m_j
        g_c = 0.5 * (r_b - r_a)  # d loglik / d c_j
        # task level: centred entries carry N(m | mu, tau_m); non-centred N(z | 0, 1)
        dm = (zm - mu) * cm
        dc = (zc - beta) * cc
        zm_n, zc_n = zm * ncm, zc * ncc
        ss_m, ss_c = float((dm * dm).sum()), float((dc * dc).sum())
        k_m, k_c = self.k_m, self.k_c
        lp = (
            ll
            - 0.5 * (mu / PRIOR_MU_SD) ** 2
            - 0.5 * (beta / PRIOR_BETA_SD) ** 2
            - 0.5 * (s_u / PRIOR_SIGMA_U) ** 2
            + float(x[2])
            - 0.5 * (s_w / PRIOR_SIGMA_W) ** 2
            + float(x[3])
            - 0.5 * ss_m / tau_m**2
            - k_m * math.log(tau_m)
            - 0.5 * ss_c / tau_c**2
            - k_c * math.log(tau_c)
            - 0.5 * float((zm_n * zm_n).sum())
            - 0.5 * float((zc_n * zc_n).sum())
        )
        if not math.isfinite(lp):
            return -math.inf, np.zeros_like(x)
        g_tau_m = ss_m / tau_m**3 - k_m / tau_m + float((g_m * zm_n).sum())
        g_tau_c = ss_c / tau_c**3 - k_c / tau_c + float((g_c * zc_n).sum())
        g = np.empty_like(x)
        g[0] = -mu / PRIOR_MU_SD**2 + float(dm.sum()) / tau_m**2 + float((g_m * ncm).sum())
        g[1] = -beta / PRIOR_BETA_SD**2 + float(dc.sum()) / tau_c**2 + float((g_c * ncc).sum())
        g[2] = s_u * (-s_u / PRIOR_SIGMA_U**2 + g_tau_m * s_u / tau_m) + 1.0
        g[3] = (
            s_w * (-s_w / PRIOR_SIGMA_W**2 + g_tau_m * 0.5 * s_w / tau_m + g_tau_c * _SQRT2) + 1.0
        )
        g[4 : 4 + J] = cm * (g_m - dm / tau_m**2) + ncm * (tau_m * g_m - zm)
        g[4 + J :] = cc * (g_c - dc / tau_c**2) + ncc * (tau_c * g_c - zc)
        return lp, g


def empirical(cells: Cells):
    """Per task: the cells' smoothed log-odds (+1/2 to each count: finite at 0 and n), the
    mean and contrast with their standard errors, and the method-of-moments spreads across
    tasks (DerSimonian-Laird); they start the chains and choose each task's coordinates."""

    def logodds(y, n):
        return np.log((y + 0.5) / (n - y + 0.5)), 1.0 / (y + 0.5) + 1.0 / (n - y + 0.5)

    la, va = logodds(cells.y_a, cells.n_a)
    lb, vb = logodds(cells.y_b, cells.n_b)
    m, c = 0.5 * (la + lb), lb - la
    v_m, v_c = 0.25 * (va + vb), va + vb

    def spread(est, var):
        if len(est) < 2:
            return 0.0
        w = 1.0 / var
        mean = (w * est).sum() / w.sum()
        q = (w * (est - mean) ** 2).sum()
        denom = w.sum() - (w * w).sum() / w.sum()
        return float(np.sqrt(max(0.0, (q - (len(est) - 1)) / denom))) if denom > 0 else 0.0

    return m, c, np.sqrt(v_m), np.sqrt(v_c), spread(m, v_m), spread(c, v_c)


def parametrise(cells: Cells) -> tuple[np.ndarray, np.ndarray]:
    """(centred m_j, centred c_j): centred where the task's standard error is below half the
    estimated spread across tasks (its data dominate its prior even where the spread is
    smaller than estimated), else non-centred; all non-centred below 10 tasks, whose spread is
    too uncertain to lean on (3 tasks of 20 items, the lm-eval fixtures: the spread's posterior
    reaches 0.03, and centring diverged)."""
    _, _, se_m, se_c, sd_m, sd_c = empirical(cells)
    enough = len(cells.tasks) >= 10
    return enough & (se_m < 0.5 * sd_m), enough & (se_c < 0.5 * sd_c)


def starts(density: Density, chains: int, seed: int) -> np.ndarray:
    """One starting point per chain: the empirical values, jittered (uniform +-0.5 on the
    population parameters and log sigmas, +-0.5 standard errors on the tasks)."""
    cells = density.cells
    m, c, se_m, se_c, sd_m, sd_c = empirical(cells)
    mu0, beta0 = float(np.mean(m)), float(np.mean(c))
    s_w0 = max(sd_c, 0.05) / _SQRT2
    s_u0 = max(np.sqrt(max(sd_m**2 - 0.5 * s_w0**2, 0.0)), 0.05)
    tau_m = np.sqrt(s_u0**2 + 0.5 * s_w0**2)
    tau_c = _SQRT2 * s_w0
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 2**31])))
    out = np.empty((chains, density.dim))
    for k in range(chains):
        j_pop = rng.uniform(-0.5, 0.5, 4)
        j_m = rng.uniform(-0.5, 0.5, density.J) * se_m
        j_c = rng.uniform(-0.5, 0.5, density.J) * se_c
        mu, beta = mu0 + 0.5 * j_pop[0], beta0 + 0.5 * j_pop[1]
        mk, ck = m + j_m, c + j_c
        out[k, :4] = [mu, beta, np.log(s_u0) + j_pop[2], np.log(s_w0) + j_pop[3]]
        out[k, 4 : 4 + density.J] = np.where(density.cm, mk, (mk - mu) / tau_m)
        out[k, 4 + density.J :] = np.where(density.cc, ck, (ck - beta) / tau_c)
    return out


def natural(density: Density, draws: np.ndarray) -> dict[str, np.ndarray]:
    """The posterior in the model's parameters and the reported effects, each (chain, draw[, task])."""
    from scipy.special import expit

    mu, beta, s_u, s_w, _, _, m, c = density.unpack(draws)
    return {
        "mu": mu,
        "beta": beta,
        "sigma_U": s_u,
        "sigma_W": s_w,
        "m": m,
        "theta": c,
        "effect_points": 100.0 * (expit(mu + 0.5 * beta) - expit(mu - 0.5 * beta)),
        "task_points": 100.0 * (expit(m + 0.5 * c) - expit(m - 0.5 * c)),
    }
