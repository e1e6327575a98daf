"""Multidimensional two-parameter logistic IRT (slope-intercept form), fitted in torch.

    P(subject j answers item i correctly) = sigmoid(theta_j . a_i - b_i)

with ability theta_j in R^d, discrimination a_i in R^d and one scalar difficulty b_i per item.
This is the model of the LoryPack fork of py-irt that the `assessors` paper (via
tinyBenchmarks) used with d = 10 (`multidim_2pl`; upstream py-irt 0.7 has a per-dimension
difficulty instead). The fork fits it by SVI with hierarchical priors; we fit the
maximum-a-posteriori point with Normal priors (theta ~ N(0, 1) fixes the latent scale;
a ~ N(0, prior_scale^2), b ~ N(0, prior_scale^2)) by full-batch L-BFGS (torch.optim.LBFGS with
a strong-Wolfe line search), which is deterministic for a seed, needs no pyro and converges in
well under a second for the paper's sizes (Adam needed ~10 s for 2000 epochs on 2 cores).
Missing responses (NaN) are ignored. The fit runs in float64 on one thread with torch's
deterministic algorithms (`evalsci.pipeline.determinism.torch_pinned`): the line search compares
losses, so float32 rounding (which differs with the thread count and the CPU's kernels) would
steer the optimiser to a different point, and the IRT selectors to other references.

The parameters are identified only up to a rotation of the latent space (for d > 1): compare
fits through the logits theta . a - b, the difficulties b, or |a| for d = 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["MIRTFit", "fit_mirt_2pl", "item_features"]


@dataclass
class MIRTFit:
    disc: np.ndarray  # items x d
    diff: np.ndarray  # items
    ability: np.ndarray  # subjects x d
    loss: list[float]  # negative log posterior at each L-BFGS evaluation

    def logits(self) -> np.ndarray:
        """subjects x items logits theta . a - b."""
        return self.ability @ self.disc.T - self.diff[None, :]

    def prob(self) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-self.logits()))


def fit_mirt_2pl(
    responses: np.ndarray,
    dims: int = 10,
    max_iter: int = 500,
    prior_scale: float = 1.0,
    seed: int = 0,
) -> MIRTFit:
    """Fit the MIRT 2PL to a subjects x items 0/1 matrix (NaN = not observed)."""
    import torch

    from evalsci.pipeline.determinism import torch_pinned

    y = np.asarray(responses, dtype=np.float64)
    if y.ndim != 2:
        raise ValueError(f"responses must be subjects x items, got shape {y.shape}")
    obs = ~np.isnan(y)
    if not np.all(np.isin(y[obs], (0.0, 1.0))):
        raise ValueError("responses must be 0/1 (or NaN for missing)")
    n_subj, n_items = y.shape
    with torch_pinned(threads=1):
        return _fit(torch, y, obs, dims, max_iter, prior_scale, seed)


def _fit(torch, y, obs, dims, max_iter, prior_scale, seed) -> MIRTFit:
    n_subj, n_items = y.shape
    f64 = torch.float64
    gen = torch.Generator().manual_seed(seed)
    yt = torch.from_numpy(np.where(obs, y, 0.0))
    mask = torch.from_numpy(obs.astype(np.float64))
    # Small random start: at zero every gradient of theta and a vanishes.
    theta = (0.1 * torch.randn(n_subj, dims, generator=gen, dtype=f64)).requires_grad_()
    a = (0.1 * torch.randn(n_items, dims, generator=gen, dtype=f64)).requires_grad_()
    b = torch.zeros(n_items, dtype=f64).requires_grad_()
    opt = torch.optim.LBFGS(
        [theta, a, b],
        lr=1.0,
        max_iter=max_iter,
        history_size=20,
        line_search_fn="strong_wolfe",
        tolerance_grad=1e-6,
        tolerance_change=1e-10,
    )
    var = prior_scale**2
    history: list[float] = []

    def closure():
        opt.zero_grad()
        logits = theta @ a.T - b[None, :]
        nll = (
            torch.nn.functional.binary_cross_entropy_with_logits(logits, yt, reduction="none")
            * mask
        ).sum()
        # Negative log priors (up to constants).
        nlp = 0.5 * (theta**2).sum() + 0.5 * ((a**2).sum() + (b**2).sum()) / var
        loss = nll + nlp
        loss.backward()
        history.append(float(loss.detach()))
        return loss

    opt.step(closure)
    return MIRTFit(
        disc=a.detach().numpy().astype(np.float64),
        diff=b.detach().numpy().astype(np.float64),
        ability=theta.detach().numpy().astype(np.float64),
        loss=history,
    )


# Decimals of the item features: items with the same responses get the same parameters up to
# float noise (~1e-11 across CPUs); rounded, they are equal exactly, so the selectors that
# cluster them break ties by position on every CPU.
FEATURE_DECIMALS = 6


def item_features(fit: MIRTFit) -> np.ndarray:
    """Item features [a (d), b] used to select reference instances (tinyBenchmarks), rounded
    to FEATURE_DECIMALS."""
    return np.round(np.column_stack([fit.disc, fit.diff]), FEATURE_DECIMALS)
