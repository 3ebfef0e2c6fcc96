"""Fuzz srcad with random plain-loop programs.

    python fuzz/run.py --count 2000 --seed 0 [--jobs 2] [--no-minimize]
    python fuzz/run.py --backend numba --nests --count 300   # loop nests (hoist.py)

Each program (fuzz/generator.py, seeds seed .. seed+count-1) is written to a module file,
imported, and checked with `srcad.testing.check_grads` in all modes (forward, 2-lane vector and
reverse against central finite differences). Inputs are drawn so that no branch test or kink is
within 1e-3 of its threshold and the branch trace is stable under small perturbations; programs
whose primal overflows or leaves [-1e3, 1e3] get new inputs (up to 8 draws), else are skipped.

Outcomes:
  agreed     check_grads passed
  refused    srcad raised SrcadError (fine, counted by message kind)
  disagreed  check_grads failed, and still fails with eps=1e-5 and eps=1e-7 (a wrong derivative)
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
import ast
import collections
import copy
import importlib.util
import itertools
import json
import math
import os
import re
import signal
import sys
import tempfile
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [p for p in (ROOT, HERE) if p not in sys.path]

from generator import Program, generate, instrument, make_inputs, module_text  # noqa: E402

import srcad  # noqa: E402
import srcad.cache  # noqa: E402
from srcad.testing import check_grads  # noqa: E402

MARGIN = 1e-3
MAX_ABS = 1e3
INPUT_DRAWS = 8

_TMP = None
_COUNTER = itertools.count()


def tmpdir() -> str:
    global _TMP
    if _TMP is None:
        _TMP = tempfile.mkdtemp(prefix="srcad_fuzz_")
    return _TMP


class Timeout(BaseException):
    """Raised by SIGALRM; a BaseException so that `except Exception` cannot swallow it."""


def _alarm(signum, frame):
    raise Timeout()


# --- plain runs ---------------------------------------------------------------------------


def plain_namespace(source: str):
    ns = {"__name__": "fuzz_plain"}
    exec(compile(instrument(source), "<fuzz plain>", "exec"), ns)
    return ns


def plain_run(ns, entry, values):
    """(outputs, margins, diffs, trace) of one instrumented run; raises what the primal raises."""
    for name in ("_MARGINS", "_DIFFS", "_TRACE"):
        del ns[name][:]
    vals = [copy.deepcopy(v) for v in values]
    out = ns[entry](*vals)
    outputs = [float(out)] if isinstance(out, float) else []
    for v in vals:
        if isinstance(v, np.ndarray):
            outputs += [float(e) for e in v.ravel()]
    return outputs, list(ns["_MARGINS"]), list(ns["_DIFFS"]), list(ns["_TRACE"])


def inputs_ok(ns, entry, values, rng) -> str | None:
    """None when the inputs are acceptable, else why not.

    Acceptable: the primal runs, its outputs are finite and within MAX_ABS, the branch trace
    (every float comparison and kink) is the same under four perturbations of size 1e-4, and
    every comparison or kink whose operands move with the inputs is at least MARGIN (relative)
    away from its threshold. (A comparison of values that do not depend on the inputs, such as
    `min(0.3, 0.1 * i)` at i = 3, is no kink for the derivative.)
    """
    with np.errstate(all="raise"):
        try:
            outputs, margins, diffs, trace = plain_run(ns, entry, values)
        except Exception as err:  # noqa: BLE001
            return f"primal raises {type(err).__name__}"
        if not all(math.isfinite(o) and abs(o) <= MAX_ABS for o in outputs):
            return "primal output not finite or too large"
        moving = [False] * len(diffs)
        for _ in range(4):
            moved = [v + 1e-4 * rng.standard_normal(np.shape(v))
                     if isinstance(v, (float, np.ndarray)) else v for v in values]
            try:
                _, _, diffs2, trace2 = plain_run(ns, entry, moved)
            except Exception as err:  # noqa: BLE001
                return f"perturbed primal raises {type(err).__name__}"
            if trace2 != trace:
                return "branch trace not stable"
            moving = [m or d != d2 for m, d, d2 in zip(moving, diffs, diffs2)]
        if any(m and margin < MARGIN for m, margin in zip(moving, margins)):
            return "near a kink"
    return None


def choose_inputs(program: Program, timeout: float = 10.0):
    """Acceptable input values for the program, or (None, why not)."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return _choose_inputs(program)
    except Timeout:
        return None, "primal too slow"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _choose_inputs(program: Program):
    ns = plain_namespace(program.source)
    reasons = []
    for draw in range(INPUT_DRAWS):
        rng = np.random.default_rng([program.seed, draw])
        values = make_inputs(program, rng)
        why = inputs_ok(ns, program.entry, values, rng)
        if why is None:
            return values, None
        reasons.append(why)
    return None, collections.Counter(reasons).most_common(1)[0][0]


# --- checking with srcad ------------------------------------------------------------------


def load_module(text: str):
    path = os.path.join(tmpdir(), f"fz_{os.getpid()}_{next(_COUNTER)}.py")
    with open(path, "w") as fh:
        fh.write(text)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module, name


def normalize_message(msg: str) -> str:
    msg = re.sub(r"^\S*:\d+: ", "", msg)
    msg = re.sub(r"`[^`]*`", "`_`", msg)
    msg = re.sub(r"'[^']*'", "'_'", msg)
    msg = re.sub(r"\d+(\.\d+)?", "N", msg)
    return msg[:140]


def _srcad_frame(tb) -> str:
    where = "?"
    for frame in traceback.extract_tb(tb):
        fn = frame.filename
        if "/srcad/" in fn or fn.startswith("<srcad"):
            base = "generated" if fn.startswith("<srcad") else os.path.relpath(fn, ROOT)
            where = f"{base}:{frame.name}"
    return where


def _failing_labels(message: str, rtol=1e-6, atol=1e-8):
    m = re.search(r"\(all: (\{.*\})\)\s*$", message, re.S)
    if not m:
        return ("?",)
    text = re.sub(r"\bnan\b", "None", m.group(1))
    text = re.sub(r"\binf\b", "1e999", text)
    try:
        results = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return ("?",)
    fd = results.get("finite differences")
    vals = [abs(v) for v in results.values() if v is not None]
    scale = max(max(vals, default=1.0), 1.0)
    bad = []
    for label, value in results.items():
        if label == "finite differences":
            continue
        if value is None or fd is None or not abs(value - fd) <= atol + rtol * scale:
            bad.append(label)
    return tuple(bad)


def _check(f, args, eps, timeout):
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        with np.errstate(all="ignore"):
            check_grads(f, *args, eps=eps,
                        backend=os.environ.get("SRCAD_FUZZ_BACKEND", "python"))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def run_check(text: str, timeout: float = 20.0):
    """Outcome of one program module: (category, signature, detail)."""
    module, name = load_module(text)
    try:
        f, args = module.f, module.args
        try:
            _check(f, args(), 1e-6, timeout)
            return "agreed", None, ""
        except srcad.SrcadError as err:
            return "refused", f"{type(err).__name__}: {normalize_message(str(err))}", str(err)
        except Timeout:
            return "timeout", "timeout", f"no answer within {timeout} s"
        except AssertionError as err:
            first = str(err)
            labels = _failing_labels(first)
            for eps in (1e-5, 1e-7):
                try:
                    _check(f, args(), eps, timeout)
                    return "fd-noise", None, first
                except AssertionError:
                    pass
            kind = ("AD modes disagree with each other"
                    if 0 < len(labels) < 4 else "all AD modes disagree with FD")
            return "disagreed", f"{kind}: {', '.join(labels)}", first
        except Exception as err:  # noqa: BLE001
            where = _srcad_frame(err.__traceback__)
            sig = f"{type(err).__name__} at {where}: {normalize_message(str(err))}"
            detail = "".join(traceback.format_exception(type(err), err, err.__traceback__)[-6:])
            return "crashed", sig, detail
    finally:
        sys.modules.pop(name, None)
        srcad.cache.clear()


def check_seed(seed: int, timeout: float, nests: bool = False):
    program = generate(seed, nests=nests)
    values, why = choose_inputs(program)
    if values is None:
        return {"seed": seed, "category": "skipped", "signature": why, "detail": ""}
    text = module_text(program, values)
    category, sig, detail = run_check(text, timeout)
    return {"seed": seed, "category": category, "signature": sig, "detail": detail,
            "text": text if category in ("disagreed", "crashed") else None}


# --- minimization -------------------------------------------------------------------------


def _split(text: str):
    """(program source, args() source) of a failure module."""
    tree = ast.parse(text)
    keep = [n for n in tree.body if not (isinstance(n, ast.FunctionDef) and n.name == "args")
            and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    args = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "args"]
    return ast.Module(keep, []), ast.unparse(args[0])


def _stmt_lists(tree):
    """Every statement list inside function bodies, as (owner, field)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.If | ast.For | ast.While):
            for fieldname in ("body", "orelse"):
                body = getattr(node, fieldname, None)
                if body:
                    yield node, fieldname


def _candidates(tree):
    """Smaller variants of the tree (fresh copies), biggest cuts first."""
    n_top = len(tree.body)
    for k in range(n_top):
        node = tree.body[k]
        if isinstance(node, ast.FunctionDef) and node.name != "f":
            t = copy.deepcopy(tree)
            del t.body[k]
            yield t
    lists = list(_stmt_lists(tree))
    for li in range(len(lists)):
        owner, fieldname = lists[li]
        for si in range(len(getattr(owner, fieldname))):
            # drop the statement
            t = copy.deepcopy(tree)
            o, fname = list(_stmt_lists(t))[li]
            body = getattr(o, fname)
            stmt = body[si]
            del body[si]
            if not body and fname == "body":
                body.append(ast.Pass())
            yield t
            # unwrap a compound statement into its parts
            if isinstance(stmt, ast.If | ast.For | ast.While):
                for part in ("body", "orelse"):
                    inner = getattr(stmt, part)
                    if inner:
                        t = copy.deepcopy(tree)
                        o, fname = list(_stmt_lists(t))[li]
                        body = getattr(o, fname)
                        body[si:si + 1] = copy.deepcopy(inner)
                        yield t
            # simplify an if test to True/False
            if isinstance(stmt, ast.If) and stmt.orelse:
                t = copy.deepcopy(tree)
                o, fname = list(_stmt_lists(t))[li]
                getattr(o, fname)[si].orelse = []
                yield t


def _expr_sites(tree):
    """(parent, field, index) of every expression inside a function body, in walk order."""
    for func in tree.body:
        if not isinstance(func, ast.FunctionDef):
            continue
        for node in ast.walk(func):
            for fieldname, value in ast.iter_fields(node):
                if isinstance(value, ast.expr):
                    yield node, fieldname, None
                elif isinstance(value, list):
                    for i, v in enumerate(value):
                        if isinstance(v, ast.expr):
                            yield node, fieldname, i


def _get(parent, fieldname, index):
    value = getattr(parent, fieldname)
    return value if index is None else value[index]


def _set(parent, fieldname, index, new):
    if index is None:
        setattr(parent, fieldname, new)
    else:
        getattr(parent, fieldname)[index] = new


def _replacements(node):
    """Smaller expressions that might stand for `node`: its operands."""
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.Call):
        return list(node.args)
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    return []


def _expr_candidates(tree):
    sites = list(_expr_sites(tree))
    for k, site in enumerate(sites):
        for r in range(len(_replacements(_get(*site)))):
            t = copy.deepcopy(tree)
            tsite = list(_expr_sites(t))[k]
            node = _get(*tsite)
            _set(*tsite, _replacements(node)[r])
            yield t


def minimize(text: str, signature: str, budget: float = 90.0, timeout: float = 10.0):
    """Drop statements while the failure keeps its signature; returns the smallest text."""
    tree, args_src = _split(text)
    values_module, vname = load_module(text)
    values = [a.value if hasattr(a, "value") else a for a in values_module.args()]
    sys.modules.pop(vname, None)
    entry = "f"
    deadline = time.time() + budget

    def still_fails(candidate_tree) -> bool:
        try:
            src = ast.unparse(candidate_tree)
            compile(src, "<candidate>", "exec")
        except (SyntaxError, ValueError):
            return False
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, 5.0)  # dropping `k += 1` can make a loop endless
        try:
            ns = plain_namespace(src)
            if inputs_ok(ns, entry, values, np.random.default_rng(0)) is not None:
                return False
        except (Exception, Timeout):  # noqa: BLE001
            return False
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        cand_text = src + "\n\n\n" + args_src + "\n"
        try:
            category, sig, _ = run_check(cand_text, timeout)
        except (Exception, Timeout):  # noqa: BLE001
            return False
        return category in ("disagreed", "crashed") and sig == signature

    changed = True
    while changed and time.time() < deadline:
        changed = False
        current = ast.unparse(tree)
        seen = {current}
        for cand in itertools.chain(_candidates(tree), _expr_candidates(tree)):
            if time.time() >= deadline:
                break
            text_c = ast.unparse(cand)
            if text_c in seen or len(text_c) >= len(current):  # no progress (e.g. pass -> pass)
                continue
            seen.add(text_c)
            if still_fails(cand):
                tree = cand
                changed = True
                break
    src = ast.unparse(tree)
    return src + "\n\n\n" + args_src + "\n"


# --- main ---------------------------------------------------------------------------------


def _worker(job):
    seed, timeout, nests = job
    try:
        return check_seed(seed, timeout, nests)
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
    opts = parser.parse_args(argv)
    os.environ["SRCAD_FUZZ_BACKEND"] = opts.backend  # read by the workers

    start = time.time()
    jobs = [(s, opts.timeout, opts.nests) for s in range(opts.seed, opts.seed + opts.count)]
    results = []
    # SIGTERM (`timeout`) or Ctrl-C: stop, and report (unminimized) the programs checked so far
    signal.signal(signal.SIGTERM, _interrupt)
    interrupted = False
    try:
        if opts.jobs > 1:
            import multiprocessing as mp
            with mp.get_context("fork").Pool(opts.jobs, initializer=_worker_signals,
                                              maxtasksperchild=50) as pool:
                for i, r in enumerate(pool.imap(_worker, jobs, chunksize=4)):
                    results.append(r)
                    _progress(i + 1, len(jobs), results, start)
        else:
            for i, job in enumerate(jobs):
                results.append(_worker(job))
                _progress(i + 1, len(jobs), results, start)
    except KeyboardInterrupt:
        interrupted = True
        print(f"\ninterrupted after {len(results)} programs", file=sys.stderr)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    print(file=sys.stderr)

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


def _interrupt(signum, frame):
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
    for cat in ("refused", "disagreed", "crashed", "timeout", "skipped", "harness-error"):
        sigs = collections.Counter(r["signature"] for r in results if r["category"] == cat)
        if not sigs:
            continue
        lines.append(f"{cat} by kind:")
        for sig, n in sigs.most_common():
            seeds = [r["seed"] for r in results if r["category"] == cat
                     and r["signature"] == sig][:5]
            lines.append(f"  {n:5d}  {sig}  (seeds {seeds})")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
