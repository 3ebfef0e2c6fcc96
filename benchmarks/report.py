"""The report: the targets table, the markdown of docs/benchmarks.md, the chart and the printed
summary, built from a Suite's rows (nothing here times anything).
"""

from __future__ import annotations

import datetime
import importlib.metadata
import importlib.util
import os
import platform
import subprocess
import sys
from pathlib import Path

import interface_cost
import mixture_chart
import problem_arrays
import problem_first_derivative
import problem_parallel
import problem_special
import problem_vmap
from harness import ROOT, TOL, TOL_FD, Suite, fmt_ratio, ms, ratio, us
from problem_jacobian import (
    J_CHUNK,
    J_PREPARED,
    J_PREPARED_100,
    J_PRIMAL,
    J_SEPARATE,
    J_STACKED,
    S3,
    SQ_PREPARED_100,
    SQ_RAW,
)
from problem_mixture import (
    JAX,
    NUMBA_ADJ,
    PY_PRIMAL,
    PY_PRIMAL_HELPER,
    S1,
    SRCAD_NUMBA,
    SRCAD_PREP_GRAD,
    SRCAD_REV,
)
from problem_transform import S4
from problem_vector import (
    S2,
    V_DEFAULT,
    V_NUMBA,
    V_NUMBA_ONE,
    V_ONE,
    V_SEPARATE,
    V_STACKED,
    V_UNROLLED,
)


def targets(suite: Suite, sizes):
    """[(description, measured ratio or None, target text, met: True/False/None, why)]"""
    out = []
    small = "N=500, K=4"

    def get(section, case, name):
        return suite.find(section, case, name)

    def target(desc, value, limit, why_missing=""):
        met = None if value is None else value <= limit
        out.append((desc, value, f"<= {limit:g}", met, why_missing))

    for N, K in sizes:
        case = f"N={N}, K={K}"
        rev = get(S1, case, SRCAD_REV)
        interleaved = suite.extra.get(f"reverse vs primal {case}")
        target(f"srcad reverse (python) / python primal, same function (helper form), {case}"
               + (", timed interleaved" if interleaved else ""),
               interleaved or ratio(rev, get(S1, case, PY_PRIMAL_HELPER)), 3)
        out.append((f"srcad reverse (python) / python primal, inline form, {case}",
                    ratio(rev, get(S1, case, PY_PRIMAL)), "(information)", None, ""))
    target("vector W=12 (one call) / 12 separate Forward calls, mixture (500, 4), "
           "timed interleaved", suite.extra.get("vector vs separate"), 0.7)
    out.append(("vector W=12 unrolled / stacked, mixture (500, 4)",
                ratio(get(S2, small, V_UNROLLED), get(S2, small, V_STACKED)), "(information)",
                None, ""))
    out.append(("vector W=12 (one call) / one Forward call, python backend",
                ratio(get(S2, small, V_DEFAULT), get(S2, small, V_ONE)), "(information)", None,
                ""))
    target("vector W=100 stacked / 100 separate Forward calls, scratch-cache jacobian (n=100)",
           ratio(get(S3, "n=100", J_STACKED), get(S3, "n=100", J_SEPARATE)), 0.15)
    out.append(("chunks of 16 / 100 separate Forward calls, scratch-cache jacobian (n=100)",
                ratio(get(S3, "n=100", J_CHUNK), get(S3, "n=100", J_SEPARATE)), "(information)",
                None, ""))
    fresh = suite.extra.get("fresh reverse, python backend")
    met = None if fresh is None else fresh[0] < 0.05
    out.append(("first-call transformation, mixture reverse (python), median of fresh, "
                "in a process importing srcad alone",
                None, "< 50 ms", met, "" if fresh is None else f"{ms(fresh[0])} ms"))
    def race(label, contender, row_name, N, K, goal):
        case = f"N={N}, K={K}"
        row = get(S1, case, SRCAD_NUMBA)
        interleaved = suite.extra.get(f"numba vs {label} {case}")
        if interleaved is not None:
            target(f"srcad numba reverse / {contender}, ({N}, {K}), timed interleaved",
                   interleaved, goal, _why(row))
        else:
            target(f"srcad numba reverse / {contender}, ({N}, {K})",
                   ratio(row, get(S1, case, row_name)), goal, _why(row))

    race("jax", "jax.jit(grad)", JAX, *sizes[0], 1.0)
    race("hand", "numba hand adjoint", NUMBA_ADJ, *sizes[0], 1.2)
    for N, K in sizes[1:]:
        race("jax", "jax.jit(grad)", JAX, N, K, 1.0)
    for N, K in sizes[1:]:  # no target there: how close to the speed of light
        hand = suite.extra.get(f"numba vs hand N={N}, K={K}")
        out.append((f"srcad numba reverse / numba hand adjoint, ({N}, {K}), timed interleaved",
                    hand, "(information)", None, ""))
    numba_vec = get(S2, small, V_NUMBA)
    target("numba vector W=12 (one call) / one numba Forward call",
           ratio(numba_vec, get(S2, small, V_NUMBA_ONE)), 3, _why(numba_vec))
    allocations = suite.extra.get("allocations")
    if allocations:
        worst = max(allocations.values())
        out.append(("allocations inside the compiled code per prepared numba call (numba's "
                    "NRT statistics; " + ", ".join(allocations) + ")", None, "0", worst == 0,
                    ", ".join(f"{v:g}" for v in allocations.values())))
    prep = get(S1, small, SRCAD_PREP_GRAD)
    target("prepared srcad.gradient / raw srcad.autodiff reverse, mixture (500, 4), "
           "timed interleaved", suite.extra.get(f"overhead {small}"), 1.05, _why(prep))
    sq = get(S3, "elementwise x**2, n=100", SQ_PREPARED_100)
    out.append(("prepared srcad.jacobian chunk=100 / raw autodiff W=100 stacked, elementwise x**2",
                ratio(sq, get(S3, "elementwise x**2, n=100", SQ_RAW)), "(information)", None,
                _why(sq)))
    jp = get(S3, "n=100", J_PREPARED)
    out.append(("prepared srcad.jacobian (default chunk) / raw W=100 stacked, "
                "scratch-cache jacobian",
                ratio(jp, get(S3, "n=100", J_STACKED)), "(information)", None, _why(jp)))
    jp = get(S3, "n=100", J_PREPARED_100)
    out.append(("prepared srcad.jacobian chunk=100 / raw W=100 stacked, scratch-cache jacobian",
                ratio(jp, get(S3, "n=100", J_STACKED)), "(information)", None, _why(jp)))
    out += problem_arrays.targets(suite)
    # a target whose problem was not run (a partial run) is left out, not listed as "not run"
    return [t for t in out
            if t[1] is not None or t[3] is not None or (t[4] and t[4] != "not run")]


def _why(row):
    if row is None:
        return "not run"
    return "" if row.ok else row.status


def machine_info(pinned_to):
    def version(dist):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        affinity = sorted(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    ncpu = os.cpu_count()
    if affinity is None:
        pinned = "unknown (no os.sched_getaffinity)"
    elif len(affinity) < (ncpu or 0):
        pinned = f"yes: CPUs {affinity} of {ncpu}" + (" (--pin)" if pinned_to is not None else "")
    else:
        pinned = f"no: may run on all {ncpu} CPUs {affinity}"
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
        rev += " + uncommitted changes" if dirty else ""
    except (OSError, subprocess.CalledProcessError):
        rev = "unknown"
    info = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {cpu}, {ncpu} CPUs",
        "os": platform.platform(),
        "pinned": pinned,
        "load average at start": " ".join(f"{v:.2f}" for v in os.getloadavg()),
        # NumPy's BLAS threads: on a loaded machine a multi-threaded BLAS makes the NumPy-based
        # contenders' times erratic (the array programs' matrix products)
        "BLAS threads": os.environ.get("OPENBLAS_NUM_THREADS", "OpenBLAS default (all CPUs; "
                                       "OPENBLAS_NUM_THREADS unset)"),
        # an OPENBLAS_CORETYPE naming an older CPU family makes the products of the NumPy-based
        # contenders and of srcad's numba code slower (docs/whole_array_numba.md); XLA's are not
        "BLAS kernels": (f"OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']}"
                         if os.environ.get("OPENBLAS_CORETYPE") else
                         "OpenBLAS's choice for the CPU (OPENBLAS_CORETYPE unset)"),
        "python": sys.version.split()[0],
        "srcad": f"{version('srcad')} (git {rev})",
    }
    for dist in ("numpy", "jax", "jaxlib", "numba", "llvmlite", "autograd", "matplotlib"):
        info[dist] = version(dist)
    return info


def markdown(suite: Suite, info, sizes, wall):
    cfg = suite.cfg
    lines = ["# Benchmarks", "",
             "Generated by `make bench` (`benchmarks/run.py`); do not edit by hand. "
             "Median microseconds per call from ONE run: shared machines are noisy, so compare "
             "ratios within this run, not absolute times across runs.", "",
             # the site draws the ratios to JAX from this page's tables (scripts/docs_charts.py)
             "<!-- generated: chart benchmarks -->", "",
             "![Median time per gradient call of each contender, per problem size (log scale)]"
             "(benchmarks.png)", ""]
    if cfg.quick:
        lines += ["**Quick smoke run (`--quick`): few repeats, numbers are rough.**", ""]
    lines += ["## Machine", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in info.items()]
    lines += [f"| run | {'quick' if cfg.quick else 'full'}: {cfg.repeats} samples (>= "
              f"{cfg.min_sample * 1e3:g} ms each, <= {cfg.budget:g} s per contender), "
              f"{cfg.warmup} warm-up calls; N=100000: >= {cfg.large_repeats} samples, "
              f"{cfg.large_warmup} warm-up; wall time {wall:.0f} s |",
              "| load average at end | " + " ".join(f"{v:.2f}" for v in os.getloadavg())
              + " |", ""]

    lines += ["## Targets", "", "| ratio | measured | target | met |", "|---|---|---|---|"]
    for desc, value, goal, met, why in targets(suite, sizes):
        shown = fmt_ratio(value) if value is not None else (why if met is not None else "-")
        verdict = {True: "yes", False: "**no**", None: "n/a"}[met]
        if met is None and why and value is None:
            verdict = f"skipped: {why}"
        lines.append(f"| {desc} | {shown} | {goal} | {verdict} |")
    lines.append("")

    lines += [f"## {S1}", "", "Median us per call (ratio to the python primal, inline math.exp).",
              ""]
    cases = [f"N={N}, K={K}" for N, K in sizes]
    lines += ["| method | " + " | ".join(cases) + " |", "|---|" + "---|" * len(cases)]
    names = list(dict.fromkeys(r.name for r in suite.rows if r.section == S1))
    for name in names:
        cells = []
        for case in cases:
            row = suite.find(S1, case, name)
            base = suite.find(S1, case, PY_PRIMAL)
            if row is None:
                cells.append("not run")
            elif row.ok:
                cells.append(f"{us(row.median)} ({fmt_ratio(ratio(row, base))})")
            else:
                cells.append(row.status)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")
    for case in cases:
        lines += _detail_table(suite, S1, case, [PY_PRIMAL, NUMBA_ADJ, JAX])

    for section in (S2, S3):
        lines += [f"## {section}", ""]
        for case in dict.fromkeys(r.case for r in suite.rows if r.section == section):
            base = {S2: [V_SEPARATE, V_ONE], S3: [J_SEPARATE, J_PRIMAL]}[section]
            if case.startswith("elementwise"):
                base = [SQ_RAW]
            lines += _detail_table(suite, section, case, base)

    lines += [f"## {S4}", "", "| what | median ms | min ms |", "|---|---|---|"]
    for key, value in suite.extra.items():
        if key.startswith("fresh "):
            median, low = value
            lines.append(f"| first call after `srcad.build.cache.clear()`, {key[6:]} (transform + "
                         f"compile + one call) | {ms(median)} | {ms(low)} |")
    stages = suite.extra.get("stages of the first call, reverse, python backend", {})
    for stage, seconds in stages.items():
        lines.append(f"| stage `{stage}` of that first call (reverse, python backend; median) "
                     f"| {ms(seconds)} | |")
    cold = suite.extra.get("cold")
    if cold:
        lines.append(f"| very first srcad call in the process (cold imports), reverse | "
                     f"{ms(cold)} | |")
    if "numba compile" in suite.extra:
        lines.append(f"| numba compile time of generated code | {suite.extra['numba compile']} "
                     "| |")
    lines += ["", "First calls of every contender (jit compilation included) are in the "
              "'first call' columns above.", ""]

    lines += _arrays_section(suite)
    lines += ["## Method", "",
              "- Same data for every contender (`make_problem` of examples/mixture.py, seed 42).",
              f"- Every derivative is checked before timing: max abs error <= {TOL:g} x max "
              f"|reference| (finite differences: {TOL_FD:g}); references are the NumPy analytic "
              "gradient (mixture) and the exact recurrence (scratch-cache jacobian). A contender "
              "that disagrees is reported and not timed.",
              "- Timed closures bind functions and data as locals; the first call is timed "
              "separately; warm-up calls follow; the median (and min) over samples is reported.",
              "- srcad reverse zeroes `dparams` inside the timed call (it accumulates). JAX runs "
              "in float64 (`jax_enable_x64`) and is timed to `block_until_ready()`.",
              "- Finite differences use central steps h = 6e-6 max(1, |p_i|).",
              "- Array programs (benchmarks/array_kernels.py): the reference is a hand-written "
              "NumPy gradient (backpropagation by hand), itself checked against central "
              "differences by the test suite; gradients are compared as one flat vector.",
              "- Skipped contenders (not installed / not implemented) are listed, not dropped.",
              ""]
    lines += interface_cost.markdown_lines(suite)
    lines += problem_parallel.markdown_lines(suite)
    lines += problem_vmap.markdown_lines(suite)
    lines += problem_special.markdown_lines(suite)
    lines += problem_first_derivative.markdown_lines(suite)
    return "\n".join(lines)


def _arrays_section(suite):
    cases = suite.extra.get("arrays cases")
    if not cases:
        return []
    lines = [f"## {problem_arrays.S5}", "",
             "Loss gradients; every contender checked against the hand-written NumPy gradient "
             "before timing. The target ratios are in the targets table (to the NumPy-based "
             "contenders timed interleaved; to JAX, ratios of medians).",
             ""]
    for case in cases.values():
        lines += _detail_table(suite, problem_arrays.S5, case, [problem_arrays.HAND])
    tape = suite.extra.get("arrays rnn tape")
    if tape:
        lines += [f"Reverse-mode tape of the RNN ({cases['rnn']}): "
                  + problem_arrays.describe_tape(tape) + ".", ""]
    return lines


def _detail_table(suite, section, case, bases):
    rows = [r for r in suite.rows if r.section == section and r.case == case]
    base_rows = [suite.find(section, case, b) for b in bases]
    head = " | ".join(f"x {b}" for b in bases)
    lines = [f"### {case}" if section == S1 or len(bases) else "", "",
             f"| method | median us | min us | {head} | first call ms | samples | rel. err |",
             "|---|---|---|" + "---|" * len(bases) + "---|---|---|"]
    for r in rows:
        if r.ok:
            ratios = " | ".join(fmt_ratio(ratio(r, b)) for b in base_rows)
            note = f" ({r.note})" if r.note else ""
            err = "-" if r.err is None else f"{r.err:.1e}"
            lines.append(f"| {r.name}{note} | {us(r.median)} | {us(r.low)} | {ratios} | "
                         f"{ms(r.first)} | {r.repeats}x{r.number} | {err} |")
        else:
            lines.append(f"| {r.name} | {r.status} | |" + " |" * len(bases) + " | | |")
    return lines + [""]


def chart(suite: Suite, sizes, path):
    """Draw docs/benchmarks.png from this run (benchmarks/mixture_chart.py draws it)."""
    if importlib.util.find_spec("matplotlib") is None:
        print("matplotlib not installed: no chart")
        return False
    cases = {}
    for N, K in sizes:
        case = f"N={N}, K={K}"
        cases[case] = [(r.name, r.median) for r in suite.rows
                       if r.section == S1 and r.case == case and r.ok]
    mixture_chart.draw(cases, path)
    return True


def print_summary(suite: Suite, sizes):
    print("\nTargets")
    for desc, value, goal, met, why in targets(suite, sizes):
        verdict = {True: "met", False: "NOT met", None: ""}[met]
        shown = fmt_ratio(value) if value is not None else why
        print(f"  {desc:<82} {shown:>10}  {goal:<14} {verdict}")
