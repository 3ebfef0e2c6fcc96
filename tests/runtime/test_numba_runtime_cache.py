"""numba's cache of srcad's runtime functions lives in srcad's cache folder
(srcad/runtime/numba_cache.py): an empty `SRCAD_CACHE_DIR` is a cold start for them too."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

numba = pytest.importorskip("numba")

from numba.core import config  # noqa: E402

from srcad.runtime import numba_cache, numba_runtime  # noqa: E402


def test_a_runtime_function_is_cached_in_srcad_folder(monkeypatch, tmp_path):
    monkeypatch.setattr(config, "CACHE_DIR", "")  # NUMBA_CACHE_DIR not set
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path))
    py_func = numba_runtime.reserve_tape.py_func
    locator = numba_cache.RuntimeCacheLocator.from_function(py_func, numba_runtime.__file__)
    where = Path(locator.get_cache_path())
    assert where.is_relative_to(tmp_path / "numba_runtime"), where
    # the user's own functions keep numba's rule
    assert numba_cache.RuntimeCacheLocator.from_function(
        test_a_runtime_function_is_cached_in_srcad_folder, __file__) is None


def test_a_folder_no_one_may_write_leaves_it_to_numba(monkeypatch, tmp_path):
    monkeypatch.setattr(config, "CACHE_DIR", "")
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "file"))  # a file, not a folder
    py_func = numba_runtime.reserve_tape.py_func
    assert numba_cache.RuntimeCacheLocator.from_function(py_func, numba_runtime.__file__) is None


def test_numba_cache_dir_keeps_numbas_rule(monkeypatch, tmp_path):
    # with NUMBA_CACHE_DIR, numba caches everything there, generated modules included
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "numba"))
    py_func = numba_runtime.reserve_tape.py_func
    assert numba_cache.RuntimeCacheLocator.from_function(py_func, numba_runtime.__file__) is None


_RUN = textwrap.dedent("""
    import numpy as np
    from srcad.runtime import numba_runtime
    tape = numba_runtime.reserve_tape(np.zeros(2), 5)
    stats = numba_runtime.reserve_tape.stats
    print(tape.shape[0], sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
""")


@pytest.mark.slow  # two processes importing numba
def test_a_second_process_reads_the_runtime_function_from_srcad_folder(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["SRCAD_CACHE_DIR"] = str(tmp_path)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)

    def run():
        out = subprocess.run([sys.executable, "-c", _RUN], env=env, capture_output=True,
                             text=True, check=True).stdout.split()
        return [int(v) for v in out]

    assert run() == [7, 0, 1]  # compiled, and saved in the folder
    assert list((tmp_path / "numba_runtime").glob("*/numba_runtime.reserve_tape-*.nbi"))
    assert run() == [7, 1, 0]  # read back


_RUNTIME_FOLDER = Path(numba_runtime.__file__).parent


@pytest.mark.parametrize("path", sorted(p for p in _RUNTIME_FOLDER.glob("numba_*.py")
                                        if "cache=True" in p.read_text()),
                         ids=lambda p: p.stem)
def test_each_module_with_cached_functions_points_numba_at_srcad_folder_first(path):
    """A runtime module imported before any other (by a test, by a generated module that
    reaches it first) still caches its functions in srcad's folder: it calls
    `runtime_cache_in_srcad_folder()` at its top level before its first cached function."""
    lines = path.read_text().splitlines()
    first_cached = next(i for i, line in enumerate(lines) if "cache=True" in line
                        and not line.lstrip().startswith("#"))
    calls = [i for i, line in enumerate(lines) if line == "runtime_cache_in_srcad_folder()"
             or line.startswith("runtime_cache_in_srcad_folder()  #")]
    if path.name == "numba_cache.py":
        return  # the locator itself
    assert calls and calls[0] < first_cached, path.name


def test_the_solves_module_imported_alone_caches_in_srcad_folder(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["SRCAD_CACHE_DIR"] = str(tmp_path)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    code = ("from srcad.runtime import numba_lapack as m\n"
            "print(type(m._solve_vector._cache._impl.locator).__name__)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["RuntimeCacheLocator"]
