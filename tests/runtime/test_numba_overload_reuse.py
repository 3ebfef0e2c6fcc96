"""srcad/runtime/numba_overload_reuse.py: an overload's implementation (numba's `np.zeros`
here) is compiled once for a nogil kernel calling it and an overload the kernel calls, where
numba compiled it once for each (their options differ only in what shapes their own entry
points)."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

from numba.core import event  # noqa: E402
from numba.extending import overload  # noqa: E402

import srcad.runtime.numba_runtime  # noqa: E402, F401 - installs reuse_overloads
from srcad.runtime.numba_overload_reuse import reuse_overloads  # noqa: E402


def _zeros_inside(shape):
    return np.zeros(shape)


@overload(_zeros_inside)
def _zeros_inside_overload(shape):
    return lambda shape: np.zeros(shape)


class _Compiled(event.Listener):
    def __init__(self):
        self.names = []

    def on_start(self, ev):
        dispatcher = ev.data["dispatcher"]
        self.names.append((dispatcher.py_func.__qualname__, str(ev.data["args"])))

    def on_end(self, ev):
        pass


def test_np_zeros_compiles_once_for_a_nogil_kernel_and_the_overload_it_calls():
    assert reuse_overloads()  # installed when the runtime loaded; installing again is a no-op

    @numba.njit(nogil=True)
    def kernel(shape):  # a rank no other test makes zeros of
        return np.zeros(shape).sum() + _zeros_inside(shape).sum()

    compiled = _Compiled()
    with event.install_listener("numba:compile", compiled):
        assert kernel((1, 2, 1, 1, 2, 1, 1)) == 0.0
    zeros = [args for name, args in compiled.names if "ol_np_zeros" in name]
    assert len(zeros) == 1, compiled.names
