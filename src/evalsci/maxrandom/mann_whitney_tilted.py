"""The null distribution of the Mann-Whitney U for large samples, with a computed error bound.

U (pairs where the positive ranks higher) under the null has the probability generating function
    G(q) = prod_{i=1}^{m} (1 - q^(n+i)) / (1 - q^i) / C(m+n, m)     (Gaussian binomial)
whose exact coefficients cost ~ m^2 n operations (`auc._pmf_gaussian_binomial`): ~1e12 at
10,000 x 10,000. Here instead, for s <= 0, the TILTED law p_s(u) = p(u) e^(s u) / G(e^s) is
inverted from its characteristic function phi_s(theta) = G(e^(s + i theta)) / G(e^s), an m-term
product in closed form, and
    p(u) = exp(K(s) - s u) p_s(u),       K(s) = log G(e^s),
with s chosen so that the tilted mean is near u: there p_s(u) ~ 1 / sd_s, so the absolute
accuracy of a Fourier inversion becomes relative accuracy of p(u), in the far tail as well.
By symmetry (U ~ mn - U) only the lower half u <= (mn - 1) // 2 is computed.

Each block (one s, u in a window of about +-2 sd_s) is p_s on a grid theta_j = 2 pi j / L
inverted with one real FFT, and its error is bounded, not estimated:
  E1 aliasing: the DFT gives sum_r p_s(u + r L); the r != 0 terms are bounded by Chernoff's
     inequality with the exact K;
  E2 frequencies |j| > J left out: bounded by
        |phi_s(theta)| <= exp(-V) I_0(|A(theta)|) / P(sum B = m),
     from the representation of the tilted law as independent Bernoulli(p_r) indicators on the
     ranks r = 0..N-1 (logit p_r = a + s r) conditioned on their sum being m:
     |q + p e^(i x)| <= exp(-pq (1 - cos x)), integrated over the conditioning angle;
     V = sum_r p_r q_r, A(theta) = sum_r p_r q_r e^(i theta r) (one FFT gives A on the whole
     grid) and P(sum B = m) = exp(sum log q_r + a m + log C(N, m) + K_W(s)) in closed form;
  E3 rounding: each of the m factors of phi_s carries an explicit relative error bound (expm1,
     complex products, log), summed pairwise; the FFT by log2(L) 6 eps ||x||_2 (Higham, Thm 24.2).
The relative error of p(u) is then (E1 + E2 + E3) / (p_s(u) - E1 - E2 - E3) plus the error of
K(s) - s u. A point whose bound exceeds REL_TOL / 2 is recomputed with its own tilt; if it still
fails a ValueError names the sizes and the point. The standard floating-point model is
assumed for numpy's elementary functions (within 2 ulp) and pocketfft (Higham's bound with
eta = 6 eps); the tests check the result against exact integers.

Near U = 0 the tilted law degenerates (V -> 0: the bound needs every frequency, or fails).
There, and anywhere P(U <= u) < e^-200, the generating function truncated at degree u is
multiplied out in scaled floating point (Harding 1984; `_harding`): it subtracts, so the same
recursion on absolute values bounds the cancellation, and each value's relative error bound is
computed from it. Values whose Chernoff bound is below the smallest subnormal double (e^-746)
are returned as 0; cdf values below the smallest normal double (2.2e-308) have an absolute
error below 2^-1070 instead of the relative bound.

The cdf is the pmf summed from a point whose Chernoff bound is negligible (< REL_TOL / 1e3 of
the smallest cdf requested), in blocks (relative error of the sum <= (4096 + 3 nblocks + 1000)
eps). pmf values are accepted at REL_TOL / 2, leaving room for the sum.
"""

from __future__ import annotations

import math

import numpy as np

EPS = float(np.finfo(float).eps)
#: relative error bound guaranteed for every pmf and cdf value returned (or ValueError)
REL_TOL = 1e-9
#: below this log-probability a value is 0 in double precision (smallest subnormal ~ e^-744.4)
LOG_UNDERFLOW = -746.0
#: log of the smallest normal double (2^-1022 ~ 2.2e-308)
LOG_MIN_NORMAL = -1022 * math.log(2.0)
#: where the tilted blocks fail (near U = 0), the truncated recursion is used up to
#: u = this / m (cost ~ 3 m u)
_HARDING_TERMS = 20_000_000
_SUM_BLOCK = 4096
#: at most this many frequencies per block (the m-term product costs m per frequency)
_MAX_FREQUENCIES = 4096
#: ... unless all L/2 frequencies cost at most this many factor evaluations (small m)
_FULL_SPECTRUM_TERMS = 8_000_000


def _pairwise_sum(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sum over the last axis by explicit pairwise summation; returns (sum, sum of |x|).
    The rounding error is at most ceil(log2 n) eps * sum |x| (Higham, Sec. 4.2)."""
    absx = np.abs(x).sum(axis=-1)
    n = x.shape[-1]
    width = 1 << max(0, (n - 1).bit_length())
    if width != n:
        pad = [(0, 0)] * (x.ndim - 1) + [(0, width - n)]
        x = np.pad(x, pad)
    while x.shape[-1] > 1:
        x = x[..., 0::2] + x[..., 1::2]
    return x[..., 0], absx


def _expm1_rows(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """e^(x + iy) - 1 for x a row (k s) and y a block (k theta_j), with an absolute error bound.

    numpy's complex expm1 computes re = expm1(x) cos(y) - 2 sin(y/2)^2, im = e^x sin(y) (the
    tests check this bitwise): each part within ~3 eps of its terms' magnitudes, so
    |error| <= 4 eps (|expm1 x| + min(2, y^2/2) + |im|) (|em cos y| <= |em|,
    2 sin^2(y/2) <= y^2/2); the arguments' own rounding (x = k s and y = k theta, theta carrying
    ~2 eps) moves the value by at most e^x 2 eps (|x| + |y|)."""
    z = np.empty(y.shape, dtype=complex)
    z.real = x
    z.imag = y
    v = np.expm1(z)
    em = np.abs(np.expm1(x))
    err = 4 * EPS * (em + np.minimum(2.0, 0.5 * y * y) + np.abs(v.imag)) + 2 * EPS * np.exp(x) * (
        np.abs(x) + np.abs(y)
    )
    return v, err


def _expm1_real(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    em = np.expm1(x)
    return em, 2 * EPS * np.abs(em) + 2 * EPS * (em + 1.0) * np.abs(x)


class MannWhitneyTilted:
    """Null distribution of U for sample sizes (m, n) (symmetric), with the interface
    `max_order` expects: n, mean, var, window, cdf_sf, pmf. Every value it returns has a
    relative error below REL_TOL (or is 0 below the double range); otherwise ValueError."""

    def __init__(self, n_pos: int, n_neg: int):
        from scipy import special  # here, not at import: every job that imports maxrandom pays it

        from ._checks import check_n

        for name, size in (("n_pos", n_pos), ("n_neg", n_neg)):
            try:
                check_n(size)
            except ValueError:
                raise ValueError(f"{name} must be an integer >= 1, got {name}={size!r}") from None
        self.n_pos, self.n_neg = int(n_pos), int(n_neg)
        self.m, self.nn = sorted((self.n_pos, self.n_neg))
        self.N = self.m + self.nn
        self.n = self.m * self.nn  # largest U (the name max_order expects)
        self.half = (self.n - 1) // 2  # lower half: u <= half
        self.mean = self.n / 2.0
        self.var = self.n * (self.N + 1) / 12.0
        self._i = np.arange(1, self.m + 1, dtype=float)
        self._k = self.nn + self._i
        self._lgC = (
            special.gammaln(self.N + 1) - special.gammaln(self.m + 1) - special.gammaln(self.nn + 1)
        )
        self._tilt_cache: dict[int, float] = {}
        self._pmf_cache: dict[int, tuple[float, float]] = {}

    def _where(self) -> str:
        return f"(n_pos={self.n_pos}, n_neg={self.n_neg})"

    # ---- cumulant generating function and the tilted law's moments -------------------------
    def cgf(self, s: float) -> tuple[float, float]:
        """(K(s), absolute error bound), K(s) = log E e^(sU). s > 0 via K(s) = s mn + K(-s)."""
        if s == 0.0:
            return 0.0, 0.0
        if s > 0:
            k, e = self.cgf(-s)
            return s * self.n + k, e + 2 * EPS * s * self.n
        # sum_i log[expm1((n+i) s) i / (expm1(i s) (n+i))]: each term one log of a ratio
        a, ea = _expm1_real(self._k * s)
        b, eb = _expm1_real(self._i * s)
        r = (a / b) * (self._i / self._k)
        rel = ea / np.abs(a) + eb / np.abs(b) + 4 * EPS
        terms = np.log(r)
        tot, absx = _pairwise_sum(terms)
        err = float(
            np.sum(rel * 1.01 + EPS * np.abs(terms)) + math.ceil(math.log2(self.m + 1)) * EPS * absx
        )
        return float(tot), err

    def _moments(self, s: float) -> tuple[float, float]:
        """Mean and variance of the tilted law (used only to place blocks: not error-critical)."""
        k, i = self._k, self._i

        def mv(kk):
            x = kk * s
            small = np.abs(x) < 1e-4
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                mean = np.where(
                    small,
                    s * (kk * kk - 1) / 12.0,
                    0.5 * kk / np.tanh(0.5 * x) - 0.5 / np.tanh(0.5 * s),
                )
                var = np.where(
                    small,
                    (kk * kk - 1) / 12.0,
                    0.25 / np.sinh(0.5 * s) ** 2 - 0.25 * kk * kk / np.sinh(0.5 * x) ** 2,
                )
            return mean, var

        if s == 0.0:
            return self.mean, self.var
        mk, vk = mv(k)
        mi, vi = mv(i)
        return self.mean + float(np.sum(mk - mi)), max(float(np.sum(vk - vi)), 1e-300)

    def tilt(self, u: float) -> float:
        """s <= 0 with tilted mean ~ u (safeguarded Newton; any s is valid, this one is
        efficient)."""
        if u >= self.mean:
            return 0.0
        key = int(u)
        if key in self._tilt_cache:
            return self._tilt_cache[key]
        lo, hi = -1.0 / math.sqrt(self.var), 0.0  # bracket: mean(lo) <= u <= mean(hi)
        while self._moments(lo)[0] > u and lo > -1e4:
            hi, lo = lo, lo * 2.0
        s = max(lo, min(hi, (u - self.mean) / self.var))
        for _ in range(100):
            mu, v = self._moments(s)
            if abs(mu - u) <= 1e-3 * math.sqrt(v) + 1e-3:
                break
            if mu > u:
                hi = s
            else:
                lo = s
            step = s - (mu - u) / v
            s = step if lo < step < hi else 0.5 * (lo + hi)
        self._tilt_cache[key] = s
        return s

    def log_chernoff_lower(self, x: float) -> float:
        """An upper bound on log P(U <= x) (min over s < 0 of K(s) - s x, at an approximate
        optimum: every s gives a valid bound)."""
        if x < 0:
            return -math.inf
        if x >= self.mean:
            return 0.0
        s = self.tilt(x)
        k, e = self.cgf(s)
        return min(0.0, k - s * x + e + 1e-12)

    def _log_tilted_tail(self, s: float, ks: float, x: float, upper: bool) -> float:
        """Upper bound on log P_s(U >= x) (upper) or log P_s(U <= x), Chernoff with exact K."""
        if upper and x > self.n:
            return -math.inf
        if not upper and x < 0:
            return -math.inf
        mu, v = self._moments(s)
        best = 0.0
        d = (x - mu) / v
        for h in (abs(d), 0.5 * abs(d), 2 * abs(d), 1e-3 / math.sqrt(v)):
            if h <= 0:
                continue
            sh = s + h if upper else s - h
            k2, e2 = self.cgf(sh)
            val = k2 - ks + (e2 + self.cgf(s)[1] + 1e-12) - (h * x if upper else -h * x)
            best = min(best, val)
        return best

    # ---- one tilted block ------------------------------------------------------------------
    def _bernoulli_bound(self, s: float, ks: float, L: int, target: float):
        """Upper bounds on |phi_s(2 pi j / L)| (module doc, E2), as (beta_j for j < j1, bound on
        (2/L) sum_{j >= j1} beta_j, j1). Beyond j1, |A| is bounded by Abel summation,
        |A(theta)| <= (v_0 + v_{N-1} + sum |v_{r+1} - v_r|) / (2 sin(theta / 2)), decreasing
        in theta; below j1 A is computed."""
        from scipy import special

        r = np.arange(self.N, dtype=float)
        lo, hi = -60.0 - abs(s) * self.N, 60.0 + abs(s) * self.N
        a = float(np.clip(special.logit(self.m / self.N) - s * (self.N - 1) / 2.0, lo, hi))
        for _ in range(200):  # a with sum_r expit(a + s r) = m maximises P(sum B = m)
            p = special.expit(a + s * r)
            f, df = p.sum() - self.m, (p * (1.0 - p)).sum()
            if abs(f) < 1e-9 * self.m:
                break
            if f > 0:
                hi = a
            else:
                lo = a
            nxt = a - f / df if df > 0 else 0.5 * (lo + hi)
            a = nxt if lo < nxt < hi else 0.5 * (lo + hi)
        x = a + s * r
        p = special.expit(x)
        v = p * (1.0 - p)
        V = float(v.sum())
        log_q = -np.logaddexp(0.0, x)
        # K_W(s) for W = sum of the 0-based ranks = U + m (m - 1) / 2
        log_P = float(log_q.sum()) + a * self.m + self._lgC + ks + s * self.m * (self.m - 1) / 2.0
        log_P -= 1e-8 * (1.0 + abs(log_P))  # margin for the rounding in these sums
        c0 = float(v[0] + v[-1] + np.abs(np.diff(v)).sum()) * (1 + 1e-9)
        # j1: where the Abel bound (with I_0(x) <= e^x) makes (2/L) sum_{j >= j1} beta_j tiny
        x_star = V + log_P + math.log(1e-3 * target)
        half = L // 2
        if x_star <= 0 or c0 / (2 * x_star) >= 1:
            j1 = half + 1
        else:
            j1 = min(half + 1, math.ceil(L / math.pi * math.asin(c0 / (2 * x_star))) + 1)
        if j1 <= half:
            absA1 = min(V, c0 / (2 * math.sin(math.pi * j1 / L)))
            # beta decreasing beyond j1: (2/L) sum_{j1..L/2} beta_j <= (2/L)(L/2 - j1 + 1) beta_j1
            far = 2.0 / L * (half - j1 + 1) * math.exp(min(0.0, -V + absA1 - log_P))
        else:
            far = 0.0
        jj = np.arange(min(j1, half + 1))
        if jj.size <= 256 and jj.size * self.N <= 10_000_000:  # A directly on the grid below j1
            absA = np.empty(jj.size)
            step = max(1, 4_000_000 // self.N)
            for j0 in range(0, jj.size, step):
                th = 2 * np.pi * jj[j0 : j0 + step, None] / L
                absA[j0 : j0 + step] = np.abs((v * np.exp(1j * th * r)).sum(axis=1))
        else:  # or by one FFT over the whole grid
            folded = (
                np.bincount(np.arange(self.N) % L, weights=v, minlength=L)
                if L < self.N
                else np.concatenate([v, np.zeros(L - self.N)])
            )
            absA = np.abs(np.fft.rfft(folded))[: jj.size]
        absA = np.minimum(absA + 1e-9 * V + 1e-12, V)  # rounding margin; |A| <= V always
        log_b = -V + absA + np.log(special.i0e(absA)) - log_P
        return np.exp(np.minimum(log_b, 0.0)), far

    def _block(self, s: float, lo: int, hi: int, sd: float, full: bool = True):
        """p(u) for u in [lo, hi] from the tilt s: (log p, relative error bound) arrays
        (infinite bounds: failed). `full`: may evaluate every frequency when m is small."""
        c = (lo + hi) // 2
        ks, eks = self.cgf(s)
        w = max(hi - c, c - lo)
        L = 1 << max(6, math.ceil(math.log2(w + 14.0 * sd + 64)))
        if L > self.n + w + 1:  # the whole support fits: choose L >= n + 1 + w, no aliasing
            L = 1 << max(6, math.ceil(math.log2(self.n + w + 2)))
        while True:
            if L > self.n:  # u + rL falls outside [0, n] for every r != 0
                e1 = 0.0
            else:
                e1 = math.exp(self._log_tilted_tail(s, ks, lo + L, True)) + math.exp(
                    self._log_tilted_tail(s, ks, hi - L, False)
                )
            if e1 < 1e-40 or L >= 1 << 27:
                break
            L *= 2
        p_scale = 1.0 / (sd * math.sqrt(2 * math.pi) + 1.0)
        target = 1e-6 * REL_TOL * p_scale * math.exp(-0.5 * (w / max(sd, 1.0)) ** 2)
        beta, far = self._bernoulli_bound(s, ks, L, target)
        # E2(J) = (2/L) sum_{j > J} beta_j: choose the smallest J whose E2 is negligible
        tail = 2.0 / L * np.cumsum(beta[::-1])[::-1] + far  # tail[j]: (2/L) sum_{j' >= j}
        ok = np.flatnonzero(tail <= target)
        J = int(ok[0]) - 1 if ok.size else beta.size - 1
        if J > _MAX_FREQUENCIES:
            # small m: the bound is weak (V small); take every frequency if that is cheap
            J = L // 2 if full and (L // 2) * self.m <= _FULL_SPECTRUM_TERMS else _MAX_FREQUENCIES
        J = max(J, 1)
        e2 = float(tail[J + 1]) if J + 1 < tail.size else (far if J < L // 2 else 0.0)
        if e2 > REL_TOL * p_scale:  # the bound alone fails the block (V too small): give up now
            return np.full(hi - lo + 1, -np.inf), np.full(hi - lo + 1, np.inf)
        # phi_s(theta_j), j = 0..J, with error bounds
        j = np.arange(J + 1)
        theta = 2 * np.pi * j / L
        logphi = np.zeros(J + 1, dtype=complex)
        dlog = np.zeros(J + 1)
        kx, ix = self._k * s, self._i * s
        a_s, ea_s = _expm1_real(kx)
        b_s, eb_s = _expm1_real(ix)
        if s != 0.0:  # divide by the factors at theta = 0 (the normalisation G(e^s))
            scale, rel_s = b_s / a_s, ea_s / np.abs(a_s) + eb_s / np.abs(b_s)
        else:  # ... which are (n+i)/i at s = 0
            scale, rel_s = self._i / self._k, np.zeros(self.m)
        step = max(1, 1_000_000 // self.m)
        for j0 in range(1, J + 1, step):
            th = theta[j0 : j0 + step, None]
            A, eA = _expm1_rows(kx, self._k * th)
            B, eB = _expm1_rows(ix, self._i * th)
            absB = np.abs(B)
            ratio = (A * np.conj(B)) * (scale / (absB * absB))  # A / B * scale
            rel = eA / np.abs(A) + eB / absB + rel_s + 8 * EPS
            with np.errstate(divide="ignore"):
                terms = np.log(ratio)
            tot, absx = _pairwise_sum(terms)
            logphi[j0 : j0 + step] = tot
            d = (
                (rel + rel * rel).sum(axis=1)
                + EPS * np.abs(terms).sum(axis=1)
                + math.ceil(math.log2(self.m + 1)) * EPS * absx
            )
            # |log(1 + e)| <= e + e^2 needs |e| <= 1/2; otherwise no relative bound
            dlog[j0 : j0 + step] = np.where(np.all(rel <= 0.5, axis=1), d, np.inf)
        # centre at c: multiply by e^(-i theta_j c) with the phase reduced exactly in integers
        phase = 2 * np.pi * ((j * (c % L)) % L) / L
        psi = np.exp(logphi - 1j * phase)
        psi[0] = 1.0
        abs_psi = np.abs(psi)
        with np.errstate(over="ignore", invalid="ignore"):
            rel_psi = np.expm1(dlog + 4 * EPS * (1 + np.abs(logphi))) + 8 * EPS
            # |phi| <= beta whatever the computation gave, so the error is also <= |psi| + beta
            bj = beta[: J + 1] if beta.size >= J + 1 else np.ones(J + 1)
            err_psi = np.where(abs_psi == 0, bj, np.minimum(abs_psi * rel_psi, abs_psi + bj))
        x = np.fft.irfft(np.conj(np.concatenate([psi, np.zeros(L // 2 + 1 - psi.size)])), n=L)
        norm2 = math.sqrt(1.0 + 2.0 * float(np.sum(abs_psi[1:] ** 2)))
        e3 = (2.0 / L) * float(np.sum(err_psi)) + math.log2(L) * 6 * EPS * norm2 / math.sqrt(L)
        u = np.arange(lo, hi + 1)
        ps = x[(u - c) % L]
        err_abs = e1 + e2 + e3 + 2 * EPS * np.abs(ps)
        good = ps > 2 * err_abs
        with np.errstate(divide="ignore", invalid="ignore"):
            rel_p = np.where(good, err_abs / (ps - err_abs), np.inf)
            logp = np.where(good, ks - s * u + np.log(np.where(good, ps, 1.0)), -np.inf)
        # K(s) and s u: absolute errors in the exponent
        dexp = eks + 2 * EPS * np.abs(s * u) + 2 * EPS * np.abs(logp)
        rel_total = np.where(good, (1 + rel_p) * np.expm1(dexp) + rel_p, np.inf)
        return logp, rel_total

    def _harding(self, lo: int, hi: int):
        """p(u) for 0 <= lo <= u <= hi from the generating function truncated at degree hi
        (Harding 1984): times (1 - q^(n+i)), then divided by (1 - q^i), i = 1..m, in floating
        point with the variable scaled to rho q (rho = e^s < 1 keeps the numbers in range).
        The subtractions can cancel, so the same recursion with (1 + q^(n+i)) gives c_abs >=
        the sum of the magnitudes of everything added, and |error(u)| <= (3 (hi H_m + 2m) + 8)
        eps c_abs(u): relative error bound = that / c(u). Tight in the lower tail (little
        cancellation), useless near the centre; cost ~ 3 m hi."""
        from scipy.signal import lfilter

        s = self.tilt(hi) if hi < self.mean else 0.0
        log_rho = s
        c = np.zeros(hi + 1)
        c[0] = 1.0
        ca = c.copy()
        for i in range(1, self.m + 1):  # numerator factors with n + i <= hi
            k = self.nn + i
            if k > hi:
                break
            f = math.exp(log_rho * k)
            c[k:] -= f * c[: hi + 1 - k].copy()
            ca[k:] += f * ca[: hi + 1 - k].copy()
        steps = min(self.m, hi)
        for i in range(1, steps + 1):  # divide by (1 - rho^i q^i): b[j] = a[j] + rho^i b[j - i]
            f = math.exp(log_rho * i)
            rows = -(-(hi + 1) // i)
            for arr in (c, ca):
                buf = np.zeros(rows * i)
                buf[: hi + 1] = arr
                arr[:] = lfilter([1.0], [1.0, -f], buf.reshape(rows, i), axis=0).ravel()[: hi + 1]
        if not (np.all(np.isfinite(ca)) and ca.max() < 1e300):
            return np.full(hi - lo + 1, -np.inf), np.full(hi - lo + 1, np.inf)
        hm = float(np.sum(1.0 / np.arange(1, steps + 1))) if steps else 0.0
        u = np.arange(lo, hi + 1)
        cu, cau = c[lo:], ca[lo:]
        with np.errstate(divide="ignore", invalid="ignore"):
            # + underflow: every value below 2^-1022 lost costs at most that, per operation
            abs_err = (3 * (hi * hm + 2 * self.m) + 8) * EPS * cau + 3 * self.m * (
                hi + 1
            ) * 2.0**-1022
            good = cu > 2 * abs_err
            rel = np.where(good, abs_err / (cu - abs_err), np.inf)
            logp = np.where(
                good, np.log(np.where(good, cu, 1.0)) - log_rho * u - self._lgC, -np.inf
            )
        rel = rel + 4 * EPS * (abs(self._lgC) + np.abs(log_rho * u) + 1)
        return logp, np.where(good, rel, np.inf)

    def log_pmf_range(self, lo: int, hi: int):
        """(log p(u), relative error bound) for u = lo..hi inside the lower half."""
        if not 0 <= lo <= hi <= self.n // 2:  # p(u) = p(n - u): callers mirror the upper half
            raise ValueError(
                f"Mann-Whitney pmf range U={lo}..{hi} {self._where()} must lie in "
                f"0..{self.n // 2} (the lower half; p(U) = p(n_pos*n_neg - U))"
            )
        logp = np.full(hi - lo + 1, -np.inf)
        rel = np.zeros(hi - lo + 1)
        x = hi
        zero_top = self._underflow_top()  # p(u) <= F(u) < e^LOG_UNDERFLOW for u <= zero_top
        lo_f = max(lo, zero_top + 1)
        # deep in the tail (P(U <= u) < e^-200) the truncated recursion is cheap and accurate,
        # while the tilted blocks get expensive (small V: many frequencies): recursion first
        k_max = min(hi, self._deep_top(), _HARDING_TERMS // self.m)
        if lo_f <= k_max:
            lp, rl = self._harding(lo_f, k_max)
            okk = rl <= 0.5 * REL_TOL  # half: room for the cdf's summation and remainder
            n_ok = int(np.argmin(okk)) if not okk.all() else okk.size  # accepted prefix
            logp[lo_f - lo : lo_f - lo + n_ok], rel[lo_f - lo : lo_f - lo + n_ok] = (
                lp[:n_ok],
                rl[:n_ok],
            )
            lo_f += n_ok
        # from the top down: tilted blocks while they are cheap (few frequencies); where one
        # would need the whole spectrum (small V), the truncated recursion for what is left
        # below, then (if that does not reach x) full-spectrum blocks for the rest
        full = False
        while x >= lo_f:
            s = self.tilt(x)
            sd = math.sqrt(self._moments(s)[1])
            w = max(1, int(2.0 * sd))
            done = False
            for c in (x - w, x - w // 2, x):  # a block centred below x; closer if x fails
                c = max(c, lo_f, 0)
                s_c = self.tilt(c)
                sd_c = math.sqrt(self._moments(s_c)[1])
                b_lo = max(lo_f, c - w)
                lp, rl = self._block(s_c, b_lo, x, sd_c, full)
                if rl[-1] <= 0.5 * REL_TOL:
                    bad = np.flatnonzero(rl > 0.5 * REL_TOL)
                    first = int(bad[-1]) + 1 if bad.size else 0  # accepted suffix down to here
                    logp[b_lo - lo + first : x - lo + 1] = lp[first:]
                    rel[b_lo - lo + first : x - lo + 1] = rl[first:]
                    x = b_lo + first - 1
                    done = True
                    break
            if done:
                continue
            if not full:
                full = True
                if self.m * x <= _HARDING_TERMS:
                    lp, rl = self._harding(lo_f, x)
                    okk = rl <= 0.5 * REL_TOL
                    n_ok = int(np.argmin(okk)) if not okk.all() else okk.size  # accepted prefix
                    logp[lo_f - lo : lo_f - lo + n_ok] = lp[:n_ok]
                    rel[lo_f - lo : lo_f - lo + n_ok] = rl[:n_ok]
                    lo_f += n_ok
                continue
            raise ValueError(
                f"Mann-Whitney null pmf at U={x} {self._where()}: no tilted block bounds "
                f"its relative error below {REL_TOL:g}; refusing to return an approximate value"
            )
        bad = rel > REL_TOL
        if np.any(bad):
            u = lo + int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"Mann-Whitney null pmf at U={u} {self._where()}: error bound "
                f"{rel[bad][0]:.2g} exceeds {REL_TOL:g}"
            )
        return logp, rel

    def log_cdf_lower(self, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(log P(U <= x), relative error bound) for integers 0 <= x <= half."""
        xs = np.asarray(xs, dtype=np.int64)
        bad = (xs < 0) | (xs > self.half)
        if np.any(bad):  # cdf_sf maps every U onto this range (and k < 0, k >= n to 0 and 1)
            raise ValueError(
                f"Mann-Whitney lower cdf at U={int(xs[bad].flat[0])} {self._where()}: U must "
                f"lie in 0..{self.half} (the lower half; use cdf_sf for any U)"
            )
        out = np.full(xs.shape, -np.inf)
        err = np.zeros(xs.shape)
        if xs.size == 0:
            return out, err
        ux = np.unique(xs)
        # values below the double range are 0 (their bound says so); drop them first
        lo_i, hi_i = 0, ux.size
        while lo_i < hi_i:
            mid = (lo_i + hi_i) // 2
            if self.log_chernoff_lower(int(ux[mid])) < LOG_UNDERFLOW:
                lo_i = mid + 1
            else:
                hi_i = mid
        ux = ux[lo_i:]
        if ux.size == 0:
            return out, err
        x_min, x_max = int(ux[0]), int(ux[-1])
        # start where the Chernoff bound of what lies below is negligible against the
        # (saddlepoint-estimated, then verified) cdf at x_min
        s = self.tilt(x_min)
        ks, _ = self.cgf(s)
        est = ks - s * x_min - math.log(math.sqrt(2 * math.pi * self._moments(s)[1]) + 1.0)
        need = est + math.log(1e-3 * REL_TOL) - 5.0
        a = self._start_below(x_min, need)
        logp, rel = self.log_pmf_range(a, x_max)
        while True:
            logF, sum_err = _log_cumsum(logp)
            rem = self.log_chernoff_lower(a - 1) if a > 0 else -math.inf
            at = ux - a
            rem_rel = np.exp(rem - logF[at]) if rem > -math.inf else np.zeros(at.size)
            if a == 0 or np.all(rem_rel <= 1e-3 * REL_TOL):
                break
            a2 = max(0, a - 2 * (x_max - a + 1))
            lp2, rl2 = self.log_pmf_range(a2, a - 1)
            logp, rel = np.concatenate([lp2, logp]), np.concatenate([rl2, rel])
            a = a2
        rel_prefix = np.maximum.accumulate(rel)
        val = logF[at]
        # + the values left as 0 below the double range (their total is below e^LOG_UNDERFLOW)
        e = rel_prefix[at] + sum_err + rem_rel + np.exp(LOG_UNDERFLOW - val)
        pos = np.searchsorted(ux, xs)
        inside = (pos < ux.size) & (ux[np.minimum(pos, ux.size - 1)] == xs)
        out[inside] = val[pos[inside]]
        err[inside] = e[pos[inside]]
        # below the smallest normal double a value is subnormal anyway: there the guarantee is
        # an absolute error below 2^-1070 (~1e-322) instead of the relative one
        with np.errstate(under="ignore"):
            sub_ok = (out < LOG_MIN_NORMAL) & (err * np.exp(out) <= 2.0**-1070)
        failed = (err > REL_TOL) & ~sub_ok
        if np.any(failed):
            bad = int(xs[failed][0])
            raise ValueError(
                f"Mann-Whitney null cdf at U={bad} {self._where()}: error bound "
                f"{err[failed][0]:.2g} exceeds {REL_TOL:g}"
            )
        return out, err

    def _underflow_top(self) -> int:
        """Largest u whose Chernoff bound on P(U <= u) is below e^LOG_UNDERFLOW (-1 if none)."""
        if not hasattr(self, "_zero_top"):
            self._zero_top = self._start_below(int(self.mean), LOG_UNDERFLOW) - 1
        return self._zero_top

    def _deep_top(self) -> int:
        """Largest u whose Chernoff bound on P(U <= u) is below e^-200 (-1 if none)."""
        if not hasattr(self, "_deep"):
            self._deep = self._start_below(int(self.mean), -200.0) - 1
        return self._deep

    def _start_below(self, x: int, need: float) -> int:
        """Largest a <= x with log Chernoff(a - 1) <= need (bisection; 0 if none)."""
        if self.log_chernoff_lower(0) > need:
            return 0
        lo, hi = 0, x  # Chernoff(lo) <= need < Chernoff(hi) unless hi qualifies
        if self.log_chernoff_lower(x - 1) <= need:
            return x
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.log_chernoff_lower(mid) <= need:
                lo = mid
            else:
                hi = mid
        return lo + 1

    # ---- the interface max_order uses ------------------------------------------------------
    def __repr__(self) -> str:
        return f"Mann-Whitney U (n_pos * n_neg = {self.n})"

    def window(self, tmax: float) -> tuple[int, int]:
        """k-range (lo, hi] whose terms 1 - F(k-1)^t are summed (max_order._window's contract):
        F(lo - 1) <= e^-50 and t P(U > hi) <= e^-50, both from Chernoff's bound."""
        from .max_order import LOG_INV_EPS

        target_lo = -LOG_INV_EPS
        target_hi = -LOG_INV_EPS - math.log(max(tmax, 1.0))
        # F(x) <= bound: lo - 1 = largest x with bound <= target
        a = self._start_below(int(self.mean), target_lo)  # Chernoff(a - 1) <= target
        lo = max(0, a)
        # P(U > hi) = F(n - hi - 1): need n - hi - 1 = a' - 1 with Chernoff(a' - 1) <= target_hi
        b = self._start_below(int(self.mean), target_hi)
        hi = min(self.n, self.n - b)
        return lo, max(lo, hi)

    def cdf_sf(self, k):
        """(P(U <= k), P(U > k)) at integer k, each with relative error <= REL_TOL."""
        k = np.asarray(k, dtype=np.int64)
        flat = k.ravel()
        lower = flat <= self.half
        # F(k) for the lower half; S(k) = P(U >= k + 1) = F(n - k - 1) for the upper half
        arg = np.where(lower, flat, self.n - flat - 1)
        inside = (flat >= 0) & (flat < self.n)
        logv, _ = self.log_cdf_lower(arg[inside])
        v = np.zeros(flat.shape)
        v[inside] = np.exp(logv)
        F = np.where(lower, v, 1.0 - v)  # v <= 1/2, so 1 - v keeps relative accuracy
        S = np.where(lower, 1.0 - v, v)
        F = np.where(flat < 0, 0.0, np.where(flat >= self.n, 1.0, F))
        S = np.where(flat < 0, 1.0, np.where(flat >= self.n, 0.0, S))
        return F.reshape(k.shape), S.reshape(k.shape)

    def pmf(self, k):
        k = np.asarray(k, dtype=np.int64)
        flat = k.ravel()
        inside = (flat >= 0) & (flat <= self.n)
        arg = np.minimum(flat, self.n - flat)[inside]
        out = np.zeros(flat.shape)
        if arg.size:
            # the middle value(s) above half are mirrored onto u <= half except u = n/2 (even n)
            lo, hi = int(arg.min()), int(arg.max())  # hi <= n // 2
            logp, _ = self.log_pmf_range(lo, hi)
            out[inside] = np.exp(logp[arg - lo])
        return out.reshape(k.shape)


def _log_cumsum(logp: np.ndarray) -> tuple[np.ndarray, float]:
    """log of the cumulative sums of exp(logp), in blocks of _SUM_BLOCK scaled by their max,
    blocks chained with logaddexp; returns (log cumsum, relative error bound)."""
    n = logp.size
    out = np.empty(n)
    carry = -np.inf
    nblocks = 0
    for s in range(0, n, _SUM_BLOCK):
        blk = logp[s : s + _SUM_BLOCK]
        mx = blk.max()
        if mx == -np.inf:
            out[s : s + blk.size] = carry
            continue
        cs = np.cumsum(np.exp(blk - mx))
        with np.errstate(divide="ignore"):
            local = mx + np.log(cs)
        out[s : s + blk.size] = np.logaddexp(carry, local)
        carry = out[s + blk.size - 1]
        nblocks += 1
    # cumsum of positives <= (block - 1) eps; exp(x) of |x| <= ~745 adds <= 745 eps relative
    return out, (_SUM_BLOCK + 3 * nblocks + 1000) * EPS
