"""The numba backend's primal of a function of constants, its generated source, and the bits of
a number: what the tests of the numba loop rewrites compare with CPython."""

import numpy as np

import srcad


def numba_primal(f, *args):
    """f(*args) as srcad's numba code computes it (forward mode, every argument constant)."""
    return srcad.autodiff(srcad.ForwardWithPrimal, f, *map(srcad.Const, args),
                          backend="numba")[-1]


def numba_source(f, *args):
    """The source of that code (`srcad.source`)."""
    return srcad.source(f, srcad.ForwardWithPrimal, *map(srcad.Const, args), backend="numba")


def bits(v) -> bytes:
    """The bytes of `v` as a float64: NaN, zeros of both signs told apart."""
    return np.float64(v).tobytes()
