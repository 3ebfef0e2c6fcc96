"""Fuzz srcad with random plain-loop programs.

    python fuzz/run.py --count 2000 --seed 0 [--jobs 2] [--no-minimize]
    python fuzz/run.py --backend numba --nests --count 300   # loop nests (hoist.py)
    python fuzz/run.py --shapes all --count 500               # extra constructs
    python fuzz/run.py --arrays --count 300                   # whole-array programs
    python fuzz/run.py --python --count 300                   # Python's conveniences
    python fuzz/run.py --views --count 300                    # writes through views
    python fuzz/run.py --containers --count 300               # parameter containers
    python fuzz/run.py --lists --count 300                    # lists of unknown length
    python fuzz/run.py --lists --unbounded --count 300        # ... filled by while loops
    python fuzz/run.py --lists --arrays --aliasing --count 300 # entries aliasing arrays
    python fuzz/run.py --effects --count 200                  # calls made for their effect
    python fuzz/run.py --lambdas --count 200                  # half of them passed as a lambda
    python fuzz/run.py --functions --count 200                # functions passed around

Each program (fuzz/generator.py, seeds seed .. seed+count-1) is written to a module file with
its annotations (each float argument independently Const or varied, fuzz/activity_mix.py;
--no-mix: all varied), imported, and checked with `srcad.testing.check_grads` in each mode on
its own (forward, 2-lane vector and reverse against central finite differences; a program's
outcome is its worst mode's, and the summary counts each mode's). Inputs are drawn so that no
branch test or kink is within 1e-3 of its threshold and the branch trace is stable under small
perturbations; programs whose primal overflows or leaves [-1e3, 1e3] get new inputs (up to 8
draws), else are skipped.

Outcomes:
  agreed     check_grads passed
  refused    srcad raised SrcadError (fine, counted by message kind; the ActivityError of a
             Const array written with varied values is the required answer, counted apart)
  disagreed  check_grads failed, and still fails with eps=1e-5 and eps=1e-7 (a wrong derivative);
             --effects: a required refusal missing or naming another line
  fd-noise   check_grads failed with eps=1e-6 but passed with another step (reported apart)
  crashed    any other exception (from srcad or from its generated code): a bug
  timeout    no answer within --timeout seconds
  skipped    no acceptable inputs for the program

Every disagreement and crash is saved to fuzz/failures/seed_N.py (a module with `f` and
`args()`); the first --minimize-per-kind of each symptom are minimized by dropping statements
(and unwrapping if/loops, dropping helpers) while the failure keeps the same signature, and saved
as fuzz/failures/seed_N_min.py.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [p for p in (ROOT, HERE) if p not in sys.path]

from activity_mix import choose_annotations, describe, expected_refusal  # noqa: E402
from checking import MODES, SEVERITY, Timeout, run_check  # noqa: E402
from generator import generate, module_text  # noqa: E402
from grammar_effects import judge  # noqa: E402
from grammar_lambdas import through_lambda  # noqa: E402
from grammar_shapes import SHAPES  # noqa: E402
from inputs import choose_inputs  # noqa: E402
from minimize import minimize  # noqa: E402


def check_seed(seed: int, timeout: float, nests: bool = False, mix: bool = True,
               shapes: frozenset = frozenset(), arrays: bool = False, python: bool = False,
               views: bool = False, containers: bool = False, lists: bool = False,
               effects: bool = False, lambdas: bool = False, list_operations: bool = False,
               unbounded: bool = False, functions: bool = False,
               second_order: bool = False, aliasing: bool = False, records: bool = False,
               recursion: bool = False, nested: bool = False, parallel_loops: bool = False,
               parallel_nests: bool = False,
               nested_forms: bool = False,
               fused_chains: bool = False, parallel_blocks: bool = False):
    """Generate, choose inputs and check one program; `mix`: with an annotation mix
    (fuzz/activity_mix.py), else every float argument varied; `shapes`: extra constructs
    (fuzz/grammar_shapes.py); `arrays`: a whole-array program (fuzz/grammar_arrays.py);
    `python`: Python's conveniences (fuzz/grammar_python.py); `views`: writes through views
    (fuzz/grammar_views.py); `containers`: programs over a parameter container
    (fuzz/grammar_containers.py); `lists`: lists of unknown length and parts of computed
    arrays (fuzz/grammar_lists.py); `effects`: calls made for their effect, refusals required
    by line (fuzz/grammar_effects.py); `lambdas`: half the programs passed to srcad as a
    lambda calling f (fuzz/grammar_lambdas.py); `list_operations`: with `lists`, pops at an
    index, inserts, slices and the like (fuzz/grammar_list_operations.py); `unbounded` (with
    `lists`): lists appended to in loops with no bound known before them
    (fuzz/grammar_unbounded_lists.py); `functions`: programs passing functions around
    (fuzz/grammar_functions.py); `second_order`: Hessians and hvp too
    (fuzz/grammar_second_order.py); `aliasing` (with `lists`): list entries that
    alias arrays and views (fuzz/grammar_list_aliasing.py); `records`: dataclass and
    NamedTuple parameters, records built in f, bound methods (fuzz/grammar_records.py);
    `recursion`: recursive helpers (fuzz/grammar_recursion.py); `nested`: srcad.grad inside
    f (fuzz/grammar_nested.py); `parallel_loops`: loops with independent iterations
    (fuzz/grammar_parallel_loops.py); `parallel_nests`: independent loops nested in loops
    and holding loops, stacked lanes checked too (fuzz/grammar_parallel_nests.py);
    `nested_forms`: nested gradients in the forms numba's kernels pair and merge
    (fuzz/grammar_nested_forms.py); `fused_chains`: elementwise chains and reductions
    (fuzz/grammar_fused_chains.py); `parallel_blocks`: independent loops longer than a block
    (fuzz/grammar_parallel_blocks.py)."""
    program = generate(seed, nests=nests, shapes=shapes, arrays=arrays, python=python,
                       views=views, containers=containers, lists=lists, effects=effects,
                       list_operations=list_operations, unbounded=unbounded,
                       functions=functions, second_order=second_order,
                       aliasing=aliasing, records=records, recursion=recursion,
                       nested=nested, parallel_loops=parallel_loops,
                       parallel_nests=parallel_nests,
                       nested_forms=nested_forms,
                       fused_chains=fused_chains, parallel_blocks=parallel_blocks)
    values, why = choose_inputs(program)
    if values is None:
        return {"seed": seed, "category": "skipped", "signature": why, "detail": ""}
    # a required refusal needs its values varied: no annotation mix there
    annotations = choose_annotations(program, seed) if mix and not program.refusals else None
    text = module_text(program, values, annotations=annotations)
    if lambdas:
        text = through_lambda(text, program, seed)
    per_mode = {}
    category, sig, detail = run_check(text, timeout, per_mode)
    if program.refusals:
        category, sig, detail = judge(program.refusals, per_mode,
                                      os.environ.get("SRCAD_FUZZ_BACKEND", "python"))
    mixed = annotations or [a.kind for a in program.args]
    return {"seed": seed, "category": category, "signature": sig, "detail": detail,
            "annotations": describe(program, mixed),
            "modes": {mode: outcome[0] for mode, outcome in per_mode.items()},
            "expected_refusal": category == "refused" and expected_refusal(program, mixed, sig),
            "required_refusal": category == "refused" and bool(program.refusals),
            # the numba backend refuses most whole-array code by design (docs/arrays.md)
            "numba_array_refusals": [mode for mode, outcome in per_mode.items()
                                     if arrays and outcome[0] == "refused"
                                     and os.environ.get("SRCAD_FUZZ_BACKEND") == "numba"],
            "text": text if category in ("disagreed", "crashed") else None}


# --- main ---------------------------------------------------------------------------------


def _worker(job):
    seed, timeout, options = job  # options: check_seed's keyword arguments
    try:
        return check_seed(seed, timeout, **options)
    except (Exception, Timeout) as err:  # noqa: BLE001  (a generator or harness bug, reported apart)
        return {"seed": seed, "category": "harness-error",
                "signature": f"{type(err).__name__}: {err}", "detail": traceback.format_exc()}


def header(seed, category, signature, detail, minimized):
    what = "minimized" if minimized else "as generated"
    detail = detail.strip().replace('"""', "'''")
    return (f"srcad fuzz failure: seed {seed} ({what}); {category}\n\n"
            f"signature: {signature}\n\n{detail}\n\n"
            f"Reproduce: check_grads(f, *args(){_backend_arg()}) from srcad.testing.")


def _backend_arg() -> str:
    backend = os.environ.get("SRCAD_FUZZ_BACKEND", "python")
    return "" if backend == "python" else f", backend={backend!r}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--out", default=os.path.join(HERE, "failures"))
    parser.add_argument("--no-minimize", action="store_true")
    parser.add_argument("--minimize-per-kind", type=int, default=2)
    parser.add_argument("--minimize-budget", type=float, default=90.0)
    parser.add_argument("--json", help="write every outcome to this file")
    parser.add_argument("--backend", default="python", choices=["python", "numba"],
                        help="srcad backend the programs are checked with")
    parser.add_argument("--nests", action="store_true",
                        help="generate mostly loop nests (the numba backend's hoisting)")
    parser.add_argument("--no-mix", action="store_true",
                        help="every float argument varied (default: each independently Const "
                             "or varied, fuzz/activity_mix.py)")
    parser.add_argument("--shapes", default="",
                        help=f"extra constructs, comma-separated: {', '.join(SHAPES)} or all "
                             "(fuzz/grammar_shapes.py)")
    parser.add_argument("--arrays", action="store_true",
                        help="whole-array programs (fuzz/grammar_arrays.py)")
    parser.add_argument("--python", action="store_true",
                        help="programs written with Python's conveniences: comprehensions, "
                             "zip, tuples, lists, keywords, local functions, tuple returns "
                             "(fuzz/grammar_python.py)")
    parser.add_argument("--views", action="store_true",
                        help="programs writing an array through views of it: rows, columns, "
                             "blocks, a row passed to a helper, aliases (fuzz/grammar_views.py)")
    parser.add_argument("--containers", action="store_true",
                        help="programs over a dict/list parameter container "
                             "(fuzz/grammar_containers.py)")
    parser.add_argument("--lists", action="store_true",
                        help="programs over lists of unknown length (filtered comprehensions, "
                             "conditional appends) and parts of computed arrays "
                             "(fuzz/grammar_lists.py)")
    parser.add_argument("--list-operations", action="store_true",
                        help="with --lists: pops at an index, inserts, del, slice writes and "
                             "reads, pops in expressions, extend by iterables, lists of ints "
                             "(fuzz/grammar_list_operations.py)")
    parser.add_argument("--unbounded", action="store_true",
                        help="with --lists: lists appended to in loops with no bound known "
                             "before them (fuzz/grammar_unbounded_lists.py)")
    parser.add_argument("--aliasing", action="store_true",
                        help="with --lists: list entries that are arrays or views written in "
                             "place afterwards (Python lists hold references) "
                             "(fuzz/grammar_list_aliasing.py)")
    parser.add_argument("--effects", action="store_true",
                        help="calls made for their effect (np.copyto, z.fill, y.sort, "
                             "np.add.at): refused by line on derivative values "
                             "(fuzz/grammar_effects.py)")
    parser.add_argument("--lambdas", action="store_true",
                        help="half the programs passed to srcad as a lambda calling f "
                             "(fuzz/grammar_lambdas.py)")
    parser.add_argument("--functions", action="store_true",
                        help="programs passing functions around: lambdas chosen by a "
                             "conditional, called in its arms, passed to helpers, defs in "
                             "loops, `p += e` on an argument (fuzz/grammar_functions.py)")
    parser.add_argument("--records", action="store_true",
                        help="dataclass and NamedTuple parameters, records built inside f, "
                             "bound methods reading self (fuzz/grammar_records.py)")
    parser.add_argument("--recursion", action="store_true",
                        help="recursive helpers: chains, trees, splits, mutual recursion, "
                             "scratch int arrays restored (fuzz/grammar_recursion.py)")
    parser.add_argument("--nested", action="store_true",
                        help="srcad.grad of a helper inside f, once or in a loop feeding the "
                             "gradient back (fuzz/grammar_nested.py)")
    parser.add_argument("--parallel-loops", action="store_true",
                        help="loops with independent iterations, run on all iterations at "
                             "once by the python backend's forward code "
                             "(fuzz/grammar_parallel_loops.py)")
    parser.add_argument("--parallel-nests", action="store_true",
                        help="independent loops nested in loops and holding loops, stacked "
                             "lanes checked against one forward call per lane "
                             "(fuzz/grammar_parallel_nests.py)")
    parser.add_argument("--nested-forms", action="store_true",
                        help="nested gradients rebinding their operand, two in one "
                             "expression, the same one twice (fuzz/grammar_nested_forms.py)")
    parser.add_argument("--cells", action="store_true",
                        help="run each program as IPython and Jupyter run a cell, one "
                             "top-level statement at a time (fuzz/cells.py)")
    parser.add_argument("--second-order", action="store_true",
                        help="f writing its input, parts of arrays updated by constants, "
                             "early returns in loops; the Hessian and hvp checked too "
                             "(fuzz/grammar_second_order.py)")
    parser.add_argument("--fused-chains", action="store_true",
                        help="elementwise chains and reductions, broadcast rows and columns "
                             "(fuzz/grammar_fused_chains.py; numba fuses them into loops)")
    parser.add_argument("--parallel-blocks", action="store_true",
                        help="independent loops longer than a block, run a block at a time "
                             "(fuzz/grammar_parallel_blocks.py)")
    opts = parser.parse_args(argv)
    os.environ["SRCAD_FUZZ_BACKEND"] = opts.backend  # read by the workers
    if opts.cells:
        os.environ["SRCAD_FUZZ_CELLS"] = "1"  # read by the workers (fuzz/cells.py)
    shapes = frozenset(SHAPES if opts.shapes == "all" else filter(None, opts.shapes.split(",")))
    if shapes - set(SHAPES):
        parser.error(f"unknown shapes {sorted(shapes - set(SHAPES))}; known: {SHAPES}")

    start = time.time()
    options = dict(nests=opts.nests, mix=not opts.no_mix, shapes=shapes, arrays=opts.arrays,
                   python=opts.python, views=opts.views, containers=opts.containers,
                   lists=opts.lists, effects=opts.effects, lambdas=opts.lambdas,
                   list_operations=opts.list_operations, unbounded=opts.unbounded,
                   functions=opts.functions, second_order=opts.second_order,
                   aliasing=opts.aliasing, records=opts.records, recursion=opts.recursion,
                   nested=opts.nested, parallel_loops=opts.parallel_loops,
                   parallel_nests=opts.parallel_nests,
                   nested_forms=opts.nested_forms,
                   fused_chains=opts.fused_chains, parallel_blocks=opts.parallel_blocks)
    jobs = [(s, opts.timeout, options) for s in range(opts.seed, opts.seed + opts.count)]
    results = []
    # SIGTERM (`timeout`) or Ctrl-C: stop, and report (unminimized) the programs checked so far
    signal.signal(signal.SIGTERM, _interrupt)
    interrupted = False
    try:
        if opts.jobs > 1:
            import multiprocessing as mp
            with mp.get_context("fork").Pool(opts.jobs, initializer=_worker_signals,
                                              maxtasksperchild=50) as pool:
                # unordered: a program stuck in one worker does not hold back the results
                # of the others (an interruption reports all of them)
                for i, r in enumerate(pool.imap_unordered(_worker, jobs, chunksize=4)):
                    results.append(r)
                    _progress(i + 1, len(jobs), results, start)
        else:
            for i, job in enumerate(jobs):
                results.append(_worker(job))
                _progress(i + 1, len(jobs), results, start)
                if _TERMINATED:  # the KeyboardInterrupt was swallowed (see _interrupt)
                    raise KeyboardInterrupt()
    except KeyboardInterrupt:
        interrupted = True
        print(f"\ninterrupted after {len(results)} programs", file=sys.stderr)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    print(file=sys.stderr)
    results.sort(key=lambda r: r["seed"])

    counts = collections.Counter(r["category"] for r in results)
    os.makedirs(opts.out, exist_ok=True)
    failures = [r for r in results if r["category"] in ("disagreed", "crashed")]
    minimized_per_sig = collections.Counter()
    for r in failures:
        path = os.path.join(opts.out, f"seed_{r['seed']}.py")
        with open(path, "w") as fh:
            fh.write(_with_header(r["text"], header(r["seed"], r["category"], r["signature"],
                                                    r["detail"], False)))
        if opts.no_minimize or interrupted \
                or minimized_per_sig[r["signature"]] >= opts.minimize_per_kind:
            continue
        minimized_per_sig[r["signature"]] += 1
        small = minimize(r["text"], r["signature"], opts.minimize_budget)
        cat, sig, detail = run_check(small)
        with open(os.path.join(opts.out, f"seed_{r['seed']}_min.py"), "w") as fh:
            fh.write(_with_header(small, header(r["seed"], cat, sig, detail, True)))
        r["minimized"] = small

    summary = summarize(results, counts, time.time() - start)
    print(summary)
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return 1 if counts["disagreed"] or counts["crashed"] or counts["harness-error"] else 0


_TERMINATED = False


def _interrupt(signum, frame):
    # Raised inside a ctypes callback (numba calls Python back from compiled code and from
    # LLVM), the exception is printed as "Exception ignored" and the program goes on: the flag
    # stops the run after the program being checked
    global _TERMINATED
    _TERMINATED = True
    raise KeyboardInterrupt()


def _worker_signals():
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the pool terminates its workers so
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent alone handles an interruption


def _with_header(text, head):
    body = text
    return '"""' + head.rstrip() + '\n"""\n# ruff: noqa\n' + body


def _progress(done, total, results, start):
    if done % 20 and done != total:
        return
    c = collections.Counter(r["category"] for r in results)
    print(f"\r{done}/{total} {dict(c)} {time.time() - start:.0f}s", end="", file=sys.stderr,
          flush=True)


def summarize(results, counts, elapsed) -> str:
    ran = len(results) - counts["skipped"] - counts["harness-error"]
    lines = [f"srcad fuzz: {len(results)} programs generated in {elapsed:.0f} s",
             f"  checked (fwd, vec, rev vs finite differences): {ran}",
             f"  agreed:    {counts['agreed']}",
             f"  refused:   {counts['refused']}",
             f"  disagreed: {counts['disagreed']}",
             f"  crashed:   {counts['crashed']}",
             f"  timeout:   {counts['timeout']}",
             f"  fd-noise:  {counts['fd-noise']} (eps=1e-6 failed, another step agreed)",
             f"  skipped:   {counts['skipped']} (no acceptable inputs)"]
    if counts["harness-error"]:
        lines.append(f"  harness errors: {counts['harness-error']}")
    expected = sum(1 for r in results if r.get("expected_refusal"))
    if expected:
        lines.append(f"  ({expected} of the refusals: a Const array written with varied "
                     "values, ActivityError as required)")
    required = sum(1 for r in results if r.get("required_refusal"))
    if required:
        lines.append(f"  ({required} of the refusals: a call made for its effect on "
                     "derivative values, refused naming its line as required)")
    numba_arrays = collections.Counter(mode for r in results
                                       for mode in r.get("numba_array_refusals", ()))
    if numba_arrays:
        lines.append("  (refused whole-array code under numba, by design, per mode: "
                     + ", ".join(f"{mode} {numba_arrays[mode]}" for mode in MODES) + ")")
    checked = [r for r in results if r.get("modes")]
    if checked:
        lines.append("per mode (" + ", ".join(SEVERITY[::-1]) + "):")
        extra = ("hess", "jax", "jaxh", "compose", "lanes", "stacked", "sparse")
        for mode in MODES + tuple(m for m in extra if any(m in r["modes"] for r in checked)):
            per = collections.Counter(r["modes"].get(mode) for r in checked)
            lines.append(f"  {mode}: " + " / ".join(str(per[c]) for c in SEVERITY[::-1]))
    for cat in ("refused", "disagreed", "crashed", "timeout", "skipped", "harness-error"):
        sigs = collections.Counter(r["signature"] for r in results if r["category"] == cat)
        if not sigs:
            continue
        lines.append(f"{cat} by kind:")
        for sig, n in sigs.most_common():
            seeds = [r["seed"] for r in results if r["category"] == cat
                     and r["signature"] == sig][:5]
            lines.append(f"  {n:5d}  {sig}  (seeds {seeds})")
            if cat in ("disagreed", "crashed"):
                mixes = [r["annotations"] for r in results if r["category"] == cat
                         and r["signature"] == sig][:2]
                lines.append(f"         annotations: {mixes}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
