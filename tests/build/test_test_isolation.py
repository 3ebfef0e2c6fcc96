"""The test run leaves the user's machine alone: srcad's and numba's caches live in the
temporary folder tests/conftest.py makes for this run, never in ~/.cache or the source tree."""

import os
import tempfile
from pathlib import Path

import pytest

import srcad
from srcad.build.cache_folder import cache_dir

TEMP = Path(tempfile.gettempdir()).resolve()


def _inside(path, folder) -> bool:
    return Path(path).resolve().is_relative_to(Path(folder).resolve())


def test_srcad_cache_is_a_temporary_folder_of_this_run():
    assert _inside(cache_dir(), TEMP), cache_dir()
    assert not _inside(cache_dir(), Path.home() / ".cache")


def test_numba_cache_of_the_runtime_helpers_is_outside_the_source_tree():
    """numba's default puts `srcad/runtime/numba_runtime.py`'s compiled helpers in
    `srcad/__pycache__`, where a stale file from another numba version breaks the run."""
    numba = pytest.importorskip("numba")
    assert numba.config.CACHE_DIR == os.environ["NUMBA_CACHE_DIR"]
    assert _inside(numba.config.CACHE_DIR, TEMP)
    from srcad.runtime import numba_runtime
    where = numba_runtime.reserve_tape._cache._cache_path
    assert _inside(where, numba.config.CACHE_DIR), where
    assert not _inside(where, Path(srcad.__file__).parent), where
