"""srcad's generated numba functions compile once for every constant value of an argument
(srcad/build/numba_literals.py): numba types a call with a constant argument for the
constant's value, and srcad compiles the plain signature instead, unless the body needs the
value."""

import pytest

from srcad.build.numba_level import at_level
from srcad.build.numba_literals import plain_signature

numba = pytest.importorskip("numba")


def test_calls_with_different_constants_share_one_compilation():
    @numba.njit
    def grown(x, count):
        return x * count

    at_level(grown, 2)

    @numba.njit
    def caller(x):
        return grown(x, 0) + grown(x, 1) + grown(x, 2) + grown(x, 2.5)

    assert caller(2.0) == 2.0 * (0 + 1 + 2 + 2.5)
    assert [str(s) for s in grown.signatures] == ["(float64, int64)", "(float64, float64)"]


def test_a_body_that_needs_the_constant_is_compiled_for_it():
    @numba.njit
    def pick(pair, i):
        return pair[i]  # a tuple of mixed types: the index must be known

    at_level(pick, 2)

    @numba.njit
    def caller(x):
        return pick((1, x), 1) + pick((1, x), 0)

    assert caller(2.5) == 3.5
    assert all("Literal[int]" in str(s[1]) for s in pick.signatures)


def test_plain_signature_drops_the_values_only():
    from numba.core import types

    sig = (types.literal(3), types.literal(True), types.float64, types.unicode_type)
    assert plain_signature(sig) == (types.int64, types.boolean, types.float64,
                                    types.unicode_type)


def test_a_body_asking_for_the_constant_with_literally_gets_it():
    @numba.njit
    def shifted(x, n):
        return x + numba.literally(n)

    at_level(shifted, 2)

    @numba.njit
    def caller(x):
        return shifted(x, 1) + shifted(x, 2)

    assert caller(0.5) == 4.0
    assert all("Literal[int]" in str(s[1]) for s in shifted.signatures)
