"""Code that carries no derivative and that srcad's analyses cannot see into runs as it is,
as one call with no rule (runs first in lowering, before the fence):

* `try: k = int(s) except ValueError: k = 1` (with `except` clauses and an `else`, no
  `finally`), assigning one name;
* library objects made and used in the function: `rng = np.random.default_rng(0)` and the
  statements up to its last use (`eps = rng.normal(size=n)`), or a method called on a
  library call (`np.random.RandomState(0).randn(4)`), producing one value.

Each becomes `k = block(s)`, `block` a plain Python function compiled from the user's own
text of those statements (the locals they read its parameters, the name they assign its
result), run on every call of the generated code. The type analysis sees a call with no rule:
on constants it runs, and an argument that carries a derivative is refused by line (its
derivative would silently be zero). Its result is an int or a float where the statements say
so (`int(s)`, `1`), else an array of the rank the random-number call's size says.

Statements that assign no name or several names read afterwards stay as written, for the
fence to refuse by line. On numba the call runs before the compiled code (its arguments are
the function's arguments and constants) or is refused by name.
"""

from __future__ import annotations

import textwrap
import types

import gast
import numpy as np

from srcad.frontend import syntax as S
from srcad.frontend.parse import resolve_callee
from srcad.rules import lookup_call
from srcad.transform.normalize.call_binding import bind_calls
from srcad.transform.normalize.local_records import record_class

# methods of NumPy's random generators whose `size=` (or positional sizes) gives the rank
_SIZED = {"normal", "uniform", "standard_normal", "random", "integers", "exponential",
          "gamma", "beta", "poisson", "binomial", "choice", "permutation", "random_sample",
          "laplace", "logistic", "lognormal", "multivariate_normal", "standard_t"}
_POSITIONAL_SIZES = {"randn", "rand"}


def run_constant_blocks(parsed, body: list, namer) -> list:
    """`body` with each try statement and library-object block replaced by a call."""
    params = {a.id for a in parsed.tree.args.args}
    body = _hoist_object_calls(parsed, body, namer)
    out, k = [], 0
    while k < len(body):
        stmt = body[k]
        end = _object_block_end(parsed, body, k)
        if isinstance(stmt, gast.Try) and not stmt.finalbody and stmt.handlers:
            out.extend(_as_call(parsed, [stmt], body[k + 1:], params, namer, "try_block"))
            k += 1
        elif end is not None:
            out.extend(_as_call(parsed, body[k:end + 1], body[end + 1:], params, namer,
                                "constant_block"))
            k = end + 1
        else:
            out.append(stmt)
            k += 1
    return out


def _hoist_object_calls(parsed, body, namer) -> list:
    """`np.sum(np.random.RandomState(0).randn(3) * x)`: a method called on a library call,
    inside a larger expression of a statement of the body, bound to a name of its own
    just before the statement (`randn_value = np.random.RandomState(0).randn(3)`), which
    then runs as a block of its own. A constant of the function: moving it is harmless."""
    out = []
    for stmt in body:
        if not (isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Return, gast.Expr))
                and stmt.value is not None):
            out.append(stmt)
            continue
        stmts = bind_calls(stmt, namer, lambda call, whole=stmt.value: (
            f"{call.func.attr}_value" if call is not whole and _method_of_call(parsed, call)
            else None))
        for bound in stmts[:-1]:
            bound.srcad_hoisted = True  # _as_call: its text is the call's, not the line's
        out.extend(stmts)
    return out


def _object_block_end(parsed, body, k):
    """The index of the last statement of the object block starting at body[k], or None."""
    stmt = body[k]
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
        return None
    if _method_of_call(parsed, stmt.value):
        return k  # x = np.random.RandomState(0).randn(4)
    target = stmt.targets[0]
    if not (isinstance(target, gast.Name) and isinstance(stmt.value, gast.Call)):
        return None
    obj = resolve_callee(parsed, stmt.value.func, {})
    if not _library_object_maker(obj):
        return None
    uses = [j for j in range(k + 1, len(body)) if target.id in S.loaded_names(body[j])]
    as_receiver = any(isinstance(n, gast.Attribute) and isinstance(n.value, gast.Name)
                      and n.value.id == target.id for j in uses for n in gast.walk(body[j]))
    return uses[-1] if uses and as_receiver else None


def _method_of_call(parsed, value) -> bool:
    """`lib.Maker(...).method(...)` of a library callable with no rule."""
    if not (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            and isinstance(value.func.value, gast.Call)):
        return False
    return _library_object_maker(resolve_callee(parsed, value.func.value.func, {}))


def _library_object_maker(obj) -> bool:
    """A class or compiled function of a library with no rule (np.random.default_rng,
    np.random.RandomState): what it makes is an object srcad does not see into. Python
    functions (the user's, which srcad inlines) are not."""
    return obj is not None and callable(obj) and lookup_call(obj) is None \
        and not isinstance(obj, (types.FunctionType, types.MethodType)) \
        and not record_class(obj)  # a dataclass built in f: local_records.py


def _as_call(parsed, stmts, rest, params, namer, base) -> list:
    assigned = set().union(*(S.bound_names(s) for s in _all_statements(stmts)))
    for handler in (h for s in stmts for h in getattr(s, "handlers", ())):
        if handler.name is not None:
            assigned.discard(handler.name.id)
    read_after = set().union(set(), *(S.loaded_names(s) for s in rest))
    outputs = sorted(assigned & read_after)
    if len(outputs) != 1:  # left as written: the fence refuses it, by line
        return list(stmts)
    bound_before = {n.id for n in gast.walk(parsed.tree) if isinstance(n, gast.Name)
                    and not isinstance(n.ctx, gast.Load)} | params
    inputs = sorted((set().union(*(S.loaded_names(s) for s in stmts)) & bound_before)
                    - (assigned - _read_before_assigned(stmts)))
    name_ = namer.fresh(base)
    first, last = stmts[0].lineno, max(n.end_lineno or n.lineno for s in stmts
                                       for n in gast.walk(s) if hasattr(n, "lineno"))
    text = "\n".join(parsed.source_lines[first - 1:last])
    if getattr(stmts[0], "srcad_hoisted", False):  # part of the line: its own text
        text = f"{outputs[0]} = {S.unparse_expr(stmts[0].value)}"
    source = (f"def {name_}({', '.join(inputs + ['*rank_hint'])}):\n" + textwrap.indent(
        textwrap.dedent(text), "    ") + f"\n    return {outputs[0]}\n")
    code = compile(source, parsed.filename, "exec")
    scope: dict = {}
    exec(code, parsed.namespace, scope)  # noqa: S102 - the user's own statements
    # a call with no rule, never inlined; the construct its refusal names
    scope[name_].srcad_constant_block = "try/except" if base == "try_block" else "library object"
    parsed.namespace[name_] = scope[name_]
    parsed.spellings[name_] = parsed.source_lines[first - 1].strip().rstrip(":")
    parsed.spellings[f"{name_}_value"] = outputs[0]  # its result, where it is named
    call = gast.Call(func=S.name(name_), args=[S.name(i) for i in inputs] +
                     _rank_hint(parsed, stmts, namer), keywords=[])
    call = _typed(call, stmts, outputs[0])
    assign = S.assign(S.name(outputs[0], store=True), call)
    for node in gast.walk(assign):  # errors point at the user's first statement
        gast.copy_location(node, stmts[0])
    return [assign]



def _all_statements(stmts):
    for stmt in stmts:
        yield stmt
        for field in ("body", "orelse", "finalbody"):
            yield from _all_statements(getattr(stmt, field, None) or [])
        for handler in getattr(stmt, "handlers", None) or []:
            yield from _all_statements(handler.body)


def _read_before_assigned(stmts) -> set:
    return set()  # a name both read and assigned is passed in: Python reads the caller's


def _typed(call, stmts, output):
    """`int(call)` or `float(call)` when every value the statements assign to `output` is
    one (`int(s)`, `1`)."""
    values = [s.value for s in _all_statements(stmts) if isinstance(s, gast.Assign)
              and any(isinstance(t, gast.Name) and t.id == output for t in s.targets)]
    for kind in (int,):  # a float is what a call with no rule gives already
        if values and all(isinstance(v, gast.Constant) and type(v.value) is kind
                          or isinstance(v, gast.Call) and isinstance(v.func, gast.Name)
                          and v.func.id == kind.__name__ for v in values):
            return gast.Call(func=S.name(kind.__name__), args=[call], keywords=[])
    return call


def _rank_hint(parsed, stmts, namer) -> list:
    """An empty array of the rank of the block's random numbers, passed last (and unused), so
    the analysis types the result as an array of that rank."""
    rank = 0
    for node in (n for s in stmts for n in gast.walk(s)):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute):
            if node.func.attr in _POSITIONAL_SIZES:
                rank = max(rank, len(node.args))
            elif node.func.attr in _SIZED:
                size = next((k.value for k in node.keywords if k.arg == "size"), None)
                if size is not None:
                    rank = max(rank, len(size.elts) if isinstance(size, gast.Tuple) else 1)
    if not rank:
        return []
    hint = namer.fresh(f"empty_rank_{rank}")  # a constant, as a global is
    parsed.namespace[hint] = np.empty((0,) * rank)
    parsed.spellings[hint] = "an empty array"
    return [S.name(hint)]
