"""The points-to analysis of srcad/analysis/array_sharing.py rebuilds the configurations of
a state only where a statement changes them: a statement binding a float (most of a
function) keeps the state as it is, so the work grows with the array bindings, not with
every statement times the configurations."""

import numpy as np
from helpers.differences import central
from helpers.user_modules import load_module

import srcad
from srcad.analysis import array_sharing


def _double_buffered(floats, folder):
    """`u = v` at the end of each iteration (a second name srcad follows), and `floats`
    float statements in the loop."""
    lines = "".join(f"        s = s * 0.9 + v[{k % 3}] * {k + 1}.0\n" for k in range(floats))
    return load_module(folder, f"double_buffered_{floats}",
                       "import numpy as np\n\n\ndef f(x):\n    u = x * 1.0\n    s = 0.0\n"
                       "    for k in range(3):\n        v = u * 0.5 + x\n" + lines
                       + "        u = v\n    return s + np.sum(u)\n").f


def _rebuilt_states(floats, folder, monkeypatch):
    f = _double_buffered(floats, folder)
    rebuilt, original = [0], array_sharing._mapped

    def counted(*args):
        rebuilt[0] += 1
        return original(*args)
    monkeypatch.setattr(array_sharing, "_mapped", counted)
    x = np.array([0.3, 0.2, 0.5])
    np.testing.assert_allclose(srcad.grad(f)(x), central(f, x), rtol=1e-7, atol=1e-9)
    monkeypatch.setattr(array_sharing, "_mapped", original)
    return rebuilt[0]


def test_float_statements_rebuild_no_configuration(tmp_path, monkeypatch):
    assert _rebuilt_states(24, tmp_path, monkeypatch) == _rebuilt_states(3, tmp_path,
                                                                          monkeypatch)

