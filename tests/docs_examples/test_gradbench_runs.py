"""srcad's GradBench tool repeats runs in one process without paying per run what it can pay
once: freed memory is kept for the next run (no page faults per run), and the numba primal is
compiled once per function, not once per input."""

import json
import platform
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tests.helpers.gradbench_exchange import RUNS, common, evaluate, tool

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"

# Twelve 800 KB work arrays allocated, written and freed per run, as srcad's generated numba
# code does for ode at n = 100000; the minor page faults of 20 runs after a first one.
FAULTS = textwrap.dedent("""
    import resource, sys
    import numpy as np
    if sys.argv[1] == "keep":
        from srcad.gradbench.allocator import keep_freed_memory
        assert keep_freed_memory() == "kept"
    def run():
        arrays = [np.zeros(100000) for _ in range(12)]
        for a in arrays:
            a += 1.0
    run()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(20):
        run()
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
""")


def minor_faults(setting: str) -> int:
    out = subprocess.run([sys.executable, "-c", FAULTS, setting], capture_output=True,
                         text=True, check=True).stdout
    return int(out)


@pytest.mark.slow  # two processes
@pytest.mark.skipif(not GLIBC, reason="the setting is glibc's")
def test_freed_work_arrays_are_reused_without_page_faults():
    # 20 runs x 12 arrays x 196 pages of 4 KiB: glibc's defaults fault every page again
    assert minor_faults("system") > 20 * 12 * 196 // 2
    assert minor_faults("keep") < 20 * 12 * 196 // 20


@pytest.mark.slow  # two tool processes
def test_the_tool_started_from_its_command_line_keeps_freed_memory():
    start = json.dumps({"id": 0, "kind": "start", "eval": "hello"}) + "\n"
    for flags, expected in (([], "kept" if GLIBC else "not glibc"),
                            (["--system-malloc"], "system")):
        out = subprocess.run([sys.executable, "-m", "srcad.gradbench", "--backend", "python",
                              *flags], input=start, capture_output=True, text=True,
                             check=True).stdout
        assert json.loads(out)["config"]["freed_memory"] == expected


def test_a_tool_made_in_python_leaves_malloc_alone():
    response = tool().respond({"id": 0, "kind": "start", "eval": "lse"})
    assert response["config"]["freed_memory"] == "system"


def test_the_numba_primal_is_one_dispatcher_for_every_input():
    from srcad.gradbench.ports import lse

    pytest.importorskip("numba")
    # compiled lazily: nothing is compiled here
    assert common.numba_compiled(lse.lse_loops) is common.numba_compiled(lse.lse_loops)


@pytest.mark.slow  # a numba compilation
def test_a_second_input_of_the_same_types_compiles_nothing():
    pytest.importorskip("numba")
    from numba.core import event

    class Compilations(event.Listener):
        count = 0

        def on_start(self, e):
            self.count += 1

        def on_end(self, e):
            pass

    t = tool("numba")
    first = evaluate(t, "lse", "primal", {"x": [0.5, -1.0, 2.0]} | RUNS)
    compilations = Compilations()
    with event.install_listener("numba:compiler_lock", compilations):
        second = evaluate(t, "lse", "primal", {"x": [1.5, 0.25, -2.0, 3.0]} | RUNS)
    assert compilations.count == 0
    assert first["output"] == pytest.approx(np.log(np.exp([0.5, -1.0, 2.0]).sum()), rel=1e-12)
    assert second["output"] == pytest.approx(np.log(np.exp([1.5, 0.25, -2.0, 3.0]).sum()),
                                             rel=1e-12)
