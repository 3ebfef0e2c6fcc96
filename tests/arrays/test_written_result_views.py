"""An array bound to a whole-array expression and then written through a view of it, or a
view of a view (`a = x * 1.0; v = a[1:]; t = v[1:]; t[0] = c`), is a copy of the
expression's value written as NumPy writes it, in every mode (it was refused as "also bound
to whole-array expressions")."""

import numpy as np
import pytest

from srcad import Duplicated
from srcad.testing import check_grads

RNG = np.random.default_rng(3131)
MODES = ("rev", "fwd", "vec")


def view_of_view(x):
    a = x * 1.0
    v = a[1:]
    t = v[1:]
    t[0] = x[0] ** 2
    return np.sum(a * a)


def row_of_expression(x):
    a = np.outer(np.sin(x), x)
    row = a[1]
    row[0] = x[2] * 3.0
    row[1:] *= 0.5
    return np.sum(a * a)


def dup(a):
    return Duplicated(a, np.zeros_like(a))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f", [view_of_view, row_of_expression])
def test_writes_through_views_of_an_expression_match_central_differences(f, mode):
    check_grads(f, dup(RNG.standard_normal(4)), modes=(mode,))


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f", [view_of_view, row_of_expression])
def test_writes_through_views_of_an_expression_on_numba(f, mode):
    check_grads(f, dup(RNG.standard_normal(4)), modes=(mode,), backend="numba")
