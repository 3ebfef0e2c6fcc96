"""np.squeeze / x.squeeze with an axis or a tuple of axes, in every mode against central finite
differences; without an axis refused, saying why (srcad's code serves every shape of a rank)
and naming the fix."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

X = np.random.default_rng(0).normal(size=(1, 3, 1, 2))


def tuple_of_axes(x):
    return np.sum(np.squeeze(x, axis=(0, 2)) * np.arange(6.0).reshape(3, 2))


def method_by_position(x):
    return np.sum(x.squeeze(2) ** 2)


def negative_axis(x):
    return np.sum(x.squeeze(axis=-2) ** 3)


@pytest.mark.parametrize("f", [tuple_of_axes, method_by_position, negative_axis])
def test_squeeze_of_named_axes_agrees_in_every_mode(f):
    check_grads(f, srcad.Duplicated(X.copy(), np.zeros_like(X)))


def every_unit_axis(x):
    return np.sum(x.squeeze())


def test_squeeze_without_an_axis_is_refused_naming_the_axes_fix():
    with pytest.raises(srcad.SrcadError, match=r"ranks, not sizes.*axis=0"):
        srcad.gradient(every_unit_axis, X)
