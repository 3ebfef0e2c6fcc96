"""srcad/runtime/numba_runtime.py: the functions generated numba code calls."""

import math
import re

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from srcad.runtime.numba_runtime import reserve_tape, simd_exp, simd_tanh  # noqa: E402


@numba.njit
def _exp_all(xs, out):
    for i in range(xs.shape[0]):
        out[i] = simd_exp(xs[i])


@numba.njit
def _tanh_all(xs, out):
    for i in range(xs.shape[0]):
        out[i] = simd_tanh(xs[i])


def _ulps(got, want):
    return np.abs(got - want) / np.spacing(np.abs(want))


def test_simd_exp_is_within_one_ulp_of_exp():
    rng = np.random.default_rng(0)
    xs = np.concatenate([rng.uniform(-40.0, 40.0, 200_000), rng.uniform(-1e-3, 1e-3, 10_000),
                         rng.uniform(-708.0, 709.7, 50_000), np.linspace(-0.35, 0.35, 10_001)])
    out = np.empty_like(xs)
    _exp_all(xs, out)
    want = np.array([math.exp(x) for x in xs])
    assert _ulps(out, want).max() <= 1.0


def test_simd_exp_at_the_edges():
    xs = np.array([0.0, -0.0, 1.0, -1.0, 709.78, 709.79, 710.0, 1e308, np.inf,
                   -708.5, -740.0, -745.13, -745.14, -1e308, -np.inf, np.nan, 5e-324, -5e-324])
    out = np.empty_like(xs)
    _exp_all(xs, out)
    for x, y in zip(xs, out):
        if math.isnan(x):
            assert math.isnan(y)
            continue
        try:
            want = math.exp(x)
        except OverflowError:
            want = math.inf
        if want == 0.0 or math.isinf(want) or want < 2.2250738585072014e-308:
            # infinities, zeros and subnormals: exact, or one subnormal step away
            assert y == want or abs(y - want) <= 5e-324, (x, y, want)
        else:
            assert _ulps(np.array([y]), np.array([want]))[0] <= 1.0, (x, y, want)


def test_simd_exp_subnormal_results():
    xs = np.linspace(-745.0, -700.0, 20_001)  # exp is subnormal below about -708.4
    out = np.empty_like(xs)
    _exp_all(xs, out)
    want = np.array([math.exp(x) for x in xs])
    normal = want >= 2.2250738585072014e-308
    assert _ulps(out[normal], want[normal]).max() <= 1.0
    assert np.abs(out[~normal] - want[~normal]).max() <= 5e-324


@numba.njit(fastmath={"arcp", "reassoc"})
def _exp_all_reassociated(xs, out):
    """The licences srcad's generated code may compile with (build/numba_fastmath.py): simd_exp
    is inlined into it and compiled with them."""
    for i in range(xs.shape[0]):
        out[i] = simd_exp(xs[i])


def _exp_or_inf(x):
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _exp_sweep():
    """Random and edge inputs over exp's whole range (its results normal, subnormal, 0, inf)."""
    rng = np.random.default_rng(40)
    ln2 = math.log(2.0)
    multiples = np.arange(-1075, 1025) * (ln2 / 2.0)  # where k = round(x / ln 2) changes
    near_multiples = (multiples[:, None] * (1.0 + np.array([-4, -1, 0, 1, 4]) * 2.0**-52)).ravel()
    tiny = np.exp(rng.uniform(-740.0, 0.0, 50_000)) * rng.choice([-1.0, 1.0], 50_000)
    overflow, underflow = math.log(1.7976931348623157e308), math.log(5e-324) - ln2 / 2
    edges = [np.nextafter(overflow, np.inf), overflow, np.nextafter(overflow, -np.inf),
             underflow, np.nextafter(underflow, np.inf), np.nextafter(underflow, -np.inf),
             -708.3964185322641, -708.4, 709.0, 0.0, -0.0, 5e-324, -5e-324, 1e-300, -1e-300,
             2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308]
    return np.concatenate([rng.uniform(-746.0, 710.0, 300_000), rng.uniform(-1.0, 1.0, 100_000),
                           rng.uniform(-745.2, -708.0, 50_000), near_multiples, tiny,
                           np.array(edges)])


@pytest.mark.parametrize("exp_all", [_exp_all, _exp_all_reassociated])
def test_simd_exp_sweep_within_one_ulp_of_math_exp(exp_all):
    xs = _exp_sweep()
    out = np.empty_like(xs)
    exp_all(xs, out)
    want = np.array([_exp_or_inf(x) for x in xs])
    finite = np.isfinite(want)
    assert np.array_equal(out[~finite], want[~finite])  # inf exactly where math.exp overflows
    # np.spacing of a subnormal or zero is the smallest subnormal: one step there too
    assert _ulps(out[finite], want[finite]).max() <= 1.0
    specials = np.array([np.inf, -np.inf, np.nan, 1e308, -1e308])
    got = np.empty_like(specials)
    exp_all(specials, got)
    assert got[0] == np.inf and got[1] == 0.0 and np.isnan(got[2])
    assert got[3] == np.inf and got[4] == 0.0


def test_a_loop_of_simd_exp_is_vectorized_with_multiply_adds():
    xs = np.linspace(-1.0, 1.0, 8)
    _exp_all(xs, np.empty_like(xs))
    llvm = _exp_all.inspect_llvm(_exp_all.signatures[0])
    # the polynomial in LLVM's fmuladd (one FMA each where the machine has FMA), on vectors
    assert re.search(r"llvm\.fmuladd\.v\d+f64", llvm)


def test_reserve_tape_keeps_a_large_enough_tape_and_grows_a_small_one():
    tape = np.arange(4.0)
    assert reserve_tape(tape, 4) is tape
    grown = reserve_tape(tape, 9)
    assert grown.shape[0] >= 9 and np.array_equal(grown[:4], tape)


@numba.njit(fastmath={"arcp", "reassoc"})
def _tanh_all_reassociated(xs, out):
    """simd_tanh inlined into code compiled with the licences srcad's code may have: its exact
    sums must stay exact."""
    for i in range(xs.shape[0]):
        out[i] = simd_tanh(xs[i])


@numba.njit(fastmath=True)
def _tanh_all_fast(xs, out):
    """Every licence (nsz too, with which LLVM folds an exact sum's error term to 0 unless
    simd_tanh keeps it out of reach)."""
    for i in range(xs.shape[0]):
        out[i] = simd_tanh(xs[i])


def _tanh_sweep():
    """Random and edge inputs: both forms and the switch between them at 0.55, where the
    exponential's k changes, tiny and subnormal inputs, the saturation near 20."""
    rng = np.random.default_rng(41)
    ln2 = math.log(2.0)
    changes = np.arange(1, 60) * (ln2 / 4.0)  # 2a = (k + 1/2) ln 2
    near_changes = (changes[:, None] * (1.0 + np.array([-4, -1, 0, 1, 4]) * 2.0**-52)).ravel()
    tiny = np.exp(rng.uniform(-745.0, -1.0, 20_000))
    edges = [0.55, np.nextafter(0.55, 0.0), np.nextafter(0.55, 1.0), 20.0,
             np.nextafter(20.0, 0.0), np.nextafter(20.0, 30.0), 5e-324, 2.2250738585072014e-308,
             1e-300, 1e-8, 0.0]
    xs = np.concatenate([rng.uniform(0.0, 1.0, 200_000), rng.uniform(0.0, 25.0, 100_000),
                         rng.uniform(0.5, 0.6, 50_000), near_changes, tiny, np.array(edges)])
    return np.concatenate([xs, -xs])


@pytest.mark.parametrize("tanh_all", [_tanh_all, _tanh_all_reassociated, _tanh_all_fast])
def test_simd_tanh_is_within_one_ulp_of_tanh(tanh_all):
    xs = _tanh_sweep()
    out = np.empty_like(xs)
    tanh_all(xs, out)
    # the C library's tanh is itself up to about 2 ulp from tanh (glibc: 1.99 at x = 0.54226)
    want = np.array([math.tanh(x) for x in xs])
    assert _ulps(out, want).max() <= 3.0
    assert np.array_equal(np.signbit(out), np.signbit(xs))
    if np.finfo(np.longdouble).nmant < 63:
        pytest.skip("no extended long double for the reference")
    exact = np.tanh(xs.astype(np.longdouble))  # 64-bit significand: 2^-11 ulp of a double
    spacing = np.spacing(np.abs(exact.astype(np.float64))).astype(np.longdouble)
    assert (np.abs(out.astype(np.longdouble) - exact) / spacing).max() <= 1.0


def test_simd_tanh_is_within_one_ulp_of_tanh_in_decimals():
    from decimal import Decimal, localcontext

    rng = np.random.default_rng(42)
    xs = np.concatenate([rng.uniform(-1.0, 1.0, 1500), rng.uniform(0.53, 0.57, 1000),
                         rng.uniform(-22.0, 22.0, 500)])
    out = np.empty_like(xs)
    _tanh_all(xs, out)
    with localcontext() as decimals:
        decimals.prec = 60
        for x, y in zip(xs, out):
            e = (2 * Decimal(float(x))).exp()
            exact = (e - 1) / (e + 1)
            ulp = Decimal(float(np.spacing(abs(float(exact)))))
            assert abs(Decimal(float(y)) - exact) <= ulp, x


@pytest.mark.parametrize("tanh_all", [_tanh_all, _tanh_all_reassociated])
def test_simd_tanh_at_the_edges(tanh_all):
    xs = np.array([0.0, -0.0, 5e-324, -5e-324, 1e-300, 2.2250738585072014e-308, 19.9, 20.0,
                   20.1, 710.0, 1e308, -1e308, np.inf, -np.inf, np.nan, -np.nan])
    out = np.empty_like(xs)
    tanh_all(xs, out)
    for x, y in zip(xs, out):
        if math.isnan(x):
            assert math.isnan(y)
        else:
            assert y == math.tanh(x) and math.copysign(1.0, y) == math.copysign(1.0, x), x


def test_a_loop_of_simd_tanh_is_vectorized():
    xs = np.linspace(-1.0, 1.0, 8)
    _tanh_all(xs, np.empty_like(xs))
    llvm = _tanh_all.inspect_llvm(_tanh_all.signatures[0])
    # both forms on vectors: the division and the exact residual's fma
    assert re.search(r"fdiv <\d+ x double>", llvm) and re.search(r"llvm\.fma\.v\d+f64", llvm)


def test_simd_log_is_within_one_ulp_of_log_and_keeps_its_special_values():
    from srcad.runtime.numba_runtime import simd_log

    @numba.njit
    def log_all(xs, out):
        for i in range(xs.shape[0]):
            out[i] = simd_log(xs[i])

    rng = np.random.default_rng(1)
    xs = np.concatenate([
        rng.uniform(0.0, 10.0, 100_000), rng.uniform(0.5, 2.0, 100_000),  # near 1: cancels
        1.0 + rng.uniform(-1e-6, 1e-6, 10_000), np.exp(rng.uniform(-700.0, 709.0, 100_000)),
        rng.uniform(5e-324, 2.2e-308, 10_000),  # subnormals
        np.linspace(0.70, 0.72, 10_001), np.linspace(1.40, 1.43, 10_001),  # sqrt(2)/2, sqrt(2)
        np.array([5e-324, 1e-320, 2.2250738585072014e-308, 1.7976931348623157e308, 1.0, 2.0,
                  0.5, np.e])])
    out = np.empty_like(xs)
    log_all(xs, out)
    want = np.array([math.log(x) for x in xs])
    exact = want == 0.0  # log(1) = 0 exactly
    assert np.all(out[exact] == 0.0)
    assert _ulps(out[~exact], want[~exact]).max() <= 1.0
    special = np.array([0.0, -0.0, -1.0, -5e-324, -np.inf, np.inf, np.nan])
    got = np.empty_like(special)
    log_all(special, got)
    assert got[0] == -np.inf and got[1] == -np.inf and got[5] == np.inf
    assert np.isnan(got[2]) and np.isnan(got[3]) and np.isnan(got[4]) and np.isnan(got[6])
