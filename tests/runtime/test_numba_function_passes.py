"""srcad/runtime/numba_function_passes.py: while numba compiles srcad's generated code, what
the kernel calls is not put through LLVM's function pipeline before it is linked (the module
pipeline runs it there), the kernel itself is; the derivatives are the python backend's to
rounding, numba's own compilations keep numba's passes, and a second build reads the kernel
from numba's disk cache."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

import srcad  # noqa: E402
from srcad.build import cache, compiler  # noqa: E402
from srcad.runtime.numba_function_passes import function_passes_at_link  # noqa: E402


def _weighted_ratio(x, w):
    # divisions (which `arcp` lets LLVM turn into products) in a loop, array temporaries
    total = 0.0
    for i in range(x.shape[0]):
        total = total + w[i] * x[i] / (1.0 + x[i] * x[i])
    return total + np.sum(np.exp(x) / (2.0 + w))


def _recording_function_pipelines(monkeypatch):
    """[(library name, whether numba's function pipeline ran on its added module), ...]"""
    from numba.core import codegen

    with function_passes_at_link("none"):
        pass  # installed (the first srcad compile of the process installs it too)
    built, seen = [], []
    pipeline, optimize = (codegen.JITCPUCodegen._function_pass_manager,
                          codegen.CPUCodeLibrary._optimize_functions)

    def counted(self, **kwargs):
        built.append(1)
        return pipeline(self, **kwargs)

    def recorded(self, ll_module):
        before = len(built)
        optimize(self, ll_module)
        seen.append((self.name, len(built) > before))

    monkeypatch.setattr(codegen.JITCPUCodegen, "_function_pass_manager", counted)
    monkeypatch.setattr(codegen.CPUCodeLibrary, "_optimize_functions", recorded)
    return seen


def test_what_a_kernel_calls_skips_the_function_pipeline_before_linking(monkeypatch, tmp_path):
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path))
    seen = _recording_function_pipelines(monkeypatch)
    x, w = np.linspace(-1.0, 2.0, 7), np.linspace(0.5, 1.5, 7)
    expected = srcad.grad(_weighted_ratio, (0, 1))(x, w)  # NumPy's (tests/transform check it)
    got = srcad.grad(_weighted_ratio, (0, 1), backend="numba")(x, w)
    kernel = [full for name, full in seen if name.startswith("_weighted_ratio")]
    helpers = [full for name, full in seen if not name.startswith("_weighted_ratio")]
    assert kernel and all(kernel)  # the generated kernel: numba's whole function pipeline
    assert helpers and not any(helpers)  # numba's np.exp, np.sum, ... compiled for it
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=0)

    # what a later process does: the kernel's machine code read from numba's disk cache
    monkeypatch.setattr(compiler, "_kernels", {})
    cache.clear()
    again = srcad.grad(_weighted_ratio, (0, 1), backend="numba")(x, w)
    for a, b in zip(again, got):
        np.testing.assert_array_equal(a, b)
    kernels = [k for path, k in compiler._kernels.items() if "_weighted_ratio" in path.name]
    assert kernels and sum(sum(k.stats.cache_hits.values()) for k in kernels) >= 1
    assert not any(k.stats.cache_misses for k in kernels)


def test_numba_s_own_compilations_keep_its_function_pipeline(monkeypatch):
    seen = _recording_function_pipelines(monkeypatch)

    @numba.njit
    def halved(x):
        return np.zeros(2) + x / 2.0

    assert halved(3.0).tolist() == [1.5, 1.5]
    assert seen and all(full for _, full in seen)  # outside srcad's compilations
