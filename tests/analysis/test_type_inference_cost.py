"""Type inference visits each operand of a chain of `+` once: a sum of many terms (a
left-leaning tree of BinOps, each the left operand of the next) once asked for each side's
type twice per level, 2**depth visits (a 16-term sum took a minute to differentiate)."""

import numpy as np
from helpers.user_modules import load_module
from helpers.walk_counts import counting_walks

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


def _indexed_by_a_float_typed_name(reads, folder):
    """f(x) reading `x[c]` `reads` times, `c` bound to ints (a loop) and to a float."""
    body = "".join("        s = s + x[c] * 2.0\n" for _ in range(reads))
    return load_module(folder, f"float_typed_index_{reads}", "import math\n\n\ndef f(x):\n"
                       "    s = 0.0\n    for c in range(2):\n" + body
                       + "    c = math.cos(x[0])\n    return s + c\n").f


def _walked_nodes(reads, folder, monkeypatch):
    f = _indexed_by_a_float_typed_name(reads, folder)
    x = np.array([0.3, -0.2])
    count = counting_walks(monkeypatch)
    gradient = srcad.grad(f)(x)
    np.testing.assert_allclose(gradient, [2.0 * reads - np.sin(0.3), 2.0 * reads])
    return count[0]


def test_an_index_typed_a_float_is_checked_without_a_walk_of_the_function(tmp_path,
                                                                         monkeypatch):
    # each such index looked for a call without a rule it came from (a walk of the whole
    # function), also in a function that has no such call: quadratic in long code
    assert _walked_nodes(60, tmp_path, monkeypatch) \
        < 2.5 * _walked_nodes(30, tmp_path, monkeypatch)
