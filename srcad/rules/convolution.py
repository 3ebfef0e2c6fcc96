"""Convolutions: np.convolve, np.correlate (vectors) and scipy.signal.convolve,
scipy.signal.correlate (arrays of one rank), with `mode=` 'full', 'valid' or 'same'. Bilinear,
so each tangent is the same call with the operand's tangent in its place; each adjoint is the
adjoint of the full result (a correlation of its seed with the other operand, 'valid'), with
the seed of a 'valid' or 'same' result first put where it sits in the full one (`full_seed`,
srcad/runtime/convolution_runtime.py). A correlation is a convolution with the second operand
reversed, whence the flips.

| primitive              | tangent in x (in y: x, g)   | adjoint in x; in y (G = full_seed(g))  |
|------------------------|-----------------------------|----------------------------------------|
| np.convolve(x, y, m)   | np.convolve(g, y, m)        | np.correlate(G, y, 'valid'); (G, x)    |
| np.correlate(x, y, m)  | np.correlate(g, y, m)       | np.convolve(G, y, 'valid');            |
|                        |                             | np.flip(np.correlate(G, x, 'valid'))   |
| scipy.signal.convolve  | scipy.signal.convolve(g, y) | scipy.signal.correlate(G, y, 'valid'); |
|                        |                             | the same of (G, x)                     |
| scipy.signal.correlate | scipy.signal.correlate(g, y) | scipy.signal.convolve(G, y, 'valid'); |
|                        |                             | np.flip(scipy.signal.correlate(G, x))  |

scipy.signal's `method=` ('auto', 'direct', 'fft') changes how the result is computed, not
what it is: the derivative uses the default. Both operands may carry derivatives. numba has
np.convolve and np.correlate without modes and no scipy.signal: the numba backend compiles
srcad/runtime/numba_convolution.py's.
"""

from __future__ import annotations

import numpy as np

from srcad.errors import SrcadError
from srcad.rules.rule_type import linear

_MODES = ("full", "valid", "same")
_VALID = "mode='valid'"


def _mode(name, keywords, default):
    mode = keywords.get("mode", default)
    if mode not in _MODES:
        raise SrcadError(f"{name} with mode={mode!r}", construct=name.rsplit(".", 1)[-1],
                         hint="write mode= as one of the literals 'full', 'valid', 'same'")
    return mode


def _rule(name, ranks, mode, kind, tangent, adjoints, rank):
    seed = f"full_seed(g, x_shape, y_shape, {mode!r}, {kind!r})"
    x_bar, y_bar = (a.format(seed=seed) for a in adjoints)
    return linear(name.rsplit(".", 1)[-1], "x y",
                  (f"{tangent}(g, y, mode={mode!r})", x_bar),
                  (f"{tangent}(x, g, mode={mode!r})", y_bar),
                  shape=f"convolved_shape(x_shape, y_shape, {mode!r}, {kind!r})", rank=rank)


def _numpy(name, default, adjoints):
    """np.convolve(a, v, mode) / np.correlate(a, v, mode) of two vectors."""
    def select(ranks, keywords):
        if tuple(ranks[:2]) != (1, 1):
            raise SrcadError(f"{name} of operands of ranks {tuple(ranks[:2])}",
                             construct=name[3:], hint=f"{name} takes two vectors")
        mode = _mode(name, keywords, default)
        return _rule(name, ranks, mode, name, name, adjoints, 1)
    return select


def _scipy(name, adjoints):
    """scipy.signal.convolve / correlate(in1, in2, mode='full', method='auto')."""
    def select(ranks, keywords):
        if ranks[0] != ranks[1] or ranks[0] == 0:
            raise SrcadError(f"{name} of operands of ranks {tuple(ranks[:2])}",
                             construct=name.rsplit(".", 1)[-1],
                             hint=f"{name} takes two arrays of the same rank")
        mode = _mode(name, keywords, "full")
        return _rule(name, ranks, mode, "scipy", name, adjoints, ranks[0])
    return select


np_convolve = _numpy("np.convolve", "full", (f"np.correlate({{seed}}, y, {_VALID})",
                                             f"np.correlate({{seed}}, x, {_VALID})"))
np_correlate = _numpy("np.correlate", "valid",
                      (f"np.convolve({{seed}}, y, {_VALID})",
                       f"np.flip(np.correlate({{seed}}, x, {_VALID}))"))
signal_convolve = _scipy("scipy.signal.convolve",
                         (f"scipy.signal.correlate({{seed}}, y, {_VALID})",
                          f"scipy.signal.correlate({{seed}}, x, {_VALID})"))
signal_correlate = _scipy("scipy.signal.correlate",
                          (f"scipy.signal.convolve({{seed}}, y, {_VALID})",
                           f"np.flip(scipy.signal.correlate({{seed}}, x, {_VALID}))"))

# (function, select, keywords by position after the two operands): NumPy's
ENTRIES = [(np.convolve, np_convolve, ("mode",)), (np.correlate, np_correlate, ("mode",))]


def table_entries(call_info, entries):
    """(function, CallInfo) of `entries` (`call_info`: the CallInfo type). The numba backend
    compiles them all (srcad/runtime/numba_convolution.py)."""
    return [(fn, call_info(fn.__name__, None, "float", select=select, keywords=keywords,
                           operand_count=2)) for fn, select, keywords in entries]


def scipy_entries(signal):
    """scipy.signal's (`signal`: the module), once the user's code has imported it
    (srcad/rules/library_families.py)."""
    return [(signal.convolve, signal_convolve, ("mode", "method")),
            (signal.correlate, signal_correlate, ("mode", "method"))]
