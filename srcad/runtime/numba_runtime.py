"""What numba-compiled generated code calls at run time (imported by the generated modules,
never by srcad itself, so srcad does not need numba)."""

import math

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, register_jitable

from srcad.runtime import (
    array_runtime,
    checkpointing,
    numba_math,  # noqa: F401 - registers math's functions numba lacks
)
from srcad.runtime.heap_settings import numba_backend_settings
from srcad.runtime.numba_cache import runtime_cache_in_srcad_folder
from srcad.runtime.numba_linked_only import linked_only_without_machine_code
from srcad.runtime.numba_overload_reuse import reuse_overloads
from srcad.runtime.numba_symbols import distinct_symbols

# machine code loaded from numba's cache by this process never shares a symbol with code
# compiled by another process (srcad/runtime/numba_symbols.py)
distinct_symbols()

# an overload's implementation compiled once whether a kernel (nogil) or an overload calls it
# (srcad/runtime/numba_overload_reuse.py)
reuse_overloads()

# no machine code of its own for a function only ever linked into its callers
# (srcad/runtime/numba_linked_only.py)
linked_only_without_machine_code()

# numba's cache of the functions below (and of numba_arrays', numba_semantics') in srcad's
# cache folder, not beside this file (srcad/runtime/numba_cache.py)
runtime_cache_in_srcad_folder()

# freed memory kept for the next call (srcad/runtime/heap_settings.py): generated whole-array
# code allocates megabytes per call, which glibc's defaults fault in again at every call
HEAP = numba_backend_settings()


@numba.njit(cache=True, inline="never")
def reserve_tape(tape, need):
    """`tape` if it holds `need` values, else a longer copy (at least doubled).

    A call rather than an inline `if ...: tape = ...`: numba code that rebinds the tape in a
    branch ran the mixture's loops 10-15% slower (benchmarks/kernels.py, measured)."""
    if need <= tape.shape[0]:
        return tape
    return np.concatenate((tape, np.empty(max(need, tape.shape[0]), tape.dtype)))


# an index into a slice of an array, checked against the slice (normalize/view_indices.py)
# (jitable: compiled into the calling code, where they call each other)
view_start = register_jitable(array_runtime.view_start)
view_size = register_jitable(array_runtime.view_size)
register_jitable(array_runtime.view_position)


@register_jitable
def view_element(index, start, stop, step, length):
    """array_runtime.view_element with a message naming no numbers: formatting them inlines
    string code at each call site, and loops reading a view with run-time bounds ran ~30x
    slower with it (an inline comparison guards the call)."""
    position = array_runtime.view_position(index, start, stop, step, length)
    if position < 0:
        raise IndexError("index out of bounds for a view")
    return position


@numba.njit(cache=True)
def grown(a, count):
    """array_runtime.grown along axis 0 (a list's elements; numba's vector mode keeps a
    tangent's lanes last)."""
    length = a.shape[0]
    if count < length:
        return a
    out = np.zeros((max(2 * length, count + 1),) + a.shape[1:], a.dtype)
    out[:length] = a
    return out


# -- an exp that LLVM can vectorize --------------------------------------------------------------
# math.exp compiles to a call into the C library, one value at a time: a loop calling it is not
# vectorized. simd_exp is plain arithmetic: exp(x) = 2^k exp(r), k = round(x / ln 2),
# r = x - k ln 2 (|r| <= ln 2 / 2, ln 2 in two parts so k ln2_hi is exact),
# exp(r) = 1 + r + r^2 q(r) with q a polynomial of degree 9 (Chebyshev fit of (exp(r) - 1 - r) / r^2
# on |r| <= ln 2 / 2, relative error of exp(r) below 2^-55.8), evaluated by Horner's scheme in
# multiply-adds (`_muladd`: one FMA instruction where the machine has FMA, as x86-64 since AVX2,
# else a multiply and an add; the bound holds either way), 2^k built from its bits.
# Within 1 ulp of the correctly rounded exp (tests/numba_backend/test_numba_runtime.py); overflow
# gives inf, underflow 0 or a subnormal, NaN stays NaN.

@intrinsic
def _float_from_bits(typingctx, bits):
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


@intrinsic
def _bits_of_float(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(types.float64), codegen


@intrinsic
def _muladd(typingctx, a, b, c):
    """a * b + c as LLVM's `fmuladd`: fused into one FMA instruction (one rounding) where the
    machine has one, else a multiply and an add (numba grants no FMA contraction to srcad's
    code, build/numba_fastmath.py; this licence covers these calls alone)."""
    def codegen(context, builder, signature, args):
        double = ir.DoubleType()
        fmuladd = builder.module.declare_intrinsic(
            "llvm.fmuladd", [double], ir.FunctionType(double, [double, double, double]))
        return builder.call(fmuladd, args)
    return types.float64(types.float64, types.float64, types.float64), codegen


_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # trailing zero bits: k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0  # 1.5 * 2**52: y + _ROUND - _ROUND rounds y to an integer, held in
#                              the low bits of y + _ROUND
_OVERFLOW = 709.782712893384  # exp(x) > DBL_MAX above
_UNDERFLOW = -745.1332191019412  # exp(x) < half the smallest subnormal below
# q(r) ~ (exp(r) - 1 - r) / r^2, highest degree first (Chebyshev fit with mpmath at 50 digits
# on |r| <= ln 2 / 2 * (1 + 2^-40), coefficients rounded to doubles)
_Q9, _Q8, _Q7 = 2.510037583256132e-08, 2.762007587998348e-07, 2.7557268480310024e-06
_Q6, _Q5, _Q4 = 2.4801521322368692e-05, 0.00019841269863040545, 0.0013888888917196719
_Q3, _Q2 = 0.008333333333330065, 0.041666666666624164
_Q1, _Q0 = 0.16666666666666669, 0.5000000000000001


@numba.njit(cache=True, inline="always")
def _exp_reduced(y):
    """(shifted, s) with exp(y) = 2^k (1 + s): k = round(y / ln 2), held in the low bits of
    `shifted` (y / ln 2 + _ROUND), and s = exp(r) - 1 = r + r^2 q(r) for the reduced argument
    r = y - k ln 2 (|r| <= ln 2 / 2, k ln 2 subtracted in two exact parts)."""
    shifted = _muladd(y, _LOG2E, _ROUND)
    k = shifted - _ROUND
    r = _muladd(k, -_LN2_LO, _muladd(k, -_LN2_HI, y))  # the inner one exact
    q = _muladd(_Q9, r, _Q8)
    q = _muladd(q, r, _Q7)
    q = _muladd(q, r, _Q6)
    q = _muladd(q, r, _Q5)
    q = _muladd(q, r, _Q4)
    q = _muladd(q, r, _Q3)
    q = _muladd(q, r, _Q2)
    q = _muladd(q, r, _Q1)
    q = _muladd(q, r, _Q0)
    return shifted, _muladd(r * r, q, r)


@numba.njit(cache=True, inline="always")
def simd_exp(x):
    """exp(x) in plain arithmetic (see above): vectorized in loops, within 1 ulp."""
    shifted, s = _exp_reduced(min(max(x, -746.0), 710.0))
    p = s + 1.0
    # 2^k as two factors, so that results down to the subnormals stay exact powers of two
    k_int = _bits_of_float(shifted) - _bits_of_float(_ROUND)
    half = k_int >> 1
    y = p * _float_from_bits((half + 1023) << 52) * _float_from_bits((k_int - half + 1023) << 52)
    y = math.inf if x > _OVERFLOW else y
    y = 0.0 if x < _UNDERFLOW else y
    return y if x == x else x


# -- a tanh that LLVM can vectorize ---------------------------------------------------------------
# Two forms, both computed and one selected (a branch would stop vectorization), a = |x|:
# * a < 0.55 (tanh < 0.5005): a + a^3 t(a^2), t a polynomial of degree 10 in a^2 (Chebyshev
#   interpolant of (tanh(a) - a) / a^3 on a^2 <= 0.3025, fitted in 60-digit decimals, relative
#   error below 2^-54 with its coefficients rounded); a^3 t is below a tenth of the result, so
#   the result is the rounding of a, plus a term with a small error.
# * else 1 - 2 / (E + 1), E = exp(2a) as simd_exp computes it, kept as two doubles (2^k (1 + s)
#   with 1 + s split exactly), E + 1 and the quotient corrected by their exact residuals (an FMA):
#   2 / (E + 1) <= 1/2 is then within about 0.2 ulp of the result, which 1 - it rounds once.
# Within 1 ulp of tanh (tests/numba_backend/test_numba_runtime.py, against math.tanh and a
# long-double reference); a clamped to 20 (tanh(20) rounds to 1); tanh(-0.0) = -0.0,
# tanh(+-inf) = +-1, NaN stays NaN. The exact sums are `_plain_sum`s, kept by any fast-math
# licence of the caller (with reassoc and nsz, LLVM folds (1 - (1 + s)) + s to 0: 1.5 ulp).

_TANH_SATURATED = 20.0
_TANH_SERIES_END = 0.55
# t(u) ~ (tanh(a) - a) / a^3 at u = a^2, highest degree first
_T10, _T9, _T8 = -2.060276537636634e-05, 8.511313685577672e-05, -0.0002346347410887237
_T7, _T6, _T5 = 0.0005889360520074057, -0.001455661830100716, 0.003592110378689024
_T4, _T3, _T2 = -0.008863234397814355, 0.021869488493666944, -0.053968253967434016
_T1, _T0 = 0.13333333333332714, -0.3333333333333333


@intrinsic
def _quotient(typingctx, a, b):
    """a / b as the bare floating-point division: numba's `/` tests b for zero first (to raise
    ZeroDivisionError), a branch that keeps LLVM from vectorizing the loop around it."""
    def codegen(context, builder, signature, args):
        return builder.fdiv(args[0], args[1])
    return types.float64(types.float64, types.float64), codegen


@intrinsic
def _plain_sum(typingctx, a, b):
    """a + b rounded once, whatever fast-math flags the caller is compiled with: the
    instruction carries LLVM's `contract` flag alone (fusing a product into it only rounds
    less), and numba's fastmath pass adds its flags only to instructions that have none."""
    def codegen(context, builder, signature, args):
        instruction = builder.fadd(args[0], args[1])
        instruction.flags.append("contract")
        return instruction
    return types.float64(types.float64, types.float64), codegen


@intrinsic
def _fused(typingctx, a, b, c):
    """a * b + c rounded once (LLVM's `fma`, exact residuals need it), also without FMA
    hardware."""
    def codegen(context, builder, signature, args):
        double = ir.DoubleType()
        fma = builder.module.declare_intrinsic("llvm.fma", [double],
                                               ir.FunctionType(double, [double] * 3))
        return builder.call(fma, args)
    return types.float64(types.float64, types.float64, types.float64), codegen


@numba.njit(cache=True, inline="always")
def simd_tanh(x):
    """tanh(x) in plain arithmetic (see above): vectorized in loops, within 1 ulp."""
    a = abs(x)
    # a < 0.55: the series
    u = a * a
    t = _muladd(_T10, u, _T9)
    t = _muladd(t, u, _T8)
    t = _muladd(t, u, _T7)
    t = _muladd(t, u, _T6)
    t = _muladd(t, u, _T5)
    t = _muladd(t, u, _T4)
    t = _muladd(t, u, _T3)
    t = _muladd(t, u, _T2)
    t = _muladd(t, u, _T1)
    t = _muladd(t, u, _T0)
    series = _muladd(a * u, t, a)
    # else: E = exp(y) = 2^k (1 + s), |r| <= ln 2 / 2 as in simd_exp
    y = 2.0 * (_TANH_SATURATED if a > _TANH_SATURATED else a)  # NaN passes through
    shifted, s = _exp_reduced(y)
    p = _plain_sum(1.0, s)  # |s| < 1/2: 1 + s = p + p_low exactly
    p_low = _plain_sum(_plain_sum(1.0, -p), s)
    two_k = _float_from_bits((_bits_of_float(shifted) - _bits_of_float(_ROUND) + 1023) << 52)
    e, e_low = p * two_k, p_low * two_k
    d = _plain_sum(e, 1.0)  # e >= 1: e + 1 = d + d_low exactly, e_low added
    d_low = _plain_sum(_plain_sum(1.0, _plain_sum(e, -d)), e_low)
    inverse = _quotient(1.0, d)
    half = 2.0 * inverse  # 2 / d rounded once, <= 1/2
    residual = _plain_sum(_fused(-half, d, 2.0), -half * d_low)  # 2 - half (d + d_low)
    correction = residual * inverse
    # 1 - half - correction: 1 - half split exactly, the rest added once
    high = _plain_sum(1.0, -half)
    low = _plain_sum(_plain_sum(1.0, -high), -half)
    saturating = _plain_sum(high, _plain_sum(low, -correction))
    return math.copysign(series if a < _TANH_SERIES_END else saturating, x)


# -- a log that LLVM can vectorize ----------------------------------------------------------------
# log(x) = k ln 2 + log(m), x = 2^k m with m in [sqrt(2)/2, sqrt(2)) read from x's bits
# (a subnormal x scaled by 2^54 first), log(m) = f - f^2/2 + s (f^2/2 + R(s^2)) with f = m - 1,
# s = f / (2 + f) and R fdlibm's minimax polynomial (its e_log.c, error below 1 ulp), k as a
# float from its bits (no int-to-float conversion, which AVX2 lacks for 64-bit ints). Within
# 1 ulp of the C library's log (tests/numba_backend/test_numba_runtime.py); log(0) = -inf, a
# negative x gives NaN, log(inf) = inf, NaN stays NaN.

_LG1, _LG2 = 6.666666666666735130e-01, 3.999999999940941908e-01
_LG3, _LG4 = 2.857142874366239149e-01, 2.222219843214978396e-01
_LG5, _LG6, _LG7 = 1.818357216161805012e-01, 1.531383769920937332e-01, 1.479819860511658591e-01
_SMALLEST_NORMAL = 2.2250738585072014e-308
_TWO_54 = 18014398509481984.0
_SQRT_HALF_BITS = 0x3FE6A09E00000000  # the high word of sqrt(2)/2: m starts there
_EXPONENT_FLOAT = 0x4330000000000000  # 2^52: its low bits hold an int read as a float


@numba.njit(cache=True, inline="always")
def simd_log(x):
    """log(x) in plain arithmetic (see above): vectorized in loops, within 1 ulp."""
    small = x < _SMALLEST_NORMAL
    scaled = x * _TWO_54 if small else x
    bits = _bits_of_float(scaled) + (0x3FF0000000000000 - _SQRT_HALF_BITS)
    exponent = (bits >> 52) & 0x7FF
    k = _float_from_bits(_EXPONENT_FLOAT | exponent) - (4503599627370496.0 + 1023.0)
    k = k - 54.0 if small else k
    f = _float_from_bits((bits & 0x000FFFFFFFFFFFFF) + _SQRT_HALF_BITS) - 1.0
    half_square = 0.5 * f * f
    s = _quotient(f, 2.0 + f)
    z = s * s
    w = z * z
    r = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7))) + w * (_LG2 + w * (_LG4 + w * _LG6))
    y = s * (half_square + r) + k * _LN2_LO - half_square + f + k * _LN2_HI
    y = math.nan if x < 0.0 else y
    y = -math.inf if x == 0.0 else y
    y = x if x == math.inf else y
    return y if x == x else x


# -- a running min/max in lanes (srcad/transform/numba_extremum_lanes.py) ------------------------

@numba.njit(cache=True)
def zero_signs_differ(combined, lane0, lane1, lane2, lane3):
    """Whether the lanes' combined extremum is a zero that the lanes hold with both signs (the
    loop's own answer is then the sign of its first zero, which only running it tells).
    Called once per loop: compiled once and cached, not inlined."""
    if combined != 0.0:
        return False
    sign = math.copysign(1.0, combined)
    return ((lane0 == 0.0 and math.copysign(1.0, lane0) != sign)
            or (lane1 == 0.0 and math.copysign(1.0, lane1) != sign)
            or (lane2 == 0.0 and math.copysign(1.0, lane2) != sign)
            or (lane3 == 0.0 and math.copysign(1.0, lane3) != sign))


# -- the binomial checkpointing schedule (srcad/runtime/checkpointing.py), compiled
# -------------------- Its helpers become callable from compiled code as they are (register_jitable
# keeps the
# plain functions); the two functions generated code calls are compiled and cached on disk.
for _helper in (checkpointing._binom, checkpointing.optimal_advances,
                checkpointing.advance_length, checkpointing._add, checkpointing.binomial_plan,
                checkpointing.snapshot_count):
    register_jitable(_helper)
checkpoint_plan = numba.njit(cache=True)(checkpointing.checkpoint_plan)
array_bytes = numba.njit(cache=True)(checkpointing.array_bytes)
