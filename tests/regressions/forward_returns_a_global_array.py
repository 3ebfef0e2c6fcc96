"""A function returning a global array unchanged (no relation to its argument, as autograd's
test_no_relation writes it): forward and vector mode stopped with AttributeError ("'NoneType'
object has no attribute 'ndim'", srcad/transform/forward/returns.py looked the returned name
up among the function's locals only); its derivative is zero in every mode.

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import numpy as np
from srcad import Duplicated

C = np.array([[0.3, -1.2], [0.5, 0.8], [1.1, -0.4]])


def f(x):
    return C


def args():
    return (Duplicated(np.ones((3, 2)), np.zeros((3, 2))),)
