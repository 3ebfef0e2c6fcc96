"""Mutation check: do the tests catch a wrong derivative rule or a broken mechanism?

Each mutant is a copy of the source tree in a temporary folder with one deliberate bug: a
rule of the derivative table (`srcad/rules/table.py`, and the operator rules in
`srcad/rules/rule_type.py`) with a sign flipped, a term dropped or its operands swapped, or one
of the mechanisms whose breakage would be silently wrong (loop order of the reverse sweep, tape
order, cache and fast-path staleness checks, ForwardWithPrimal's order, buffers zeroed per
call, `check_grads`' tolerance, ...). The fast test subset (`FAST`, well under a minute) runs
against each copy in a subprocess; a mutant is killed when a test fails. The worktree is never
modified. Mutants listed in `EQUIVALENT` compute the same derivatives as the original (say
why there); any other survivor is a hole in the tests.

    python scripts/mutate.py                 # every mutant (make mutate)
    python scripts/mutate.py --list          # list the mutants
    python scripts/mutate.py --only sin      # mutants whose label contains "sin"

Exit status 1 when a mutant that is not listed as equivalent survives.
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COPIED = ["srcad", "tests", "fuzz", "examples", "pyproject.toml"]
# The fast subset: these test files without their numba tests (numba compiles from scratch in
# each copy) and without the tests marked slow (left out of `make test` too); rules and checks
# first, so most mutants die early. Files are named, not pathed: each is found wherever it sits
# under tests/.
FAST_FILES = ["test_rules.py", "test_check_grads.py", "test_repeated_calls.py",
              "test_api.py", "test_cache.py", "test_fast_path.py",
              "test_reverse_constructs.py", "test_reverse_order.py",
              "test_seeds.py", "test_tape.py", "test_operators.py",
              "test_refusals.py", "test_hostile_inputs.py",
              "test_mixture_reference.py", "test_golden.py", "test_fuzz.py"]
FAST = ["-m", "not slow", "-k", "not numba", "-x", "-q", "-p", "no:cacheprovider"]
TIMEOUT = 300  # seconds per mutant; a mutant that hangs the tests counts as killed

# label -> why the mutant computes exactly what the original computes
_BY_BRANCH = ("the transformations differentiate `b if c else d` branch by branch "
              "(srcad/transform/expressions.py: the seed or tangent goes to the taken branch); "
              "of the select rule they read only its name and which partial is None")
EQUIVALENT = {
    "rule add: swap operands": "both partials are `g`",
    "rule select: flip the sign of body": _BY_BRANCH,
    "rule select: drop a term of body": _BY_BRANCH,
    "rule select: flip the sign of orelse": _BY_BRANCH,
    "rule select: drop a term of orelse": _BY_BRANCH,
    "rule select: swap operands": _BY_BRANCH,
}


@dataclass
class Mutant:
    label: str
    path: str  # relative to ROOT
    text: str  # the mutated file


# -- the rule table ------------------------------------------------------------------------------

def _rule_calls(tree):
    """(name, operands, [partial Constant nodes]) of every `rule(...)` / `_r.rule(...)` call."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (
                getattr(node.func, "id", None) == "rule"
                or getattr(node.func, "attr", None) == "rule"):
            name, operands = node.args[0].value, node.args[1].value.split()
            yield name, operands, node.args[2:]


def _replace(text: str, node: ast.AST, new: str) -> str:
    lines = text.splitlines(keepends=True)
    start = sum(len(line) for line in lines[:node.lineno - 1]) + node.col_offset
    end = sum(len(line) for line in lines[:node.end_lineno - 1]) + node.end_col_offset
    return text[:start] + new + text[end:]


def _drop_term(partial: str) -> str:
    """The partial without its last factor or term (`g * y` -> `g`, `-g * math.sin(x)` ->
    `-g`, a conditional -> its first branch, `g` -> `0.0`)."""
    expr = ast.parse(partial, mode="eval").body
    if isinstance(expr, ast.BinOp):
        return ast.unparse(expr.left)
    if isinstance(expr, ast.IfExp):
        return ast.unparse(expr.body)
    return "0.0"


def _swap_operand(operands, partial: str) -> str | None:
    """A one-operand partial with the operand and the result swapped (`g * ans` ->
    `g * x`), or None when it reads neither."""
    x = operands[0]
    tree = ast.parse(partial, mode="eval")
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    old, new = (x, "ans") if x in names else ("ans", x) if "ans" in names else (None, None)
    if old is None:
        return None

    class Swap(ast.NodeTransformer):
        def visit_Name(self, node):
            return ast.Name(id=new, ctx=node.ctx) if node.id == old else node
    return ast.unparse(Swap().visit(tree))


def rule_mutants(path: str) -> list[Mutant]:
    text = (ROOT / path).read_text()
    out = []
    for name, operands, partials in _rule_calls(ast.parse(text)):
        for k, node in enumerate(partials):
            if not isinstance(node, ast.Constant) or node.value is None:
                continue
            which = f" of {operands[k]}" if len(operands) > 1 else ""
            out.append(Mutant(f"rule {name}: flip the sign{which}", path,
                              _replace(text, node, repr(f"-({node.value})"))))
            out.append(Mutant(f"rule {name}: drop a term{which}", path,
                              _replace(text, node, repr(_drop_term(node.value)))))
        live = [(k, n) for k, n in enumerate(partials)
                if isinstance(n, ast.Constant) and n.value is not None]
        if len(live) >= 2:  # swap the first two partials that exist (x's <-> y's)
            (_, a), (_, b) = live[0], live[1]
            swapped = text
            for node, other in [(b, a), (a, b)]:  # the later one first: offsets stay valid
                swapped = _replace(swapped, node, repr(other.value))
            out.append(Mutant(f"rule {name}: swap operands", path, swapped))
        elif len(live) == 1:
            new = _swap_operand(operands, live[0][1].value)
            if new is not None:
                out.append(Mutant(f"rule {name}: swap operands", path,
                                  _replace(text, live[0][1], repr(new))))
    return out


# -- mechanisms ----------------------------------------------------------------------------------

# (label, file, [(old, new)]): each `old` must occur exactly once in the file.
MECHANISMS = [
    ("reverse sweep visits loops in forward order", "srcad/transform/tapes.py",
     [('return [], gast.Call(func=S.name("reversed"), args=[span], keywords=[])',
       "return [], span")]),
    ("tape pops first-in first-out", "srcad/transform/tapes.py",
     [('pop = S.call(f"{self.names[tape]}.pop")',
       'pop = S.call(f"{self.names[tape]}.pop", S.const(0))')]),
    ("simplify: x * -1 loses its sign", "srcad/transform/simplify.py",
     [("            if b == -1:\n                return gast.UnaryOp(op=gast.USub(), "
       "operand=node.left)",
       "            if b == -1:\n                return node.left")]),
    ("simplify: a + -b becomes a + b", "srcad/transform/simplify.py",
     [("flipped = gast.Sub() if op is gast.Add else gast.Add()",
       "flipped = gast.Add() if op is gast.Add else gast.Sub()")]),
    ("activity: one pass, no fixpoint (a value varied by a later statement stays constant)",
     "srcad/analysis/activity.py",
     [("                varied.add(target)\n                changed = True\n",
       "                varied.add(target)\n")]),
    ("activity: a Const array receiving active values is not refused",
     "srcad/analysis/activity.py",
     [("if target in const_arrays and reads & varied and reads - {target}:", "if False:")]),
    ("recording: a name rebound later is read back as it is at the end",
     "srcad/analysis/recording.py",
     [("        if name not in self.defs_after(stmt, binds_only=True):", "        if True:")]),
    ("recording: an array written later is read back as it is at the end",
     "srcad/analysis/recording.py",
     [("if isinstance(array, gast.Name) and array.id in self.defs_after(stmt):", "if False:")]),
    ("reverse: an overwritten variable keeps its adjoint", "srcad/transform/reverse/transform.py",
     [("            rev += diff.adjoint(expr, seed_read, accumulate, prepared)\n"
       "            rev.append(self._zero(target, subst, old_shape))",
       "            rev += diff.adjoint(expr, seed_read, accumulate, prepared)")]),
    ("cache entries never go stale", "srcad/build/cache.py",
     [("if entry is not None and entry.is_current():", "if entry is not None:"),
      ("if entry is None or not entry.is_current():", "if entry is None:")]),
    ("forward fast path skips the staleness check", "srcad/build/differentiate.py",
     [("elif plan.compiled.is_current():", "elif True:")]),
    ("reverse fast path skips the staleness check", "srcad/build/plans.py",
     [("lines += _current(compiled, env)", "lines += []")]),
    ("fast path ignores the mode of the plan", "srcad/build/differentiate.py",
     [("if plan.mode is not mode or plan.code is not code", "if plan.code is not code")]),
    ("fast path ignores the shadow's shape", "srcad/build/plans.py",
     [('lines += [f"    if s{i}.shape != v{i}.shape:", fail]', "pass")]),
    ("ForwardWithPrimal returns (value, tangent)", "srcad/build/differentiate.py",
     [("return (tangent, value) if mode.with_primal else tangent",
       "return (value, tangent) if mode.with_primal else tangent")]),
    ("stacked batch shadows are not copied back", "srcad/build/arguments.py",
     [("shadow[...] = stacked[k]", "pass")]),
    ("prepared gradient does not zero its output", "srcad/build/plans.py",
     [('"    x_bar.fill(0.0)"]', '"    pass"]')]),
    ("engine does not zero the gradient buffer", "srcad/build/engines.py",
     [("            x_bar.fill(0.0)\n", "            pass\n")]),
    ("forward engine does not zero its output lanes", "srcad/build/engines.py",
     [("        for buffer in self.zeroed:\n            buffer.fill(0.0)\n"
       "        if self.input_copy is not None:\n            self.input_copy.refill()\n"
       "        result =",
       "        for buffer in self.zeroed:\n            pass\n"
       "        if self.input_copy is not None:\n            self.input_copy.refill()\n"
       "        result =")]),
    ("operators let f write into a Constant", "srcad/build/engines.py",
     [('if slot.role == "constant" and i in compiled.written:', "if False:")]),
    ("check_grads tolerance 1e3", "srcad/testing.py",
     [("rtol=1e-6, atol=0.0, eps=1e-6", "rtol=1e3, atol=0.0, eps=1e-6")]),
    ("check_grads ignores the finite differences' error bound", "srcad/testing.py",
     [("return abs(value - fd) <= rtol * max(abs(value), abs(fd)) + fd_error + atol",
       "return abs(value - fd) <= rtol * max(abs(value), abs(fd)) + 1e3 * fd_error + atol")]),
    ("check_grads does not compare the primal", "srcad/testing.py",
     [("    if not same(out0, value):", "    if False:")]),
]


def mechanism_mutants() -> list[Mutant]:
    out = []
    for label, path, edits in MECHANISMS:
        text = (ROOT / path).read_text()
        for old, new in edits:
            count = text.count(old)
            if count != 1:
                raise SystemExit(f"mutant {label!r}: {old!r} occurs {count} times in {path} "
                                 "(the source changed: update MECHANISMS)")
            text = text.replace(old, new)
        out.append(Mutant(label, path, text))
    return out


def all_mutants() -> list[Mutant]:
    return (rule_mutants("srcad/rules/table.py") + rule_mutants("srcad/rules/rule_type.py")
            + mechanism_mutants())


# -- running -------------------------------------------------------------------------------------

def run_tests(tree: Path) -> tuple[bool, str]:
    """(passed, last lines of the output) of the fast subset in `tree`."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("SRCAD_UPDATE_GOLDEN", None)
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", *FAST, *fast_test_paths(tree)],
                              cwd=tree, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return False, "timeout"
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    failed = next((line for line in lines if line.startswith(("FAILED", "ERROR"))), "")
    return proc.returncode == 0, failed or (lines[-1] if lines else proc.stderr[-300:])


def fast_test_paths(tree: Path) -> list[str]:
    """FAST_FILES as paths relative to `tree`: a name is looked up anywhere under tests/, a
    path (from --files) is kept."""
    paths = []
    for name in FAST_FILES:
        found = [name] if "/" in name else sorted(
            str(p.relative_to(tree)) for p in (tree / "tests").rglob(name))
        if len(found) != 1:
            raise SystemExit(f"{name}: {len(found)} files of that name under tests/ "
                             "(update FAST_FILES in scripts/mutate.py)")
        paths += found
    return paths


def copy_tree(dest: Path) -> None:
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns(
                "__pycache__", "*.pyc", "failures"))
        else:
            shutil.copy2(src, dest / name)


def check(mutant: Mutant | None, scratch: Path) -> tuple[bool, str]:
    tree = scratch / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir()
    copy_tree(tree)
    if mutant is not None:
        compile(mutant.text, mutant.path, "exec")  # a mutant must be valid Python
        (tree / mutant.path).write_text(mutant.text)
    return run_tests(tree)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--only", default="", help="run mutants whose label contains this")
    parser.add_argument("--kind", choices=["all", "rules", "mechanisms"], default="all")
    parser.add_argument("--files", nargs="+", help="test files to run instead of FAST_FILES")
    options = parser.parse_args(argv)
    if options.files:
        FAST_FILES[:] = options.files
    mutants = [m for m in all_mutants() if options.only in m.label and (
        options.kind == "all" or (options.kind == "rules") == m.label.startswith("rule "))]
    if options.list:
        for m in mutants:
            print(f"{m.label}  ({m.path})")
        print(f"{len(mutants)} mutants")
        return 0
    with tempfile.TemporaryDirectory(prefix="srcad-mutate-") as scratch:
        scratch = Path(scratch)
        start = time.time()
        passed, detail = check(None, scratch)
        if not passed:
            print(f"the fast subset fails on the unmutated tree: {detail}")
            return 2
        print(f"unmutated tree: fast subset passes in {time.time() - start:.0f} s")
        survivors, killed = [], 0
        for n, mutant in enumerate(mutants, 1):
            passed, detail = check(mutant, scratch)
            if passed:
                survivors.append(mutant)
                why = EQUIVALENT.get(mutant.label)
                print(f"[{n}/{len(mutants)}] SURVIVED {mutant.label}"
                      + (f" (equivalent: {why})" if why else ""), flush=True)
            else:
                killed += 1
                print(f"[{n}/{len(mutants)}] killed   {mutant.label}: {detail[:110]}",
                      flush=True)
    holes = [m for m in survivors if m.label not in EQUIVALENT]
    print(f"\nkilled {killed} / {len(mutants)} mutants in {time.time() - start:.0f} s; "
          f"{len(survivors) - len(holes)} equivalent survivors, {len(holes)} other survivors")
    for m in holes:
        print(f"  survivor: {m.label} ({m.path})")
    return 1 if holes else 0


if __name__ == "__main__":
    sys.exit(main())
