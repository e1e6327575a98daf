"""The whole Section 6 model (paper 002, eqs. 1-8 with the authors' task x method term) on a
grid of binomial cells: LM types, tasks, subsamples (pairs) and the two methods.

    y_ijkl ~ Binomial(n_ijkl, logistic(eta_ijkl))
    eta_ijkl = mu + alpha . zc_i + U_j + V_jk + W_jl + beta (x_l - x_bar)

i = LM type (fixed effect, bambi's treatment dummies of every level but the first, centred
over the rows: zc), j = task, k = subsample shared across LM types, l = method (A: x = 0,
B: x = 1; x_bar = the share of B rows, 1/2 when every row has both methods). bambi centres
the common predictors before the intercept's prior applies; so does this model. Priors
(`Priors`): mu ~ N(0, 1), beta ~ N(0, 1), alpha ~ N(0, 5), U_j ~ N(0, sigma_U),
V_jk ~ N(0, sigma_V), W_jl ~ N(0, sigma_W), sigma_U, sigma_V ~ HalfNormal(1),
sigma_W ~ HalfNormal(2.5) with one LM type, 3.5355 with two (the values the tapt study
states in evalsci.studies.tapt.hierarchical.priors, which the study passes in). Without W
(`task_treatment=False`, the paper's eq. 2) every task's contrast is beta.

`evalsci.compare.model` is the case of one LM type and no subsamples (one cell per task and
method); this module integrates out the same way and keeps that module's coordinates for the
task level, so the two are one model (tests/test_compare_grid.py checks that their log
densities agree up to a constant).

Sampled coordinates (evalsci.studies.tapt.reparam's, with U and W integrated out):
- per task, S_j = m_j + Vbar_j, the mean of its two cells' log-odds over subsamples (what the
  data pin down), centred; or m_j = mu' + tau_m z_j, non-centred, where the data are weak
  (`model.parametrise` decides, as for the CLI); m_j ~ N(mu', tau_m), mu' = mu + beta
  (1/2 - x_bar), tau_m^2 = sigma_U^2 + sigma_W^2 / 2;
- per task, the contrast c_j ~ N(beta, sqrt(2) sigma_W), centred or non-centred likewise;
- Vbar_j = mean_k V_jk ~ N(0, sigma_V / sqrt(K)) and the zero-sum deviations D_jk = V_jk -
  Vbar_j, sampled as K - 1 free coordinates through PyMC's ZeroSumTransform (an orthonormal
  basis of the zero-sum vectors, so they are iid N(0, sigma_V) there);
- log sigma_U, log sigma_W, log sigma_V, mu, beta, alpha.
Then eta_ijkl = S_j + (x_l - 1/2) c_j + alpha . zc_i + D_jk. Integrating (U_j, W_jA, W_jB)
out given the hyperparameters is exact (model.py's derivation: the mean and the contrast of
the task's cells are independent normals), and the grid's mean/zero-sum split of V is linear
with a constant Jacobian, so the posterior of (mu, beta, alpha, the sigmas, V, and every
cell's log-odds) is bambi's: tests/test_compare_grid.py checks the log density against
bambi's at random points, and the gradient against finite differences.

A row the data lack (a task without some subsample, an LM type without some task) has n = 0:
it adds nothing to the likelihood. Its V_jk then has its prior alone and integrates out to 1,
so the posterior of everything else is the same as without that level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .model import (
    PRIOR_BETA_SD,
    PRIOR_MU_SD,
    PRIOR_SIGMA_U,
    PRIOR_SIGMA_W,
    Cells,
    empirical,
    parametrise,
)

_SQRT2 = float(np.sqrt(2.0))


@dataclass(frozen=True)
class Priors:
    """Prior scales: normal sd of mu, beta and alpha; HalfNormal scale of each sigma."""

    mu_sd: float = PRIOR_MU_SD
    beta_sd: float = PRIOR_BETA_SD
    alpha_sd: float = 5.0  # eq. 4 (bambi's lm_type prior printed in the authors' notebooks)
    sigma_u: float = PRIOR_SIGMA_U
    sigma_w: float = PRIOR_SIGMA_W
    sigma_v: float = 1.0  # eqs. 6, 8


@dataclass(frozen=True)
class Grid:
    """Correct counts `y` and item counts `n`, each (L LM types, J tasks, K subsamples, 2
    methods: A then B); n = 0 where there is no such row. `pairs` None: no subsample term
    (K = 1). `task_treatment`: the W_jl term."""

    tasks: tuple[str, ...]
    lms: tuple[str, ...]
    pairs: tuple[str, ...] | None
    y: np.ndarray
    n: np.ndarray
    task_treatment: bool = True
    priors: Priors = field(default_factory=Priors)

    def __post_init__(self):
        K = 1 if self.pairs is None else len(self.pairs)
        shape = (len(self.lms), len(self.tasks), K, 2)
        for name in ("y", "n"):
            arr = np.asarray(getattr(self, name), dtype=np.int64)
            object.__setattr__(self, name, arr)
            if arr.shape != shape:
                raise ValueError(f"{name} must have shape (LM types, tasks, subsamples, 2) {shape}")
        if (self.n < 0).any() or (self.y < 0).any() or (self.y > self.n).any():
            raise ValueError("counts must satisfy 0 <= y <= n")
        missing = [
            f"{t} ({'AB'[l]})"
            for j, t in enumerate(self.tasks)
            for l in range(2)  # noqa: E741
            if not self.n[:, j, :, l].any()
        ]
        if missing:
            raise ValueError(f"every task needs rows of both methods; none for {missing}")

    def collapsed(self) -> Cells:
        """Each task's two cells summed over LM types and subsamples (the starting values)."""
        s_n, s_y = self.n.sum(axis=(0, 2)), self.y.sum(axis=(0, 2))
        return Cells(self.tasks, s_n[:, 0], s_y[:, 0], s_n[:, 1], s_y[:, 1])


def _zero_sum_extend(free: np.ndarray) -> np.ndarray:
    """PyMC's ZeroSumTransform backward (last axis, K - 1 -> K): orthonormal onto the
    zero-sum vectors, written with sums only (no BLAS: same bytes on every CPU)."""
    k = free.shape[-1] + 1
    s = free.sum(axis=-1, keepdims=True)
    norm = s / (math.sqrt(k) + k)
    fill = norm - s / math.sqrt(k)
    return np.concatenate((free, fill), axis=-1) - norm


def _zero_sum_adjoint(g: np.ndarray) -> np.ndarray:
    """The transpose of `_zero_sum_extend` (K -> K - 1): the gradient's chain rule."""
    k = g.shape[-1]
    head = g[..., :-1]
    return head - head.sum(axis=-1, keepdims=True) / (math.sqrt(k) + k) - g[..., -1:] / math.sqrt(k)


class GridDensity:
    """Log posterior density and gradient of `Grid` in the sampled coordinates
    x = [mu, beta, log sigma_U, (log sigma_W), (log sigma_V), alpha (L - 1), task means (J),
    (contrasts (J)), (Vbar (J), zero-sum free coordinates (J x (K - 1)))]."""

    def __init__(self, grid: Grid, centred_m: np.ndarray, centred_c: np.ndarray):
        self.grid = grid
        L, J = len(grid.lms), len(grid.tasks)
        self.L, self.J = L, J
        self.W = grid.task_treatment
        self.V = grid.pairs is not None
        self.K = K = len(grid.pairs) if self.V else 1
        self.pri = grid.priors
        present = grid.n > 0
        rows = float(present.sum())
        # bambi's centring over the rows: the treatment dummy's mean and each LM dummy's
        self.b0 = 0.5 - float(present[..., 1].sum()) / rows
        share = present.sum(axis=(1, 2, 3)) / rows  # rows per LM type
        self.zc = np.eye(L)[:, 1:] - share[1:][None, :]  # (L, L - 1)
        # the rows with items, flat, and each row's cell (j, l), subsample (j, k) and LM type:
        # the likelihood gathers by them (np.take) and sums back by them (np.bincount, a
        # sequential loop: the same bytes on every CPU), far cheaper than broadcasting and
        # reducing the 4-d grid over its strided axes
        i, j, k, l = np.nonzero(present)  # noqa: E741
        self.yy = grid.y[i, j, k, l].astype(float)
        self.nn = grid.n[i, j, k, l].astype(float)
        self.row_jl, self.row_jk, self.row_i = j * 2 + l, j * K + k, i
        self.hx = np.array([-0.5, 0.5])
        self.cm = np.asarray(centred_m, bool)
        self.cc = np.asarray(centred_c, bool) if self.W else np.zeros(J, bool)
        self.cmf, self.ccf = self.cm.astype(float), self.cc.astype(float)
        self.ncmf, self.nccf = 1.0 - self.cmf, 1.0 - self.ccf
        self.k_m, self.k_c = float(self.cm.sum()), float(self.cc.sum())
        # offsets of the coordinates
        i = 3
        self.i_w = i if self.W else None
        i += self.W
        self.i_v = i if self.V else None
        i += self.V
        self.s_alpha = slice(i, i + L - 1)
        i += L - 1
        self.s_m = slice(i, i + J)
        i += J
        self.s_c = slice(i, i + J) if self.W else slice(i, i)
        i += J * self.W
        self.s_vbar = slice(i, i + J) if self.V else slice(i, i)
        i += J * self.V
        self.s_d = slice(i, i + J * (K - 1)) if self.V else slice(i, i)
        i += J * (K - 1) * self.V
        self.dim = i

    def __call__(self, x):
        """(log density up to a constant, gradient)."""
        pri, J, K = self.pri, self.J, self.K
        logs = [x[2]] + ([x[self.i_w]] if self.W else []) + ([x[self.i_v]] if self.V else [])
        if not (all(abs(v) < 50 for v in logs) and np.isfinite(x).all()):
            return -math.inf, np.zeros_like(x)
        mu, beta = float(x[0]), float(x[1])
        s_u = math.exp(x[2])
        s_w = math.exp(x[self.i_w]) if self.W else 0.0
        tau_m = math.sqrt(s_u * s_u + 0.5 * s_w * s_w)
        tau_c = _SQRT2 * s_w
        mp = mu + self.b0 * beta
        alpha = x[self.s_alpha]
        zm = x[self.s_m]
        cm, ncm, cc, ncc = self.cmf, self.ncmf, self.ccf, self.nccf
        vbar = x[self.s_vbar] if self.V else 0.0
        s = zm * (cm + ncm * tau_m) + ncm * (mp + vbar)
        if self.W:
            zc = x[self.s_c]
            c = zc * (cc + ncc * tau_c) + ncc * beta
        else:
            c = np.full(J, beta)
        base = s[:, None] + self.hx[None, :] * c[:, None]  # (J, 2)
        lm = (self.zc * alpha[None, :]).sum(axis=1)  # (L,)
        eta = base.ravel().take(self.row_jl)
        if self.L > 1:
            eta = eta + lm.take(self.row_i)
        if self.V:
            free = x[self.s_d].reshape(J, K - 1)
            d = _zero_sum_extend(free)  # (J, K)
            eta = eta + d.ravel().take(self.row_jk)
        e = np.exp(-np.abs(eta))
        inv = 1.0 / (1.0 + e)
        ll = float((self.yy * eta - self.nn * (np.maximum(eta, 0.0) + np.log1p(e))).sum())
        r = self.yy - self.nn * np.where(eta >= 0.0, inv, e * inv)
        r_jl = np.bincount(self.row_jl, r, 2 * J).reshape(J, 2)
        g_s = r_jl.sum(axis=1)
        g_cl = 0.5 * (r_jl[:, 1] - r_jl[:, 0])
        g_alpha = (self.zc * np.bincount(self.row_i, r, self.L)[:, None]).sum(axis=0)

        dm = (zm - vbar - mp) * cm
        zm_n = zm * ncm
        ss_m = float((dm * dm).sum())
        lp = (
            ll
            - 0.5 * (mu / pri.mu_sd) ** 2
            - 0.5 * (beta / pri.beta_sd) ** 2
            - 0.5 * float((alpha * alpha).sum()) / pri.alpha_sd**2
            - 0.5 * (s_u / pri.sigma_u) ** 2
            + float(x[2])
            - 0.5 * ss_m / tau_m**2
            - self.k_m * math.log(tau_m)
            - 0.5 * float((zm_n * zm_n).sum())
        )
        g = np.empty_like(x)
        g_mp = float(dm.sum()) / tau_m**2 + float((g_s * ncm).sum())
        g_tau_m = ss_m / tau_m**3 - self.k_m / tau_m + float((g_s * zm_n).sum())
        g_beta = -beta / pri.beta_sd**2 + self.b0 * g_mp
        if self.W:
            dc = (zc - beta) * cc
            zc_n = zc * ncc
            ss_c = float((dc * dc).sum())
            lp += (
                -0.5 * (s_w / pri.sigma_w) ** 2
                + float(x[self.i_w])
                - 0.5 * ss_c / tau_c**2
                - self.k_c * math.log(tau_c)
                - 0.5 * float((zc_n * zc_n).sum())
            )
            g_tau_c = ss_c / tau_c**3 - self.k_c / tau_c + float((g_cl * zc_n).sum())
            g_beta += float(dc.sum()) / tau_c**2 + float((g_cl * ncc).sum())
            g[self.i_w] = (
                s_w * (-s_w / pri.sigma_w**2 + g_tau_m * 0.5 * s_w / tau_m + g_tau_c * _SQRT2) + 1.0
            )
            g[self.s_c] = cc * (g_cl - dc / tau_c**2) + ncc * (tau_c * g_cl - zc)
        else:
            g_beta += float(g_cl.sum())
        if self.V:
            s_v = math.exp(x[self.i_v])
            q = K * float((vbar * vbar).sum()) + float((free * free).sum())
            lp += (
                -0.5 * q / s_v**2
                - J * K * math.log(s_v)
                - 0.5 * (s_v / pri.sigma_v) ** 2
                + float(x[self.i_v])
            )
            g[self.i_v] = s_v * (q / s_v**3 - J * K / s_v - s_v / pri.sigma_v**2) + 1.0
            g[self.s_vbar] = dm / tau_m**2 + ncm * g_s - K * vbar / s_v**2
            g_d = np.bincount(self.row_jk, r, J * K).reshape(J, K)
            g[self.s_d] = (_zero_sum_adjoint(g_d) - free / s_v**2).ravel()
        if not math.isfinite(lp):
            return -math.inf, np.zeros_like(x)
        g[0] = -mu / pri.mu_sd**2 + g_mp
        g[1] = g_beta
        g[2] = s_u * (-s_u / pri.sigma_u**2 + g_tau_m * s_u / tau_m) + 1.0
        g[self.s_alpha] = g_alpha - alpha / pri.alpha_sd**2
        g[self.s_m] = cm * (g_s - dm / tau_m**2) + ncm * (tau_m * g_s - zm)
        return lp, g

    def unpack(self, x) -> dict[str, np.ndarray]:
        """The model's parameters of points x (last axis), each (..., [level])."""
        J, K = self.J, self.K
        lead = x.shape[:-1]
        mu, beta = x[..., 0], x[..., 1]
        s_u = np.exp(x[..., 2])
        s_w = np.exp(x[..., self.i_w]) if self.W else np.zeros(lead)
        tau_m = np.sqrt(s_u * s_u + 0.5 * s_w * s_w)
        tau_c = _SQRT2 * s_w
        mp = mu + self.b0 * beta
        vbar = x[..., self.s_vbar] if self.V else np.zeros((*lead, J))
        zm = x[..., self.s_m]
        s = np.where(self.cm, zm, mp[..., None] + tau_m[..., None] * zm + vbar)
        if self.W:
            zc = x[..., self.s_c]
            c = np.where(self.cc, zc, beta[..., None] + tau_c[..., None] * zc)
        else:
            c = np.repeat(beta[..., None], J, axis=-1)
        out = {
            "mu": mu,
            "beta": beta,
            "alpha": x[..., self.s_alpha],
            "sigma_U": s_u,
            "m": s - vbar,
            "theta": c,
            "cell": s[..., None] + c[..., None] * self.hx,  # (..., J, 2): A_jl with Vbar_j
        }
        if self.W:
            out["sigma_W"] = s_w
        if self.V:
            out["sigma_V"] = np.exp(x[..., self.i_v])
            free = x[..., self.s_d].reshape(*lead, J, K - 1)
            out["V"] = vbar[..., None] + _zero_sum_extend(free)
        return out


def parametrise_grid(grid: Grid) -> tuple[np.ndarray, np.ndarray]:
    """(centred task means, centred contrasts): `model.parametrise`'s rule on the task's
    cells summed over LM types and subsamples."""
    return parametrise(grid.collapsed())


def starts_grid(density: GridDensity, chains: int, seed: int) -> np.ndarray:
    """One starting point per chain: `model.starts`'s empirical values and jitter for the
    shared coordinates; alpha, Vbar and the deviations at 0 +- 0.1, sigma_V at 0.2 (x e^+-0.5)."""
    cells = density.grid.collapsed()
    m, c, se_m, se_c, sd_m, sd_c = empirical(cells)
    mu0, beta0 = float(np.mean(m)), float(np.mean(c))
    s_w0 = max(sd_c, 0.05) / _SQRT2
    s_u0 = max(np.sqrt(max(sd_m**2 - 0.5 * s_w0**2, 0.0)), 0.05)
    if not density.W:
        s_u0 = max(sd_m, 0.05)
    tau_m = np.sqrt(s_u0**2 + 0.5 * s_w0**2 * density.W)
    tau_c = _SQRT2 * s_w0
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 2**31])))
    out = np.zeros((chains, density.dim))
    d = density
    for k in range(chains):
        j = rng.uniform(-0.5, 0.5, 5)
        mu, beta = mu0 + 0.5 * j[0], beta0 + 0.5 * j[1]
        mk = m + rng.uniform(-0.5, 0.5, d.J) * se_m
        ck = c + rng.uniform(-0.5, 0.5, d.J) * se_c
        out[k, 0], out[k, 1], out[k, 2] = mu, beta, np.log(s_u0) + j[2]
        if d.W:
            out[k, d.i_w] = np.log(s_w0) + j[3]
            out[k, d.s_c] = np.where(d.cc, ck, (ck - beta) / tau_c)
        out[k, d.s_alpha] = rng.uniform(-0.1, 0.1, d.L - 1)
        out[k, d.s_m] = np.where(d.cm, mk, (mk - mu - d.b0 * beta) / tau_m)
        if d.V:
            out[k, d.i_v] = np.log(0.2) + j[4]
            out[k, d.s_vbar] = rng.uniform(-0.1, 0.1, d.J) * 0.2 / np.sqrt(d.K)
            out[k, d.s_d] = rng.uniform(-0.1, 0.1, d.J * (d.K - 1))
    return out


def natural_grid(density: GridDensity, draws: np.ndarray) -> dict[str, np.ndarray]:
    """The posterior in the model's parameters and `model.natural`'s reported effects, each
    (chain, draw[, level]); the effects at the rows' average LM type and subsample."""
    from scipy.special import expit

    out = density.unpack(draws)
    mp = out["mu"] + density.b0 * out["beta"]
    m, c = out["m"], out["theta"]
    out["effect_points"] = 100.0 * (expit(mp + 0.5 * out["beta"]) - expit(mp - 0.5 * out["beta"]))
    out["task_points"] = 100.0 * (expit(m + 0.5 * c) - expit(m - 0.5 * c))
    return out
