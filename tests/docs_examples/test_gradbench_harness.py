"""srcad's GradBench tool judged by GradBench's own eval programs (vendored in
third_party/gradbench), connected by benchmarks/gradbench/harness_run.py as GradBench's CLI
connects them: every analysis the eval sends must say valid. lse's validator runs GradBench's
C++ reference tool, built once with g++ in build/gradbench/."""

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "gradbench"))

import harness_run  # noqa: E402
import harness_setup  # noqa: E402

# the eval programs run under this interpreter: GradBench's library needs pydantic (dev extra)
needs_pydantic = pytest.mark.skipif(
    importlib.util.find_spec("pydantic") is None and not os.environ.get(
        "SRCAD_GRADBENCH_PYTHONPATH"), reason="GradBench's eval programs need pydantic")


def evaluations(log):
    return [m for m in log["messages"] if m["kind"] == "evaluate"]


def assert_all_valid(log):
    assert log["outcome"] == "success", (log["problem"], log["eval_stderr_tail"],
                                         [m.get("error") or m.get("analysis_error")
                                          for m in log["messages"]])
    assert evaluations(log), "the eval sent no evaluate message"
    for message in evaluations(log):
        assert message["success"] and message["valid"] is True, message


@needs_pydantic
def test_hello_eval_program_validates_srcad_python():
    log = harness_run.run("hello", "srcad-python", timeout=120)
    assert_all_valid(log)
    assert [m["function"] for m in evaluations(log)] == ["square", "double"] * 4


@pytest.mark.slow
@needs_pydantic
@pytest.mark.skipif(not harness_setup.json_header_found(),
                    reason="GradBench's C++ reference needs nlohmann-json3-dev")
@pytest.mark.parametrize("backend", ["python", "numba"])
def test_lse_eval_program_validates_srcad_against_the_cpp_reference(backend):
    log = harness_run.run("lse", f"srcad-{backend}", ["-n", "50", "300", "--min-seconds", "0"],
                          timeout=300)
    assert_all_valid(log)
    assert [(m["function"], m["description"]) for m in evaluations(log)] == [
        ("primal", "n=50"), ("gradient", "n=50"), ("primal", "n=300"), ("gradient", "n=300")]
    # the preparation is reported apart from the timed runs
    assert all("prepare" in m["timings"] and "evaluate" in m["timings"]
               for m in evaluations(log))


def test_lstm_reads_a_substitute_text_of_seven_bit_characters():
    harness_setup.link_tree()
    text = (harness_setup.BUILD / harness_setup.LSTM_TEXT).read_text(encoding="utf8")
    assert len(text) >= 8192  # GradBench's largest default c
    assert 64 <= max(map(ord, text)) < 128  # 7 bits per character, as its English text
    assert text == harness_setup.substitute_text()
    # the vendored tree stays unchanged
    assert not (harness_setup.VENDORED / harness_setup.LSTM_TEXT).exists()


@pytest.mark.slow
@needs_pydantic
@pytest.mark.skipif(not harness_setup.json_header_found(),
                    reason="GradBench's C++ reference needs nlohmann-json3-dev")
def test_lstm_eval_program_validates_srcad_python_against_the_cpp_reference():
    log = harness_run.run("lstm", "srcad-python", ["-l", "2", "-c", "1024", "--min-seconds",
                                                  "0"], timeout=300)
    assert_all_valid(log)
    assert [m["function"] for m in evaluations(log)] == ["objective", "jacobian"]


@needs_pydantic
def test_an_output_the_eval_rejects_is_recorded_invalid(tmp_path):
    """The driver keeps the eval's verdict: a tool answering hello's square with x + 1 is
    judged invalid by GradBench's hello program, and the run's outcome is "invalid"."""
    wrong_tool = tmp_path / "wrong_tool.py"
    wrong_tool.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    r = {'id': m['id']}\n"
        "    if m['kind'] == 'define': r['success'] = True\n"
        "    if m['kind'] == 'evaluate':\n"
        "        r.update(success=True, output=m['input'] + 1.0,\n"
        "                 timings=[{'name': 'evaluate', 'nanoseconds': 1}])\n"
        "    print(json.dumps(r), flush=True)\n")
    program = harness_run.Program([sys.executable, str(wrong_tool)], tmp_path,
                                  harness_setup.eval_environment())
    harness_setup.link_tree()
    log = harness_run.converse(harness_run.eval_program("hello"), program, timeout=60)
    assert log["outcome"] == "invalid"
    # square(1) answered 2, double(2) answered 3
    assert [m["valid"] for m in evaluations(log)][:2] == [False, False]


def _message(function, description, tool_ns, valid=True, prepare=None, response=5_000):
    timings = {"evaluate": {"count": 3, "total_ns": 3 * tool_ns, "min_ns": tool_ns}}
    if prepare is not None:
        timings["prepare"] = {"count": 1, "total_ns": prepare, "min_ns": prepare}
    return {"id": 0, "kind": "evaluate", "function": function, "description": description,
            "success": True, "valid": valid, "timings": timings, "response_ns": response}


def _run(tool, messages, outcome="success"):
    return {"eval": "lse", "tool": tool, "outcome": outcome, "problem": None, "args": ["-n", "5"],
            "primal": "primal", "wall_ns": 2_000_000_000, "load_before": (1.5, 1, 1),
            "load_after": (2.25, 1, 1), "messages": messages}


def test_the_page_section_shows_validity_ratios_and_time_to_first_derivative(tmp_path):
    import harness_page

    log = {"machine": {"date": "2026-01-01", "commit": "abc", "cpus": 2, "python": "3.11"},
           "sizes": "small", "timeout_s": 60, "skipped": [],
           "runs": [_run("srcad-numba", [_message("primal", "n=5", 100),
                                         _message("gradient", "n=5", 300, prepare=7_000_000,
                                                  response=9_000_000)]),
                    _run("jax", [_message("primal", "n=5", 100),
                                 _message("gradient", "n=5", 600, valid=False)], "invalid")]}
    section = harness_page.render(log)
    assert "| lse | srcad-numba | success | 2/2 | 9 ms (7 ms) | 2 s | 1.5 / 2.2 |" in section
    assert "| lse | jax | **invalid** | 1/2 |" in section
    assert "| gradient | n=5 | 300 ns | 600 ns **invalid** | 0.5x |" in section
    page = tmp_path / "gradbench.md"
    page.write_text("# title\n\ntables of run.py\n")
    harness_page.write_section(page, section)
    harness_page.write_section(page, section.replace("2/2", "1/2"))  # replaced, not repeated
    text = page.read_text()
    assert text.startswith("# title\n\ntables of run.py\n") and text.count("## Judged by") == 1
    assert "1/2 | 9 ms" in text and harness_page.kept_section(page).startswith("<!--")


def test_a_run_at_the_default_sizes_has_a_section_of_its_own(tmp_path):
    import harness_page

    log = {"machine": {"date": "2026-01-01", "commit": "abc", "cpus": 2, "python": "3.11"},
           "sizes": "bounded", "timeout_s": 60, "skipped": [],
           "runs": [_run("srcad-numba", [_message("gradient", "n=5", 300)])]}
    page = tmp_path / "gradbench.md"
    page.write_text("# title\n")
    harness_page.write_section(page, harness_page.render(log))
    harness_page.write_section(page, harness_page.render(dict(log, sizes="default")))
    harness_page.write_section(page, harness_page.render(log))  # the bounded one replaced
    text = page.read_text()
    assert text.count("## Judged by GradBench's own harness\n") == 1
    assert text.count("## Judged by GradBench's own harness at its default sizes") == 1
    kept = harness_page.kept_section(page)  # run.py keeps both
    assert harness_page.START in kept and harness_page.DEFAULT_END in kept


def test_the_default_size_run_reads_only_vendored_data():
    import harness_suite

    # ht's eval reads hand1 .. hand<max> of evals/ht/data/<variant>_<model>: all must be there
    args = harness_suite.SIZES["default"]["ht"]
    last = int(args[args.index("--max") + 1])
    data = ROOT / "third_party" / "gradbench" / "evals" / "ht" / "data" / "complicated_big"
    assert "--model" not in args and "--variant" not in args  # GradBench's default model
    for i in range(1, last + 1):
        assert len(list(data.glob(f"hand{i}_*.txt"))) == 1, i
    for part in ("anchors", "atl_triangle_labels", "bones", "triangles", "vertices"):
        assert (data / "model" / f"{part}.txt").is_file()
    assert not list(data.glob(f"hand{last + 1}_*.txt"))  # else the run should go further
    assert "hand10" in harness_suite.NOTES["default"]["ht"]


def test_a_note_on_what_a_run_leaves_out_is_on_the_page():
    import harness_page

    log = {"machine": {"date": "2026-01-01", "commit": "abc", "cpus": 2, "python": "3.11"},
           "sizes": "default", "timeout_s": 60, "skipped": [], "notes": {"lse": "n up to 5"},
           "runs": [_run("srcad-numba", [_message("gradient", "n=5", 300)])]}
    assert "Arguments of the eval program: `-n 5` (n up to 5)." in harness_page.render(log)


def test_the_page_names_the_conversations_whose_sums_were_reassociated():
    import harness_page
    import harness_suite

    assert harness_suite.NUMBA_OPTIONS == ("--reassociate",)  # make gradbench's numba tool
    assert harness_setup.srcad_tool_command("numba", ("--reassociate",))[-1] == "--reassociate"
    log = {"machine": {"date": "2026-01-01", "commit": "abc", "cpus": 2, "python": "3.11"},
           "sizes": "default", "timeout_s": 60, "skipped": [], "notes": {},
           "runs": [dict(_run("srcad-numba", [_message("gradient", "n=5", 300)]),
                         tool_command=["-m", "srcad.gradbench", "--backend", "numba",
                                       "--reassociate"]),
                    dict(_run("srcad-python", [_message("gradient", "n=5", 300)]),
                         tool_command=["-m", "srcad.gradbench", "--backend", "python"])]}
    page = harness_page.render(log)
    assert "ran with `--reassociate` (lse on srcad-numba):" in page
    for run in log["runs"]:
        run["tool_command"] = run["tool_command"][:4]
    assert "--reassociate" not in harness_page.render(log)


@needs_pydantic
@pytest.mark.slow  # GradBench's big hand model on the python backend
def test_ht_eval_program_validates_srcad_python_on_its_default_hand_model():
    log = harness_run.run("ht", "srcad-python", ["--max", "1", "--min-seconds", "0"],
                          timeout=600)
    assert_all_valid(log)


def test_logs_run_side_by_side_are_merged_later_ones_replacing():
    import harness_page

    def log(runs, sizes="default", notes=None):
        return {"machine": {"date": "2026-01-01", "commit": "abc", "cpus": 2, "python": "3.11"},
                "sizes": sizes, "timeout_s": 60, "skipped": [], "notes": notes or {},
                "runs": runs}

    lse = _run("srcad-numba", [_message("gradient", "n=5", 300)])
    ht = dict(_run("srcad-numba", [_message("jacobian", "hand1", 900)]), eval="ht")
    ht_again = dict(ht, outcome="timeout")
    merged = harness_page.merge([log([lse, ht]), log([ht_again], notes={"ht": "hand1 only"})])
    assert [(r["eval"], r["outcome"]) for r in merged["runs"]] == [("lse", "success"),
                                                                    ("ht", "timeout")]
    assert merged["notes"] == {"ht": "hand1 only"}
    # the page says which run (date, commit) each remaining conversation comes from
    later = log([ht_again])
    later["machine"] = dict(later["machine"], date="2026-01-02", commit="def")
    runs = harness_page._runs_of(harness_page.merge([log([lse, ht]), later]))
    assert runs == ("Assembled from 2 runs (2026-01-01 at commit abc: lse on srcad-numba; "
                    "2026-01-02 at commit def: ht on srcad-numba)")
    assert harness_page._runs_of(log([lse])) == "Run of 2026-01-01 at commit abc"
    with pytest.raises(ValueError):
        harness_page.merge([log([lse]), log([ht], sizes="bounded")])


def test_the_page_says_how_gradbench_s_jax_tool_is_kept_to_one_thread():
    import harness_page
    import harness_suite

    log = harness_suite.run_suite([], ["srcad-python"], "small", timeout=1.0, min_seconds=None)
    assert "XLA_FLAGS=--xla_cpu_multi_thread_eigen=false" in log["jax_threads"]
    log["machine"] = {"date": "2026-01-01", "commit": "abc", "cpus": 2, "python": "3.11"}
    assert "GradBench's JAX tool computes on one thread" in harness_page.render(log)


JAX_THREADS = """
import os, sys
sys.path.insert(0, sys.argv[1])
import jax
from jax_one_thread import pin_jax_to_one_cpu
before = set(os.listdir("/proc/self/task"))  # Python's, NumPy's BLAS threads
print(pin_jax_to_one_cpu(), file=sys.stderr)
import jax.numpy as jnp
a = jnp.ones((400, 400))
jax.block_until_ready(jax.jit(lambda a: jnp.tanh(a @ a).sum())(a))
pinned = {len(os.sched_getaffinity(int(t))) for t in set(os.listdir("/proc/self/task")) - before}
print(sorted(os.sched_getaffinity(0)), sorted(pinned))
"""


@pytest.mark.slow  # a process importing JAX
@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs two CPUs to tell pinned threads apart")
def test_the_jax_tool_s_threads_run_on_one_cpu_and_the_process_keeps_its_cpus():
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    out = subprocess.run([sys.executable, "-c", JAX_THREADS,
                          str(ROOT / "benchmarks" / "gradbench")], env=env,
                         capture_output=True, text=True, check=True)
    process, threads = out.stdout.split("] [")
    assert process.count(",") >= 1  # the calling thread may run on every CPU again
    assert threads.strip(" ]\n") == "1"  # every thread XLA started: one CPU


def test_a_hand_note_about_harness_runs_is_kept_when_run_py_rewrites(tmp_path):
    import harness_page

    page = tmp_path / "gradbench.md"
    note = f"{harness_page.NOTE_START}\n\nmeasured by hand\n\n{harness_page.NOTE_END}"
    page.write_text(f"# title\n\ntables of run.py\n\n{note}\n")
    assert harness_page.kept_section(page) == note + "\n"


@pytest.mark.slow  # numba compiles lse's primal and gradient in a new process
def test_the_tool_profile_counts_what_each_message_compiles_and_a_later_input_reuses_it():
    import tool_prepare_profile

    rows = tool_prepare_profile.measure("lse", "numba", ["small", "small"], 2)
    assert [(r["input"], r["function"]) for r in rows] == [
        ("small", "primal"), ("small", "gradient")] * 2
    assert all(r["success"] for r in rows)
    first, again = rows[:2], rows[2:]
    assert sum(r["compiled"] for r in first) > 0  # numba typed the primal's or gradient's code
    assert all(r["compiled"] == 0 for r in again)  # the same types: nothing compiled again
    assert all(r["prepare"] <= r["wall"] for r in rows)
