"""nutpie's C callbacks without numba's error-message machinery: 2.3 s less per compilation.

`nutpie.compile_pymc_model(model)` wraps PyTensor's numba log density (and its expansion to the
model's variables) in two `numba.cfunc`s, which numba compiles in every process: they close
over the model, so its on-disk cache cannot hold them. Their body copies the gradient with
`out[...] = grad`, a broadcasting assignment whose shape-mismatch error makes numba compile
its string formatting (str of ints, unicode concatenation: ~2.1 s on these machines), and
tests `np.all(np.isfinite(out))` (another 0.3 s). The log density itself is cached.

`lean_callbacks()` swaps in the same callbacks with element loops: the same values written,
the same return codes (a shape mismatch, which numba's assignment would raise and nutpie's
try/except turn into 1 or -2, returns that code directly). Draws are bit for bit nutpie's
(tests/test_nutpie_compile.py); a tapt fit compiles in 7.0 s instead of 9.3.

Only nutpie versions whose private helpers have the expected names and arguments are
patched; any other version is left as it is (a log line says so), so an upgrade can cost
time but never change a result.
"""

from __future__ import annotations

import contextlib
import inspect
import logging

import numpy as np

log = logging.getLogger(__name__)

_LOGP_ARGS = ["n_dim", "logp_fn", "user_data", "shared_logp", "shared_data"]
_EXPAND_ARGS = ["n_dim", "n_expanded", "expand_fn", "user_data", "shared_vars", "shared_data"]


def _c_signature(second):
    """nutpie's callback signature: int64 (uint64, second, double*, double*, void*)."""
    import numba

    double_p = numba.types.CPointer(numba.types.double)
    return numba.types.int64(numba.types.uint64, second, double_p, double_p, numba.types.voidptr)


def _make_c_logp_func(n_dim, logp_fn, user_data, shared_logp, shared_data):
    import numba
    from nutpie.compile_pymc import make_extraction_fn

    extract = make_extraction_fn(logp_fn, shared_data, shared_logp, user_data.dtype)
    c_sig = _c_signature(numba.types.CPointer(numba.types.double))  # (dim, x, grad, logp, data)

    def logp_numba(dim, x_, out_, logp_, user_data_):
        if dim != n_dim:
            return -1
        try:
            x = numba.carray(x_, (n_dim,))
            out = numba.carray(out_, (n_dim,))
            logp = numba.carray(logp_, ())
            logp_val, grad = extract(x, user_data_)
            if grad.shape[0] != n_dim:
                return 1
            logp[()] = logp_val
            finite = True
            for i in range(n_dim):
                out[i] = grad[i]
                finite = finite and np.isfinite(grad[i])
            if not finite:
                return 3
            if not np.isfinite(logp_val):
                return 4
        except Exception:  # noqa: BLE001 (nutpie's own wrapper: any error is code 1)
            return 1
        return 0

    return logp_numba, c_sig


def _make_c_expand_func(n_dim, n_expanded, expand_fn, user_data, shared_vars, shared_data):
    import numba
    from nutpie.compile_pymc import make_extraction_fn

    extract = make_extraction_fn(expand_fn, shared_data, shared_vars, user_data.dtype)
    c_sig = _c_signature(numba.types.uint64)  # (dim, n_expanded, x, values, data)

    def expand_numba(dim, expanded, x_, out_, user_data_):
        if dim != n_dim:
            return -1
        if expanded != n_expanded:
            return -1
        try:
            x = numba.carray(x_, (n_dim,))
            out = numba.carray(out_, (n_expanded,))
            (values,) = extract(x, user_data_)
            if values.shape[0] != n_expanded:
                return -2
            for i in range(n_expanded):
                out[i] = values[i]
        except Exception:  # noqa: BLE001 (nutpie's own wrapper: any error is code -2)
            return -2
        return 0

    return expand_numba, c_sig


def _patchable(module) -> bool:
    try:
        return (
            list(inspect.signature(module._make_c_logp_func).parameters) == _LOGP_ARGS
            and list(inspect.signature(module._make_c_expand_func).parameters) == _EXPAND_ARGS
            and callable(module.make_extraction_fn)
        )
    except (AttributeError, TypeError, ValueError):
        return False


@contextlib.contextmanager
def lean_callbacks():
    """While active, nutpie's numba compilations build the lean callbacks above."""
    import nutpie
    import nutpie.compile_pymc as module

    if not _patchable(module):
        log.info(
            "nutpie %s: its callbacks are not the ones evalsci knows; compiling them as "
            "nutpie does (slower, same draws)",
            getattr(nutpie, "__version__", "?"),
        )
        yield
        return
    saved = module._make_c_logp_func, module._make_c_expand_func
    module._make_c_logp_func, module._make_c_expand_func = _make_c_logp_func, _make_c_expand_func
    try:
        yield
    finally:
        module._make_c_logp_func, module._make_c_expand_func = saved
