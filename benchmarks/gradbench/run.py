"""Time srcad's GradBench ports side by side with JAX, autograd and the plain-Python primal, and
write docs/gradbench.md.

    python benchmarks/gradbench/run.py [--quick] [--evals gmm lse ...] [--out docs/gradbench.md]

Method: per eval, one input at the eval's "default" size (or "quick" with --quick); every
implementation is built (transform, compilation, jit: not timed), run once and checked against
the eval's reference (a disagreeing implementation is reported, never timed), then timed in
rounds, each round calling every implementation once, so they all see the same machine load.
The minimum over the rounds is reported, of the CPU time of the process (`time.process_time`)
for the calls that run in the calling thread alone (the plain-Python primal, srcad's python
backend) and of the wall-clock time for the others (srcad's numba backend, JAX, autograd): on a
machine other work shares, a wall-clock median counts the time a call waited for a core (a
plain-Python primal and its derivative came out 12x apart that way, ~2.6x by CPU-time
minimums), while the process's CPU time misses or adds work done on other threads (XLA's: a
JAX gradient read 45 us of CPU time for 250 us of wall-clock time, another 5.7 ms for 3.0 ms).
`--clock process` or `--clock wall` times every call one way. An implementation whose single
call exceeds the per-implementation budget is timed once; a call shorter than `WARM_BELOW` is
timed right after an untimed call of its own. JAX's derivatives are written as
GradBench's JAX tool writes them where it has the eval and is not slower (`JAX_FORMS`).
JAX computes on one thread, like the GradBench JAX tool (pinned to one core): no XLA flag
bounds the XLA:CPU runtime's thread pools (`--xla_cpu_multi_thread_eigen=false` covers Eigen's
matrix products only; with it and `intra_op_parallelism_threads=1`, which XLA does not read, a
gmm gradient still computed on four threads), and the CPU client sizes them by the CPUs the
process may run on, so JAX's client is created while the process is pinned to one CPU
(`pin_jax_to_one_cpu`): its threads stay on that CPU, and the gradient computes on one thread.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

# Eigen's matrix products on the calling thread, set before JAX is imported by any port (the
# rest of XLA's threads: `pin_jax_to_one_cpu`)
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.gradbench import first_call_stages, first_derivative  # noqa: E402
from benchmarks.gradbench.harness_page import kept_section  # noqa: E402
from benchmarks.gradbench.jax_one_thread import pin_jax_to_one_cpu  # noqa: E402
from srcad.gradbench.ports import common  # noqa: E402

NUMBA_TARGET = 1.0  # srcad numba / jax.jit
PYTHON_TARGET = 4.0  # srcad python / plain-Python primal, for the gradient evals
GRADIENTS = ("gradient", "jacobian")


@dataclass
class Cell:
    implementation: common.Implementation
    status: str = "ok"  # ok, refused, unavailable, failed, wrong
    detail: str = ""
    error: float = float("nan")
    samples: list = field(default_factory=list)
    call: object = None
    first: float = float("inf")  # the checked first call's time

    @property
    def best(self):
        """The reported time: the least of the samples."""
        return min(self.samples) if self.samples else None


CLOCKS = {"process": time.process_time, "wall": time.perf_counter}
# A call shorter than this (seconds) is timed right after an untimed call of the same
# implementation, as GradBench's harness repeats a run back to back: right after the other
# implementations' calls, JAX's kmeans direction took 0.56-0.61 ms (least of 15, loaded
# machine) where after a call of its own it took 0.28 ms and back to back 0.19 ms.
WARM_BELOW = 0.05
IN_THREAD = ("primal", "srcad-python")  # tools whose calls run in the calling thread alone


def clock_for(tool: str, choice: str = "auto"):
    """The clock a call of `tool` is timed with: `choice`, or with "auto" the process's CPU
    time for the tools that compute in the calling thread alone and wall-clock otherwise."""
    if choice == "auto":
        choice = "process" if tool in IN_THREAD else "wall"
    return CLOCKS[choice]


def measure_eval(port: common.Eval, size: str, rounds: int, budget: float, log,
                 clock_choice: str = "auto") -> list[Cell]:
    problem = port.parse(port.input(size))
    expected = {}
    cells = []
    for implementation in port.implementations:
        cell = Cell(implementation)
        cells.append(cell)
        clock = clock_for(implementation.tool, clock_choice)
        try:
            cell.call = implementation.build(problem)
            start = clock()
            result = cell.call()
            first = cell.first = clock() - start
        except common.Refused as exc:
            cell.status, cell.detail = "refused", str(exc)
            continue
        except common.Unavailable as exc:
            cell.status, cell.detail = "unavailable", str(exc)
            continue
        except Exception as exc:
            cell.status, cell.detail = "failed", f"{type(exc).__name__}: {exc}"
            traceback.print_exc(file=log)
            continue
        function = implementation.function
        if function not in expected:
            expected[function] = port.reference[function](problem)
        cell.error = port.error(function, result, expected[function])
        if cell.error > port.rtol:
            cell.status, cell.detail = "wrong", f"error {cell.error:.1e} > {port.rtol:.0e}"
            cell.call = None
        elif first > budget:
            cell.samples.append(first)  # too slow to repeat: one sample
            cell.call = None
        print(f"  {port.name} {implementation.function} {implementation.label}: "
              f"{cell.status} {cell.detail[:100]}", file=log, flush=True)
    for _ in range(rounds):
        for cell in cells:
            if cell.call is None:
                continue
            clock = clock_for(cell.implementation.tool, clock_choice)
            if cell.first < WARM_BELOW:
                cell.call()  # untimed: the timed call follows a call of its own
            start = clock()
            cell.call()
            cell.samples.append(clock() - start)
            if sum(cell.samples) > budget:
                cell.call = None
    return cells


# ----------------------------------------------------------------------------------------------
# the page


def fmt_time(seconds):
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def fmt_ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b else "-"


def chosen(cells, function, tool):
    """The cell the GradBench tool would use: the first accepted form of this tool, in the
    order the tool tries them (srcad's backends: their first form first)."""
    ours = [c for c in cells if c.implementation.function == function
            and c.implementation.tool == tool and c.status == "ok"]
    if tool.startswith("srcad-") and ours:
        first = common.first_form_first([c.implementation for c in ours],
                                        tool.removeprefix("srcad-"))[0]
        return next(c for c in ours if c.implementation is first)
    return ours[0] if ours else None


def primal_of(cells, port, form):
    """The plain-Python primal of the same form (else the first primal)."""
    primals = [c for c in cells if c.implementation.function == port.primal
               and c.implementation.tool == "primal" and c.status == "ok"]
    same = [c for c in primals if form.startswith(c.implementation.form)]
    same.sort(key=lambda c: -len(c.implementation.form))
    return (same or primals or [None])[0]


def summary_row(port, cells):
    numba = chosen(cells, port.derivative, "srcad-numba")
    python = chosen(cells, port.derivative, "srcad-python")
    jax = chosen(cells, port.derivative, "jax")
    autograd = chosen(cells, port.derivative, "autograd")
    primal = primal_of(cells, port, python.implementation.form if python else "loops")
    med = lambda c: c.best if c else None  # noqa: E731
    numba_ratio = med(numba) / med(jax) if numba and jax and med(jax) else None
    python_ratio = med(python) / med(primal) if python and primal and med(primal) else None
    return [
        port.name,
        fmt_time(med(primal)) + (f" ({primal.implementation.form})" if primal else ""),
        fmt_time(med(python)) + (f" ({python.implementation.form})" if python else ""),
        fmt_time(med(numba)) + (f" ({numba.implementation.form})" if numba else ""),
        fmt_time(med(jax)),
        fmt_time(med(autograd)),
        target(numba_ratio, NUMBA_TARGET),
        # the python target is for gradients; kmeans' Newton step is a gradient and an hvp
        target(python_ratio, PYTHON_TARGET if port.derivative in GRADIENTS else None),
    ]


def target(ratio, limit):
    """The ratio, with a mark when there is a target to meet."""
    if ratio is None:
        return "-"
    if limit is None:
        return f"{ratio:.2f}x"
    return f"{ratio:.2f}x {'✓' if ratio <= limit else '✗'}"


# what the page says of the JAX column's formulations (benchmarks/gradbench/jax_forms.py times
# them against GradBench's JAX tool)
JAX_FORMS = (
    "The JAX column computes each derivative as GradBench's own JAX tool "
    "(`third_party/gradbench`) computes it where that tool has the eval (gmm, kmeans, llsq, "
    "lse: the same formulation, written in the port), except ode, whose port keeps its own "
    "JAX form, which measured faster than the tool's at both sizes checked; the tool has no "
    "ba, det, ht, lstm, particle or saddle, whose JAX forms are the ports' own "
    "(`benchmarks/gradbench/jax_forms.py` times each port's JAX form against the tool's "
    "function in one process, at the size here and at the eval program's largest)."
)


TOOL_DESCRIPTION = (
    '## srcad as a GradBench tool\n'
    '\n'
    "`python -m srcad.gradbench [--backend numba|python]` answers GradBench's protocol with\n"
    'the ports above, which ship with srcad (`srcad.gradbench.ports`; the tool starts from an\n'
    'installed srcad, no checkout). Every message kind gets its response (`start`, `define`,\n'
    '`evaluate`, `analysis`, and any other kind its `id`); responses are standard JSON (a\n'
    "non-finite number is written `null`, as GradBench's own tools write it); `hello` is\n"
    "answered by srcad itself (`double` is srcad's gradient of `square`); `define` succeeds\n"
    'only for an eval whose every function the tool can run, and every function an eval sends\n'
    "is computed by srcad (particle's and saddle's `ff`, `fr`, `rf` and `rr` alike). Each\n"
    'backend takes its own form of a port first: numba the C++-shaped loops, the python backend\n'
    'the vectorized NumPy form where the port has one (gmm, kmeans, llsq, lse, ode: CPython runs\n'
    "NumPy's whole-array calls one to two orders of magnitude faster than its own loops, and at\n"
    "GradBench's default sizes the loop forms did not answer within the harness's time limit),\n"
    'for its derivatives and for the primal it times alike. The\n'
    "inputs are read in GradBench's layout (ht's points, base positions and weights one row\n"
    "per point or vertex) and the outputs written as the eval's C++ reference tool writes\n"
    "them (ba's objective as `reproj_error`/`w_err` with their repeat counts, its Jacobian's\n"
    '`rows`, `cols` and `vals`). On the numba backend the primal runs compiled by numba too:\n'
    "srcad's generated primal (the primal statements of its code, with srcad's vectorizable\n"
    '`exp` and loop counters indexing without wraparound), or `numba.njit` of the port with the\n'
    'helpers it calls where srcad refuses the function (ba, ht); on CPython only where numba\n'
    "refuses it too (particle and saddle, whose primal calls srcad's gradient; the tool says so\n"
    "on stderr); ht's primal with\n"
    "the complicated inputs compiles too (the port joins `(theta, us)` as a tuple: numba's\n"
    "`np.concatenate` takes no list, and the tool hands the port's primal to numba as written,\n"
    "whereas srcad's own numba code generation turns a listed join into a tuple itself). The\n"
    'preparation no longer runs the function in CPython to learn whether it returns a float\n'
    '(srcad reads it from the type it infers): kmeans `dir` at k=1000, n=10000 on numba\n'
    'prepared in 4.4 s instead of 167 s (load 6.4 and 6.7, one after the other). The parse,\n'
    'transform, compilation and one untimed warm-up run are paid once per function and input,\n'
    'reported as one `prepare` timing, and reused by a later message with the same input;\n'
    'each `evaluate` timing is one run alone, `min_runs` times and until `min_seconds`.\n'
    'On the numba backend the primal is compiled by numba once per function (a later input\n'
    'of the same types reuses the machine code). The tool process keeps the memory it frees\n'
    "for its next run (glibc's malloc thresholds; `--system-malloc` leaves them) and gives a\n"
    "loop's tape a quarter of the memory available at its start before srcad checkpoints it\n"
    "(`--tape-budget`; srcad's library default is 256 MiB), as JAX's tool keeps its buffers\n"
    "and every step's residuals; `start` reports both in its `config`.\n"
)


def write_page(path, results, size, elapsed, load, clock="auto", jax_threads=""):
    lines = [
        "# srcad on the GradBench evals",
        "",
        "Generated by `python benchmarks/gradbench/run.py"
        + (" --quick" if size == "quick" else "") + "`; do not edit by hand.",
        "",
        "Python ports of the [GradBench](https://github.com/gradbench/gradbench) evals "
        "(srcad/gradbench/ports, see benchmarks/gradbench/README.md): the primal as a Python "
        "user transliterates the eval's C++ (loops, helpers, row views, work arrays), and a "
        "vectorized NumPy form where "
        "that is natural. Each eval at one input of "
        + ("its *quick* size (smaller than GradBench's defaults, for a fast run)"
           if size == "quick" else "one of GradBench's default sizes")
        + "; each cell is the time of one derivative call (of one primal call for the "
        "plain-Python column), checked against the eval's reference before it is timed: "
        + {"auto": "the minimum over the rounds of the process's CPU time "
                   "(`time.process_time`) for the plain-Python primal and srcad's python backend, "
                   "which run in the calling thread alone (it counts their work, not the time "
                   "they waited for a core on a shared machine), and of the wall-clock time for "
                   "srcad's numba backend, JAX and autograd (XLA computes on threads of its own, "
                   "whose CPU time the process's clock misses or adds). ",
           "process": "the minimum over the rounds of the process's CPU time "
                      "(`time.process_time`). ",
           "wall": "the minimum over the rounds of the wall-clock time. "}[clock]
        + "All implementations of an eval are timed in the same rounds; a call that took "
        f"less than {WARM_BELOW * 1e3:.0f} ms is timed right after an untimed call of its own "
        "(as GradBench's harness repeats a run back to back: right after the other "
        "implementations' calls, a short JAX call took up to 3x as long). JAX is jitted; "
        + (jax_threads + ". " if jax_threads else "")
        + JAX_FORMS + " "
        + "srcad's columns use the form the GradBench tool (`python -m srcad.gradbench`) "
        "uses: on numba the C++-shaped loop form, on the python backend the vectorized NumPy "
        "form where the port has one (CPython runs NumPy's whole-array calls far faster than "
        "its own loops), the loops otherwise; the nearest rewrite srcad accepts where it "
        "refuses that form (per-eval tables below).",
        "",
        f"Targets: srcad numba <= {NUMBA_TARGET:.1f}x jax.jit; srcad python <= "
        f"{PYTHON_TARGET:.0f}x the plain-Python primal of the same form.",
        "",
        # the site draws this table as a chart (scripts/docs_charts.py)
        "<!-- generated: chart gradbench -->",
        "",
        "| eval | size | plain Python primal | srcad python | srcad numba | jax.jit | autograd "
        "| numba / jax | python / primal |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for port, cells, description in results:
        row = summary_row(port, cells)
        lines.append("| " + " | ".join([row[0], description] + row[1:]) + " |")
    lines += ["", f"Total run time: {elapsed:.0f} s on {os.cpu_count()} CPUs; load average "
              f"{load[0]:.1f} at the start, {load[1]:.1f} at the end (other work shares the "
              "machine: times are comparable within a row, less so between runs).", ""]
    for port, cells, description in results:
        lines += [f"## {port.name} ({description})", "",
                  "| function | tool | form | status | error vs reference | time |",
                  "|---|---|---|---|---|---|"]
        for cell in cells:
            i = cell.implementation
            error = "-" if cell.error != cell.error else f"{cell.error:.1e}"
            status = cell.status if cell.status == "ok" else f"**{cell.status}**"
            lines.append(f"| {i.function} | {i.tool} | {i.form} | {status} | {error} "
                         f"| {fmt_time(cell.best)} |")
        refusals = [c for c in cells if c.status != "ok"]
        if refusals or port.notes:
            lines.append("")
        for cell in refusals:
            lines.append(f"- {cell.implementation.tool} ({cell.implementation.form}), "
                         f"{cell.status}: `{one_line(cell.detail)}`")
        for note in port.notes:
            lines.append(f"- {note}")
        lines.append("")
    lines.append(TOOL_DESCRIPTION)
    harness = kept_section(path)  # the section `make gradbench` writes stays
    harness += ("\n" if harness else "") + first_derivative.kept_section(path)  # and this one
    stages = first_call_stages.kept_section(path)  # and the python first call's stages
    harness += ("\n" if harness and stages else "") + stages
    Path(path).write_text("\n".join(lines) + ("\n" + harness if harness else ""))


def one_line(text, limit=400):
    text = " ".join(str(text).split()).replace(str(ROOT) + "/", "")
    return text if len(text) <= limit else text[:limit] + " ..."


def describe(port, size):
    return ", ".join(f"{k}={v}" for k, v in port.sizes[size].items())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smaller 'quick' sizes")
    parser.add_argument("--evals", nargs="*", help="only these evals")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--budget", type=float, default=4.0,
                        help="seconds of timed calls per implementation at most")
    parser.add_argument("--clock", choices=["auto", *sorted(CLOCKS)], default="auto",
                        help="auto (default): process CPU time for the primal and srcad's "
                        "python backend, wall-clock for the rest; or one clock for all")
    parser.add_argument("--out", default=str(ROOT / "docs" / "gradbench.md"))
    args = parser.parse_args(argv)
    size = "quick" if args.quick else "default"
    start, load_start = time.perf_counter(), os.getloadavg()[0]
    jax_threads = pin_jax_to_one_cpu()
    results = []
    for port in common.discover():
        if args.evals and port.name not in args.evals:
            continue
        print(f"{port.name} ({describe(port, size)})", file=sys.stderr, flush=True)
        cells = measure_eval(port, size, args.rounds, args.budget, sys.stderr, args.clock)
        results.append((port, cells, describe(port, size)))
    write_page(args.out, results, size, time.perf_counter() - start,
               (load_start, os.getloadavg()[0]), args.clock, jax_threads)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
