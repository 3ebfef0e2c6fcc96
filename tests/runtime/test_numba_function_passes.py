"""srcad/runtime/numba_function_passes.py: while numba compiles srcad's generated code, LLVM's
function pipeline is not run on each function before it is linked (the module pipeline runs
it there); the derivatives are the python backend's to rounding, numba's own compilations
keep numba's passes, and a second build reads the kernel from numba's disk cache."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")

import srcad  # noqa: E402
from srcad.build import cache, compiler  # noqa: E402
from srcad.runtime.numba_function_passes import function_passes_at_link  # noqa: E402


def _weighted_ratio(x, w):
    # divisions (which `arcp` lets LLVM turn into products) in a loop, an array temporary
    total = 0.0
    for i in range(x.shape[0]):
        total = total + w[i] * x[i] / (1.0 + x[i] * x[i])
    return total + np.sum(np.exp(x) / (2.0 + w))


def _counting_function_pipelines(monkeypatch):
    from numba.core import codegen

    built = []
    original = codegen.JITCPUCodegen._function_pass_manager

    def counted(self, **kwargs):
        built.append(1)
        return original(self, **kwargs)

    monkeypatch.setattr(codegen.JITCPUCodegen, "_function_pass_manager", counted)
    return built


def test_generated_code_is_compiled_without_the_function_pipeline_before_linking(
        monkeypatch, tmp_path):
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path))
    built = _counting_function_pipelines(monkeypatch)
    x, w = np.linspace(-1.0, 2.0, 7), np.linspace(0.5, 1.5, 7)
    expected = srcad.grad(_weighted_ratio, (0, 1))(x, w)  # NumPy's, checked in tests/transform
    got = srcad.grad(_weighted_ratio, (0, 1), backend="numba")(x, w)
    assert built == []  # the kernel, its wrappers and what numba compiled for it
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
    built = _counting_function_pipelines(monkeypatch)

    @numba.njit
    def halved(x):
        return x / 2.0 + 1.0

    assert halved(3.0) == 2.5
    assert built  # outside srcad's compilations: numba's passes as numba runs them
    with function_passes_at_link():
        pass  # entered and left: numba's passes again
    built.clear()

    @numba.njit
    def doubled(x):
        return x * 2.0

    assert doubled(3.0) == 6.0 and built
