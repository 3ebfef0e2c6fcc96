"""Type inference visits each operand of a chain of `+` once: a sum of many terms (a
left-leaning tree of BinOps, each the left operand of the next) once asked for each side's
type twice per level, 2**depth visits (a 16-term sum took a minute to differentiate)."""

import numpy as np

import srcad
from srcad.analysis import types


def sixteen_terms(x):
    return (np.exp(x) + np.log(x) + np.log1p(x) + np.expm1(x) + np.sqrt(x) + np.sin(x)
            + np.cos(x) + np.tan(x) + np.arcsin(x) + np.arccos(x) + np.arctan(x) + np.sinh(x)
            + np.cosh(x) + np.tanh(x) + np.abs(x) + np.fabs(x))


def test_a_long_sum_is_typed_in_linear_time(monkeypatch):
    calls = []
    of = types.Types.of

    def counted(self, e):
        calls.append(1)
        return of(self, e)
    monkeypatch.setattr(types.Types, "of", counted)
    x = 0.4
    d = srcad.grad(sixteen_terms)(x)
    expected = (np.exp(x) + 1 / x + 1 / (1 + x) + np.exp(x) + 0.5 / np.sqrt(x) + np.cos(x)
                - np.sin(x) + 1 / np.cos(x) ** 2 + 1 / np.sqrt(1 - x * x)
                - 1 / np.sqrt(1 - x * x) + 1 / (1 + x * x) + np.cosh(x) + np.sinh(x)
                + 1 / np.cosh(x) ** 2 + 1.0 + 1.0)
    assert abs(d - expected) < 1e-12
    assert len(calls) < 100_000  # 4 million with the doubled visits
