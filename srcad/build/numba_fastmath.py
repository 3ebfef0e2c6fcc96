"""The fast-math licences numba compiles srcad's generated code with: `arcp` always, and
`reassoc` when the environment variable `SRCAD_NUMBA_REASSOCIATE` is `1` (read when srcad
builds a function's numba code; `0` or unset: off; any other value is refused).

`arcp` (always): LLVM may divide by multiplying with a reciprocal (and hoist or share that
reciprocal): ~20% faster reverse sweeps, results within an ulp or two. No other licence by
default: NaN, inf and signed zeros keep their IEEE meaning (the non-finite guards rely on it),
no FMA contraction (it can make an exact cancellation a tiny nonzero) and no reassociation: a
sum `s += x[i]` adds in the order the code writes, each addition waiting on the one before.

`reassoc` (opt-in): LLVM may reassociate additions and multiplications, which lets it split a
running sum into several partial sums in SIMD lanes and add them at the end, as XLA does for
`jnp.sum` and numba's `fastmath=True` does: a long sum runs several times faster, and its
result may differ from the in-order one in the last bits (a relative difference of about
n * 2**-53 for n addends of one sign; more where the addends cancel). NaN, inf and signed
zeros keep their meaning (`nnan`, `ninf` and `nsz` stay off); a running `max`/`min` is not
vectorized by it. numba's disk cache does not key on the licences: they are part of each
generated module's name (srcad/build/compiler.py), so code compiled with one set is never
loaded for another.

>>> sorted(fastmath_flags({})), sorted(fastmath_flags({"SRCAD_NUMBA_REASSOCIATE": "1"}))
(['arcp'], ['arcp', 'reassoc'])
"""

from __future__ import annotations

import os

from srcad.errors import SrcadError

FASTMATH = frozenset({"arcp"})
REASSOCIATED = FASTMATH | {"reassoc"}
VARIABLE = "SRCAD_NUMBA_REASSOCIATE"


def fastmath_flags(environ=os.environ) -> frozenset:
    """numba's `fastmath` set for srcad's generated code: FASTMATH, or REASSOCIATED when
    `SRCAD_NUMBA_REASSOCIATE` is 1; SrcadError for a value other than 0, 1 or empty."""
    setting = environ.get(VARIABLE, "").strip()
    if setting in ("", "0"):
        return FASTMATH
    if setting == "1":
        return REASSOCIATED
    raise SrcadError(f"{setting!r} is not a setting of {VARIABLE}", construct=VARIABLE,
                     hint="set it to 1 (sums may be reassociated: faster, last bits may "
                          "differ) or 0 (sums in the order written, the default), or unset it")
