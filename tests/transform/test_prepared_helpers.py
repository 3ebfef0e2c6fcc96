"""A module-level helper called at several places of one function is prepared for inlining
(lowered, checked, desugared) once per build, each call still inlined with names of its own
(srcad/transform/normalize/prepared_helpers.py). Expected values derived by hand."""

import numpy as np

import srcad
from srcad.transform.normalize import inline


def scaled_squares(x, k):
    s = 0.0
    for i in range(len(x)):
        s += (x[i] * k) ** 2
    return s


def three_calls(x):
    return scaled_squares(x, 1.0) + scaled_squares(x, 2.0) * scaled_squares(x, k=3.0)


def test_a_helper_called_three_times_is_lowered_once(monkeypatch):
    lowered = []
    original = inline.lower

    def counted(parsed, body, namer):
        lowered.append(parsed.name)
        return original(parsed, body, namer)
    monkeypatch.setattr(inline, "lower", counted)
    x = np.array([0.3, -1.2, 0.7])
    gradient = srcad.grad(three_calls)(x)
    q = float(np.sum(x * x))  # f = q + (4 q) (9 q)
    np.testing.assert_allclose(gradient, (1.0 + 72.0 * q) * 2.0 * x, rtol=1e-13)
    assert lowered.count("scaled_squares") == 1
    source = srcad.source(three_calls, srcad.Reverse, srcad.Duplicated(x, np.zeros(3)))
    assert len({w for w in source.replace("(", " ").split()
                if w.startswith("scaled_squares_result")}) >= 3
