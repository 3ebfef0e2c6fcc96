"""srcad's GradBench tool repeats runs in one process without paying per run what it can pay
once: freed memory is kept for the next run (no page faults per run), a loop's tape has a
budget sized to the machine (not checkpointed under srcad's library default), the numba
primal is compiled once per function, not once per input, and called without srcad.autodiff's
per-call work; sums are reassociated only with `--reassociate`."""

import json
import os
import platform
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcad
from srcad.gradbench import memory
from srcad.gradbench.ports import compiled_primals
from srcad.runtime import checkpointing
from tests.helpers.gradbench_exchange import RUNS, evaluate, tool

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"

# Twelve 800 KB work arrays allocated, written and freed per run, as srcad's generated numba
# code does for ode at n = 100000; the minor page faults of 20 runs after a first one.
FAULTS = textwrap.dedent("""
    import resource, sys
    import numpy as np
    if sys.argv[1] == "keep":
        from srcad.gradbench.memory import keep_freed_memory
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
        config = json.loads(out)["config"]
        assert config["freed_memory"] == expected
        assert config["tape_budget"] >= checkpointing.DEFAULT_MEMORY
    out = subprocess.run([sys.executable, "-m", "srcad.gradbench", "--tape-budget", "srcad"],
                         input=start, capture_output=True, text=True, check=True).stdout
    assert "tape_budget" not in json.loads(out)["config"]


@pytest.mark.slow  # two tool processes
def test_the_tool_reassociates_sums_only_when_asked():
    start = json.dumps({"id": 0, "kind": "start", "eval": "hello"}) + "\n"
    environment = {k: v for k, v in os.environ.items() if k != "SRCAD_NUMBA_REASSOCIATE"}
    for flags, expected in (([], "in order"), (["--reassociate"], "reassociated")):
        out = subprocess.run([sys.executable, "-m", "srcad.gradbench", *flags], input=start,
                             capture_output=True, text=True, check=True,
                             env=environment).stdout
        assert json.loads(out)["config"]["sums"] == expected


def test_the_prepared_primal_calls_the_generated_code_directly():
    def total(x, c):
        s = 0.0
        for i in range(len(x)):
            s += c * x[i] * x[i]
        return s

    x, other = np.array([0.5, -2.0, 3.0]), np.array([1.0, 2.0])
    primal = compiled_primals.srcad_primal(total, "python")
    run = compiled_primals.run_once(primal, (x, 2.0))
    assert run.__qualname__ == "_direct_call.<locals>.call"
    assert run(x, 2.0) == 2.0 * (0.25 + 4.0 + 9.0)
    x[0] = 1.0  # the same array, new values: read at the call
    assert run(x, 2.0) == 2.0 * (1.0 + 4.0 + 9.0)
    assert run(other, 3.0) == 3.0 * 5.0  # other arguments: through srcad.autodiff


def test_a_tool_made_in_python_leaves_malloc_alone():
    response = tool().respond({"id": 0, "kind": "start", "eval": "lse"})
    assert response["config"]["freed_memory"] == "system"


def test_the_numba_primal_is_one_dispatcher_for_every_input():
    from srcad.gradbench.ports import lse

    pytest.importorskip("numba")
    # compiled lazily: nothing is compiled here
    compiled = compiled_primals.numba_compiled
    assert compiled(lse.lse_loops) is compiled(lse.lse_loops)


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


def test_the_tape_budget_is_a_quarter_of_the_available_memory(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24683784 kB\nMemAvailable:   16777216 kB\n")
    assert memory.available_memory(str(meminfo)) == 16 * 2**30
    assert memory.tape_budget(16 * 2**30) == 4 * 2**30
    assert memory.tape_budget(2**20) == checkpointing.DEFAULT_MEMORY  # never below srcad's
    assert memory.available_memory(str(tmp_path / "absent")) is None


def test_code_generated_after_the_budget_is_set_checkpoints_past_it(monkeypatch):
    # GradBench's ode shape: a time-stepping loop over a state with loops of its own
    def steps(x, s):
        y = np.zeros(len(x))
        for _ in range(s):
            for i in range(1, len(x)):
                y[i] = y[i] + x[i] * y[i - 1]
        return y[len(x) - 1]

    monkeypatch.setattr(checkpointing, "DEFAULT_MEMORY", checkpointing.DEFAULT_MEMORY)
    assert memory.set_tape_budget(3 * 2**30) == 3 * 2**30
    x = np.linspace(0.1, 1.0, 5)
    code = srcad.source(steps, srcad.Reverse, srcad.Duplicated(x, np.zeros(5)), 3,
                        backend="numba")
    assert str(3 * 2**30) in code and str(2**28) not in code


@pytest.mark.slow  # a numba compilation
def test_the_ht_complicated_primal_compiles_on_numba():
    # numba's np.concatenate takes a tuple of arrays, not a list: the port's primal, which
    # the tool hands to numba as written (not through srcad's code generation, which turns a
    # listed join into a tuple), joins [theta, us] as a tuple, so it runs compiled
    pytest.importorskip("numba")
    from srcad.gradbench.ports import ht

    problem = ht.EVAL.parse(ht.EVAL.generate(vertices=12, correspondences=8, complicated=True))
    theta, constants, complicated = problem
    inputs, arguments = compiled_primals.numba_compiled(ht.complicated_arguments)(theta, constants,
                                                                        complicated)
    np.testing.assert_array_equal(inputs, np.r_[theta, complicated[0]])
    assert len(arguments) == len(constants) + 1
