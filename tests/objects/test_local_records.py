"""A dataclass or NamedTuple built inside the differentiated function and read by its fields:
one variable per field, in every mode, against central differences; other uses refused by
line."""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pytest
from helpers.differences import central

import srcad
from srcad.errors import SrcadError


@dataclass
class State:
    h: float
    c: np.ndarray
    k: float = 0.5


@dataclass(frozen=True)
class Frozen:
    v: float


class Pair(NamedTuple):
    a: float
    b: float = 2.0


def recurrence(x):
    s = State(np.sin(x[0]), c=x * 2)
    p = Pair(x[1])
    for i in range(3):
        s.h = s.h * s.k + p.a * p.b * x[i]
        s = State(s.h + 1.0, s.c * s.h)  # reads the old fields, as Python does
    return s.h * np.sum(s.c)


X = np.array([0.5, 1.0, 2.0])


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_local_records_match_central_differences(mode):
    np.testing.assert_allclose(srcad.gradient(recurrence, X, mode=mode),
                               central(recurrence, X), rtol=1e-6)


def test_local_records_in_vector_mode():
    lanes = srcad.pushforward(recurrence, X, tangent=(np.eye(3)[0], np.eye(3)[2]))
    expected = central(recurrence, X)
    np.testing.assert_allclose(lanes, expected[[0, 2]], rtol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_local_records_on_numba(mode):
    np.testing.assert_allclose(srcad.gradient(recurrence, X, mode=mode, backend="numba"),
                               central(recurrence, X), rtol=1e-6)


def passes_the_record_on(x):
    s = State(x[0], x)
    return np.sum(helper(s))


def helper(s):
    return s.c


def assigns_a_frozen_field(x):
    f = Frozen(x[0])
    f.v = 2.0
    return f.v


def reads_a_missing_field(x):
    p = Pair(x[0])
    return p.c


@pytest.mark.parametrize("f, line, words", [
    (passes_the_record_on, 2, "used whole"),
    (assigns_a_frozen_field, 2, "immutable"),
    (reads_a_missing_field, 2, "no field `c`"),
])
def test_other_uses_are_refused_by_line(f, line, words):
    with pytest.raises(SrcadError, match=words) as info:
        srcad.grad(f)(X)
    assert info.value.line == f.__code__.co_firstlineno + line
