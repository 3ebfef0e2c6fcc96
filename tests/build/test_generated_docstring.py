"""The docstring of generated reverse code says what the forward sweep records: the names
and the array elements it tapes (as the source spells them), or nothing."""

import math

import numpy as np

import srcad


def overwritten_elements(x):
    a = x.copy()
    for i in range(1, len(a)):
        a[i] = math.sin(a[i - 1]) * a[i]  # both read by the adjoint, a[i] overwritten here
    return np.sum(a)


def nothing_overwritten(x):
    total = 0.0
    for i in range(len(x)):
        total += math.sin(x[i])  # x is never written: read again in the reverse sweep
    return total


def _taped(f):
    x = np.array([0.3, -0.5, 1.2])
    source = srcad.source(f, srcad.Reverse, srcad.Duplicated(x, np.zeros(3)))
    line = next(line for line in source.splitlines() if "Taped:" in line)
    return line.split("Taped:")[1].strip()


def test_taped_elements_are_listed():
    taped = _taped(overwritten_elements)
    assert set(taped.split(", ")) == {"a[i - 1]", "a[i]"}, taped


def test_a_function_that_tapes_nothing_says_so():
    assert _taped(nothing_overwritten) == "nothing"
