"""A function returning a global array unchanged has a zero Jacobian in every mode (forward
mode stopped on an AttributeError: the returned name was looked up among the locals only)."""

import numpy as np

import srcad

C = np.array([[0.3, -1.2], [0.5, 0.8], [1.1, -0.4]])


def no_relation(x):
    return C


def test_jacobians_of_a_returned_global_are_zero():
    x = np.ones((3, 2))
    for transform in (srcad.jacfwd, srcad.jacrev):
        np.testing.assert_array_equal(transform(no_relation)(x), np.zeros((3, 2, 3, 2)))
