"""srcad fuzz failure (records grammar, python backend, every mode): seed 90005, crashed
("NameError: name 'warnings' is not defined").

f is a bound method whose body runs in `with warnings.catch_warnings():`. srcad calls a bound
method from a plain function of its own and inlines the method; the context manager's
expression was then evaluated in that function's namespace, which has no `warnings`. Fixed: an
inlined function's context managers are made in its own namespace
(srcad/transform/normalize/contexts.py, `helper_contexts`).

Reproduce: check_grads(f, *args()) from srcad.testing.
"""
# ruff: noqa
import warnings

import numpy as np

from srcad import Active, Duplicated


class Model:
    def __init__(self, scale):
        self.scale = scale

    def f(self, x, a):
        s = a * self.scale
        with warnings.catch_warnings():
            s = s * 0.66 + np.sum(np.log(x * x + 1.0)) * a
        return s


MODEL = Model(-0.243)
f = MODEL.f


def args():
    return (Duplicated(np.array([0.793, 0.556]), np.zeros(2)), Active(-0.363))
