"""A helper kernel of the numba backend (here a nested gradient's) called by two generated
functions (the reverse and the forward code of the same f) is compiled by numba once per
process and argument types: it lives in a module of its own that both modules import
(srcad/build/compiler.py, srcad/build/module_names.py)."""

import collections

import numpy as np
import pytest

import srcad

pytest.importorskip("numba")
from numba.core import event as numba_event  # noqa: E402


def energy(v, p):
    s = 0.0
    for i in range(v.shape[0]):
        s += np.sin(v[i] * p) * v[i]
    return s


def outer(x):
    g = srcad.grad(energy)(x, 1.5)
    return np.sum(g * g) + x[0]


class _Compilations(numba_event.Listener):
    def __init__(self):
        self.seen = collections.Counter()

    def on_start(self, event):
        name = event.data["dispatcher"].py_func.__name__
        if name.startswith("srcad_"):
            self.seen[name, str(event.data["args"])] += 1

    def on_end(self, event):
        pass


def _central(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


@pytest.mark.slow  # compiles numba code: make test-all
def test_a_nested_gradient_kernel_is_compiled_once_for_two_generated_functions(tmp_path,
                                                                               monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path))  # nothing read back from disk
    x = np.array([0.3, -0.8, 1.1])
    compiled = _Compilations()
    with numba_event.install_listener("numba:compile", compiled):
        reverse = srcad.grad(outer, backend="numba")(x)
        forward = srcad.jacfwd(outer, backend="numba")(x)
    assert compiled.seen, "no helper kernel compiled"
    assert max(compiled.seen.values()) == 1, compiled.seen
    np.testing.assert_allclose(reverse, _central(outer, x), rtol=1e-6)
    np.testing.assert_allclose(forward, reverse, rtol=1e-12)
