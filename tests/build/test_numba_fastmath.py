"""Reassociated sums on the numba backend (srcad/build/numba_fastmath.py):
`SRCAD_NUMBA_REASSOCIATE=1` compiles srcad's generated code with LLVM's `reassoc` licence
beside `arcp` (and only then), in modules of their own; the derivatives stay within the last
bits of the in-order ones and agree with central differences."""

import math

import numpy as np
import pytest

import srcad
from srcad.build import cache, compiler
from srcad.build.numba_fastmath import FASTMATH, REASSOCIATED, fastmath_flags
from srcad.errors import SrcadError

pytest.importorskip("numba")


def log_weighted_sum(x, w):
    s = 0.0
    for i in range(len(x)):
        s += w[i] * math.exp(0.3 * x[i])
    return math.log(s) + x[0] * x[-1]


def central(f, x, w, eps=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = (f(up, w) - f(down, w)) / (2 * eps)
    return out


def test_the_licences_come_from_srcad_numba_reassociate():
    assert fastmath_flags({}) == FASTMATH == frozenset({"arcp"})
    assert fastmath_flags({"SRCAD_NUMBA_REASSOCIATE": "0"}) == FASTMATH
    assert fastmath_flags({"SRCAD_NUMBA_REASSOCIATE": " 1 "}) == REASSOCIATED
    assert REASSOCIATED == {"arcp", "reassoc"}  # never nnan, ninf, nsz or contract
    for wrong in ("yes", "2", "true", "fast"):
        with pytest.raises(SrcadError, match="SRCAD_NUMBA_REASSOCIATE"):
            fastmath_flags({"SRCAD_NUMBA_REASSOCIATE": wrong})


def _gradient_and_kernel(x, w, setting, monkeypatch):
    """The numba reverse gradient with SRCAD_NUMBA_REASSOCIATE=`setting`, and the LLVM IR of
    the kernel compiled for it."""
    monkeypatch.setenv("SRCAD_NUMBA_REASSOCIATE", setting)
    before = set(compiler._kernels)
    dx = np.zeros_like(x)
    (_, _), value = srcad.autodiff(srcad.ReverseWithPrimal, log_weighted_sum,
                                   srcad.Duplicated(x, dx), w, backend="numba")
    (kernel,) = [compiler._kernels[p] for p in set(compiler._kernels) - before]
    llvm = "\n".join(kernel.inspect_llvm().values())
    return value, dx, llvm


def test_reassociation_reaches_llvm_and_keeps_the_derivatives(tmp_path, monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(compiler, "_kernels", {})
    rng = np.random.default_rng(7)
    x, w = rng.uniform(-1.0, 1.0, 1000), rng.uniform(0.5, 1.5, 1000)
    cache.clear()
    # the same call after the setting changed compiles for the new one (no cache.clear()
    # between: the in-memory cache and the fast path of repeated calls key on the licences)
    value0, in_order, llvm0 = _gradient_and_kernel(x, w, "0", monkeypatch)
    value1, reassociated, llvm1 = _gradient_and_kernel(x, w, "1", monkeypatch)
    cache.clear()
    # the licence is on the additions of the reassociated kernel only
    assert "fadd reassoc arcp" in llvm1 and "fadd arcp" in llvm1.replace("reassoc ", "")
    assert "reassoc" not in llvm0 and "fadd arcp" in llvm0
    for flag in ("nnan", "ninf", "nsz", "contract", "fast"):
        assert f" {flag} " not in llvm1
    # one module per setting: code of one is never loaded for the other
    assert len(sorted(tmp_path.glob("srcad_*log_weighted_sum*.py"))) == 2
    # the last bits may differ, nothing more; both are the derivative
    np.testing.assert_allclose(value1, value0, rtol=1e-13)
    np.testing.assert_allclose(reassociated, in_order, rtol=1e-12, atol=1e-16)
    expected = central(log_weighted_sum, x, w)
    np.testing.assert_allclose(reassociated, expected, rtol=1e-6, atol=1e-9)
    assert value0 == pytest.approx(log_weighted_sum(x, w), rel=1e-13)


def test_reassociated_forward_mode_agrees_with_central_differences(monkeypatch):
    monkeypatch.setenv("SRCAD_NUMBA_REASSOCIATE", "1")
    cache.clear()
    rng = np.random.default_rng(3)
    x, w = rng.uniform(-1.0, 1.0, 40), rng.uniform(0.5, 1.5, 40)
    direction = rng.uniform(-1.0, 1.0, 40)
    tangent = srcad.autodiff(srcad.Forward, log_weighted_sum,
                             srcad.Duplicated(x, direction), w, backend="numba")
    cache.clear()
    assert tangent == pytest.approx(float(central(log_weighted_sum, x, w) @ direction),
                                    rel=1e-6)


def _log_sum_exp(x):
    a = x[0]
    for i in range(1, len(x)):
        a = max(a, x[i])
    s = 0.0
    for i in range(len(x)):
        s += math.exp(x[i] - a)
    return math.log(s) + a


def test_source_follows_a_setting_changed_in_the_same_process(monkeypatch):
    # srcad.source builds the code of the setting in force, not the one built before it
    x = np.linspace(-2.0, 3.0, 50)

    def code():
        return srcad.source(_log_sum_exp, srcad.Reverse, srcad.Duplicated(x, np.zeros(50)),
                            backend="numba")

    monkeypatch.setenv("SRCAD_NUMBA_REASSOCIATE", "0")
    in_order = code()
    monkeypatch.setenv("SRCAD_NUMBA_REASSOCIATE", "1")
    reassociated = code()
    monkeypatch.setenv("SRCAD_NUMBA_REASSOCIATE", "0")
    assert "the sums reassociated" in reassociated
    assert "reassociated" not in in_order and code() == in_order
