"""The numba backend keeps freed memory for the next call (srcad/runtime/heap_settings.py):
loading its runtime sets glibc's thresholds once, SRCAD_SYSTEM_MALLOC=1 leaves glibc's
defaults, and settings a process chose before (srcad's GradBench tool) are not overridden."""

import platform
import subprocess
import sys

import pytest

from srcad.runtime import heap_settings

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"

# megabyte arrays allocated and freed as generated code does at each call, after loading the
# numba backend's runtime; prints the page faults the last 20 rounds met
PROBE = """
import resource, numpy as np
import srcad.runtime.numba_runtime as runtime
def call():
    parts = [np.ones(n) for n in (300_000, 250_000, 500_000, 260_000)]
    return sum(p[0] for p in parts)
for _ in range(5):
    call()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    call()
print(runtime.HEAP, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _probe(env):
    pytest.importorskip("numba")
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         env=env, check=True).stdout.split()
    return out[0], int(out[1])


@pytest.mark.slow  # two processes importing numba
@pytest.mark.skipif(not GLIBC, reason="glibc's malloc settings")
def test_loading_the_numba_runtime_keeps_freed_memory_for_the_next_call(monkeypatch):
    import os

    env = {k: v for k, v in os.environ.items() if k != "SRCAD_SYSTEM_MALLOC"}
    kept, faults = _probe(env)
    system, system_faults = _probe({**env, "SRCAD_SYSTEM_MALLOC": "1"})
    assert (kept, system) == ("kept", "system")
    assert faults < 50 < system_faults  # glibc's defaults fault the pages in at every round


def test_settings_chosen_before_are_kept(monkeypatch):
    monkeypatch.setattr(heap_settings, "_settled", [])
    monkeypatch.delenv("SRCAD_SYSTEM_MALLOC", raising=False)
    monkeypatch.setattr(heap_settings, "keep_freed_memory",
                        lambda trim=heap_settings.LIBRARY_TRIM_THRESHOLD:
                        heap_settings._settled.append(trim) or "kept")
    heap_settings.keep_freed_memory(2**31 - 1)  # as srcad's GradBench tool does first
    assert heap_settings.numba_backend_settings() == "set before"
    monkeypatch.setenv("SRCAD_SYSTEM_MALLOC", "1")
    assert heap_settings.numba_backend_settings() == "system"
