"""The LLVM level numba compiles srcad's generated code at (srcad/build/numba_level.py):
`SRCAD_NUMBA_OPT` (2 by default) reaches numba's pass builder for srcad's compilations only,
each level has modules of its own, and a later load of a level's module reads numba's disk
cache instead of compiling."""

import math

import numpy as np
import pytest

import srcad
from srcad.build import cache, compiler
from srcad.build.numba_level import DEFAULT, numba_level
from srcad.errors import SrcadError


def damped_wave(x):
    return math.sin(x) * math.exp(-0.5 * x) + x * x


def _gradient(x):
    (gradient,) = srcad.autodiff(srcad.Reverse, damped_wave, srcad.Active(x), backend="numba")
    return gradient


def test_the_level_comes_from_srcad_numba_opt():
    assert numba_level({}) == DEFAULT == 2
    assert numba_level({"SRCAD_NUMBA_OPT": " 3 "}) == 3
    assert numba_level({"SRCAD_NUMBA_OPT": ""}) == DEFAULT
    for wrong in ("0", "4", "max", "fast"):
        with pytest.raises(SrcadError, match="SRCAD_NUMBA_OPT"):
            numba_level({"SRCAD_NUMBA_OPT": wrong})


def test_each_level_reaches_numba_and_its_cache(tmp_path, monkeypatch):
    numba = pytest.importorskip("numba")
    from numba.core import codegen, config

    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(compiler, "_kernels", {})
    levels_seen = []
    builder = codegen.create_pass_builder

    def spying(tm, opt=2, **options):
        levels_seen.append(int(opt))
        return builder(tm, opt=opt, **options)

    monkeypatch.setattr(codegen, "create_pass_builder", spying)
    x, h = 0.7, 1e-6
    expected = (damped_wave(x + h) - damped_wave(x - h)) / (2 * h)
    numba_before = config.OPT
    gradients = {}
    for level in (1, 3):
        monkeypatch.setenv("SRCAD_NUMBA_OPT", str(level))
        cache.clear()
        levels_seen.clear()
        gradients[level] = _gradient(x)
        # numba's inlining pass runs at 0 before the module's passes at the level
        assert max(levels_seen) == level and set(levels_seen) <= {0, level}
        assert config.OPT == numba_before  # numba's own level is put back
        np.testing.assert_allclose(gradients[level], expected, rtol=1e-6)
    np.testing.assert_allclose(gradients[1], gradients[3], rtol=1e-13)
    modules = sorted(tmp_path.glob("srcad_*damped_wave*.py"))
    assert len(modules) == 2, modules  # one module per level: never loaded for another
    # srcad's runtime helpers, shared by every level's modules, compile at their caller's
    from srcad.runtime import numba_runtime

    shared = [v for v in vars(numba_runtime).values()
              if isinstance(v, numba.core.registry.CPUDispatcher)]
    assert shared and not any(hasattr(d.compile, "srcad_level") for d in shared)

    # what a later process does: a new dispatcher of the level's module, read from the cache
    monkeypatch.setattr(compiler, "_kernels", {})
    cache.clear()
    levels_seen.clear()
    assert _gradient(x) == gradients[3]
    (kernel,) = [k for path, k in compiler._kernels.items() if "damped_wave" in path.name]
    assert isinstance(kernel, numba.core.registry.CPUDispatcher)
    assert sum(kernel.stats.cache_hits.values()) == 1 and not kernel.stats.cache_misses
    assert levels_seen == []  # nothing compiled
