"""A numba module cached by another layout of srcad's packages is never read.

Generated numba modules import srcad's runtime by its path (`srcad.runtime.numba_runtime`), so
a module written before the runtime moved names a path that no longer exists, or one that means
something else. The layout number (`srcad.runtime.LAYOUT`) is in every module's name and
digest: a cache folder holding modules of another layout is passed over, not misread.
"""

import math

import pytest

import srcad
from srcad.build import cache, compiler

pytest.importorskip("numba")


def damped(x):
    return math.sin(x) * x + x * x


def _modules(folder):
    return sorted(p.name for p in folder.glob("srcad_*.py"))


def test_a_module_of_an_older_layout_is_ignored(tmp_path, monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path))
    expected = math.cos(1.5) * 1.5 + math.sin(1.5) + 2 * 1.5

    monkeypatch.setattr(compiler, "LAYOUT", 1)
    cache.clear()
    (old_gradient,) = srcad.autodiff(srcad.Reverse, damped, srcad.Active(1.5), backend="numba")
    assert old_gradient == pytest.approx(expected)
    (old,) = _modules(tmp_path)
    assert old.startswith("srcad_l1_damped_")
    # what an older srcad left in the folder: a module that must never be loaded again
    (tmp_path / old).write_text("raise ImportError('a module of an older layout was read')\n")

    monkeypatch.setattr(compiler, "LAYOUT", 2)
    cache.clear()
    (gradient,) = srcad.autodiff(srcad.Reverse, damped, srcad.Active(1.5), backend="numba")
    assert gradient == pytest.approx(expected)
    new = [m for m in _modules(tmp_path) if m != old]
    assert len(new) == 1 and new[0].startswith("srcad_l2_damped_"), _modules(tmp_path)
    assert new[0].rsplit("_", 1)[1] != old.rsplit("_", 1)[1]  # the digest differs too


def test_the_layout_is_the_runtime_packages():
    from srcad import runtime
    from srcad.runtime import numba_runtime  # noqa: F401 (generated code imports it by this path)

    assert compiler.LAYOUT == runtime.LAYOUT == 2
    assert compiler.module_file("f", "abc") == "srcad_l2_f_abc.py"
