"""A function with problems in several stages gets one SrcadError listing each, with its
file, line and construct: a refused value read by the return does not hide the problems of
the return's other terms (the return keeps its clean terms for the later checks)."""

import math

import numpy as np
import pytest

import srcad


def type_container_and_array_problems(x, p):
    total = 0.0
    for key in p:  # the container stage: a dict argument iterated over
        total = total + p[key]
    e = math.exp(x)  # the type inference: a function of numbers given an array
    w = x.copy()
    w.resize(4)  # the array checks: a call for its effect on a value with a derivative
    return np.sum(x * x) + total + e + np.sum(w)


def test_three_problems_of_three_stages_are_reported_together():
    first = type_container_and_array_problems.__code__.co_firstlineno
    with pytest.raises(srcad.SrcadError) as refused:
        srcad.grad(type_container_and_array_problems)(np.ones(2), {"w": 1.0})
    problems = refused.value.problems
    assert [(p.line - first, p.construct) for p in problems] == [
        (2, "container"), (4, "call"), (6, "call")]
    assert all(p.filename == __file__ for p in problems)
    assert "exp" in problems[1].message and "resize" in problems[2].message


def two_container_problems(p, x):
    q = p["w"] * x
    for key in p:  # a dict argument iterated over: q is set aside
        q = q + p[key]
    return np.sum(q) + p["missing"]  # a key the dict has not: reported too


def test_a_set_aside_value_in_a_sum_returned_does_not_hide_the_other_terms_problems():
    first = two_container_problems.__code__.co_firstlineno
    with pytest.raises(srcad.SrcadError) as refused:
        srcad.grad(two_container_problems)({"w": np.ones(2), "b": 1.0}, np.ones(2))
    assert [(p.line - first, p.construct) for p in refused.value.problems] == [
        (2, "container"), (4, "container")]
