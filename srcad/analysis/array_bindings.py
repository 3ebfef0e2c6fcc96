"""How array variables are bound: by allocations (constructors, copies), whose elements the
function then writes, or by whole-array expressions, whose derivatives flow through the
array rules. The transformations treat the two kinds differently."""

from __future__ import annotations

import types

import gast

from srcad import rules as R
from srcad.analysis.activity import differentiable_reads
from srcad.analysis.list_entry_errors import entry_alias_error
from srcad.analysis.numba_compiled import numba_supports as numba_supports  # build/pipeline.py's
from srcad.analysis.numba_indexing import refuse_numba_indexing as refuse_numba_indexing
from srcad.analysis.primitives import array_call
from srcad.analysis.types import Array
from srcad.errors import LaneLayoutError, UnsupportedSyntaxError
from srcad.frontend import syntax as S
from srcad.frontend.parse import resolve_callee

GROWN = "grown"  # the runtime function's name in generated code (srcad/runtime/runtime_names.py)


def is_growth(stmt) -> bool:
    """Is `stmt` `buffer = grown(buffer, count)` (any of its tangents' or adjoints' too)?"""
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call) \
        and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == GROWN \
        and stmt.value.args and isinstance(stmt.value.args[0], gast.Name) \
        and stmt.value.args[0].id == stmt.targets[0].id


def copy_source(norm, value) -> str | None:
    """`x` when `value` copies the array variable `x` (`x.copy()`, `np.copy(x)`,
    `np.array(x)`), else None."""
    if not isinstance(value, gast.Call):
        return None
    if isinstance(value.func, gast.Attribute) and value.func.attr == "copy" and not value.args:
        source = value.func.value
    else:
        info = R.lookup_call(resolve_callee(norm.parsed, value.func, norm.extra_names))
        if info is None or not info.constructor or info.select is None or not value.args \
                or info.name in ("linspace", "full", "full_like"):
            return None
        source = value.args[0]
    return source.id if isinstance(source, gast.Name) else None


def is_allocation(norm, value) -> bool:
    """Does `value` make a new array from no active expression: a constructor (`np.zeros(n)`,
    `np.zeros_like(x)`) or a copy of a variable (`x.copy()`, `np.copy(x)`)? A copy of an
    expression (`np.copy(x * y)`) is an expression (its rule is the identity)."""
    if copy_source(norm, value) is not None:
        return True
    if not isinstance(value, gast.Call):
        return False
    info = R.lookup_call(resolve_callee(norm.parsed, value.func, norm.extra_names))
    return info is not None and info.constructor and (info.select is None
                                                      or _of_numbers(norm, info, value))


def _of_numbers(norm, info, value) -> bool:
    """`np.linspace(0.0, 1.0, n)`, `np.full(n, np.inf)`: a linspace between numbers written
    out, a full of a number written out, is an allocation (their rules, for values that
    carry a derivative, make any other linspace or full an expression)."""
    if info.name in ("full", "full_like"):
        fills = list(value.args[1:2]) + [k.value for k in value.keywords
                                          if k.arg == "fill_value"]
        return len(fills) == 1 and _is_number(norm, fills[0])
    ends = list(value.args[:2]) + [k.value for k in value.keywords if k.arg == "stop"]
    return info.name == "linspace" and len(ends) == 2 and all(
        isinstance(e, gast.Constant) or (isinstance(e, gast.UnaryOp)
                                         and isinstance(e.operand, gast.Constant))
        for e in ends)


def _is_number(norm, node) -> bool:
    """A number written out: `0.0`, `-1`, `np.inf`, `-np.nan`, `math.pi`."""
    if isinstance(node, gast.UnaryOp):
        node = node.operand
    if isinstance(node, gast.Constant):
        return isinstance(node.value, (int, float))
    if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name):
        return isinstance(resolve_callee(norm.parsed, node, norm.extra_names), float)
    return False


def expression_bound(norm, types) -> set:
    """Array variables some assignment binds to an array expression (not an allocation):
    their derivatives flow through whole-array rules, not element by element. A list's
    buffer made longer (`ys_buffer = grown(ys_buffer, n)`, normalize/unbounded_lists.py)
    keeps its elements: the transformations grow its shadows alongside."""
    out = set()
    for stmt in norm.body:
        for node in S.walk(stmt):
            if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name) \
                    and isinstance(types[node.targets[0].id], Array) \
                    and not is_allocation(norm, node.value) and not is_growth(node):
                out.add(node.targets[0].id)
    return out


def written_in_place(norm) -> set:
    """Variables whose contents some statement changes in place: element or slice writes
    (`x[i] = v`, `x[1:] += v`) and augmented assignments (`x += v` writes an array)."""
    out = set()
    for stmt in norm.body:
        for node in S.walk(stmt):
            targets = node.targets if isinstance(node, gast.Assign) else \
                [node.target] if isinstance(node, gast.AugAssign) else []
            for t in targets:
                if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name):
                    out.add(t.value.id)
                elif isinstance(t, gast.Name) and isinstance(node, gast.AugAssign):
                    out.add(t.id)
    return out


def check_array_statements(norm, types, active: set, forward: bool = False) -> None:
    """Refuse what whole-array differentiation does not handle yet, naming the line:
    `acc += x` on an active array (in place in NumPy: it writes every alias of `acc`), element
    writes into an active array that is also bound to expressions, a direct view of an array
    whose elements are written after the view is made (an alias of a finished array, as
    an inlined helper's returned local, is its value). (An array argument rebound to an
    expression was renamed before: transform/normalize/array_params.py.) In forward mode, `p += x`
    and `p -= x` on an array argument that no other name shares and nothing rebinds (the
    `w_bar += ...` of srcad's own reverse code, which hessian and hvp differentiate again) are
    kept: the tangent is updated in place beside the value, in the caller's tangent array."""
    bound = expression_bound(norm, types) & active
    # srcad's own reverse code, differentiated again by forward over reverse, writes parts
    # of its adjoints (`p_bar[1] = p_bar_value / c`): forward mode gives each such tangent
    # an array of its own (transform/forward/transform.py, `_shares_memory`)
    generated = norm.parsed.generated and not norm.parsed.filename.startswith("<srcad wrapper")
    written_after = writes_after(norm)
    updated_in_place = unshared_argument_updates(norm) if forward else set()
    for stmt in norm.body:
        for node in S.walk(stmt):
            if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) \
                    and node.target.id in active and isinstance(types[node.target.id], Array) \
                    and not (node.target.id in updated_in_place
                             and isinstance(node.op, (gast.Add, gast.Sub))):
                name = node.target.id
                norm.refusals.add(norm.parsed.error(
                    node, "augmented assignment to an array", f"`{name} {_op(node.op)}= ...` "
                    f"updates the array `{name}` in place",
                    hint=f"write {name} = {name} {_op(node.op)} ..."))
            if not isinstance(node, gast.Assign):
                continue
            target = node.targets[0]
            viewed = viewed_array(norm, node.value)
            if isinstance(target, gast.Name) and target.id in bound \
                    and viewed in written_after(node):
                norm.refusals.add(entry_alias_error(norm, node, target.id, viewed)
                                  or norm.parsed.error(
                    node, "view of a written array", f"`{target.id}` is a view of `{viewed}` "
                    f"(it shares its memory), and the elements of `{viewed}` are written",
                    hint=f"take a copy: {target.id} = {S.unparse_expr(node.value)}.copy()"))
            if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) \
                    and target.value.id in bound and not (forward and generated):
                norm.refusals.add(norm.parsed.error(
                    node, "element write", f"elements of `{target.value.id}` are written, "
                    "and it is also bound to whole-array expressions",
                    hint="write the elements of an array made with np.zeros or .copy(), or "
                    "compute it as a whole"))


def _element_writes(stmt) -> set:
    """Arrays whose elements `stmt` itself (not its nested blocks) writes in place."""
    targets = stmt.targets if isinstance(stmt, gast.Assign) else \
        [stmt.target] if isinstance(stmt, gast.AugAssign) else []
    return {S.target_name(t) for t in targets
            if isinstance(t, gast.Subscript) or isinstance(stmt, gast.AugAssign)} - {None}


def writes_after(norm):
    """`written_after(stmt)`: the arrays whose elements some statement may write after
    `stmt` runs: a write later in the body, or anywhere in a loop around `stmt` (its next
    iteration runs after it). A view made there could change under the reverse sweep."""
    order = []  # (statement, the loops around it), in the order they are written

    def block(stmts, loops):
        for s in stmts:
            order.append((s, loops))
            inner = loops + (id(s),) if isinstance(s, (gast.For, gast.While)) else loops
            for field in ("body", "orelse"):
                sub = getattr(s, field, None)
                if isinstance(sub, list):
                    block(sub, inner)
    block(norm.body, ())
    position = {id(s): k for k, (s, _) in enumerate(order)}
    writes = [_element_writes(s) for s, _ in order]

    def written_after(stmt) -> set:
        k = position.get(id(stmt))
        if k is None:  # a statement outside the blocks walked: every write counts
            return set().union(*writes)
        loops = set(order[k][1])
        out = set().union(*writes[k + 1:]) if k + 1 < len(order) else set()
        for j in range(k):
            if loops & set(order[j][1]):
                out |= writes[j]
        return out
    return written_after


_VIEW_CALLS = {"reshape", "ravel", "transpose", "squeeze", "expand_dims", "asarray"}


def viewed_array(norm, value):
    """The array `value` is a view of, without a copy (`x`, `x[1:]`, `A[i]`, `x.T`,
    `x.reshape(...)`, `np.ravel(x)`), or None."""
    while True:
        if isinstance(value, gast.Subscript) or (isinstance(value, gast.Attribute)
                                                 and value.attr == "T"):
            value = value.value
        elif isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
                and value.func.attr in _VIEW_CALLS:
            receiver = value.func.value
            is_module = isinstance(resolve_callee(norm.parsed, receiver, norm.extra_names),
                                   types.ModuleType)
            if is_module and not value.args:
                return None
            value = value.args[0] if is_module else receiver
        else:
            return value.id if isinstance(value, gast.Name) else None


def _op(op) -> str:
    return {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/"}.get(type(op), "op")


def refuse_array_code(norm, types, active: set, where: str | None, supported=None) -> None:
    """Refuse whole-array operations on active values `where` they are not generated yet
    (the numba backend, stacked vector lanes), naming the line; None: nothing refused. With
    `supported(node)`, only the operations it rejects are refused."""
    if where is None:
        return
    for stmt in norm.body:
        for node in S.walk(stmt):
            if not isinstance(node, (gast.Assign, gast.AugAssign, gast.Return)) \
                    or node.value is None or is_allocation(norm, node.value):
                continue
            parts = {id(e.value): array_call(norm, e) for e in S.walk(node.value)
                     if isinstance(e, gast.Attribute) and isinstance(e.value, gast.Call)}
            for e in S.walk(node.value):
                if not isinstance(e, (gast.BinOp, gast.UnaryOp, gast.Call, gast.Attribute)) \
                        or parts.get(id(e)):  # slogdet(A) of `.logabsdet`: the part is typed
                    continue
                operands = [c for c in gast.iter_child_nodes(e) if isinstance(c, gast.expr)]
                if isinstance(e, gast.Call) and isinstance(e.func, gast.Attribute):
                    operands.append(e.func.value)  # a method's array: `x.sum()` as np.sum(x)
                if isinstance(e, gast.Attribute) and parts.get(id(e.value)):
                    operands = parts[id(e.value)].operands
                if not (isinstance(types.of(e), Array)
                        or any(isinstance(types.of(c), Array) for c in operands)):
                    continue
                if isinstance(e, gast.Call) and _refused_by_name(norm, e, where):
                    continue  # srcad/analysis/rule_backends.py says why, by name
                if differentiable_reads(e, norm) & active and not (supported and supported(e)):
                    norm.refusals.add(norm.parsed.error(
                        node, "array operation", f"whole-array operations on active arrays "
                        f"(`{norm.parsed.spelled(e)}`) are not supported in {where} yet",
                        hint="use the python backend (and at most 16 vector lanes), or "
                        "write the elements in a loop",
                        kind=UnsupportedSyntaxError if supported else LaneLayoutError))
                    break  # one refusal per statement


def _refused_by_name(norm, call, where) -> bool:
    """Is `call` a call the numba backend refuses by name (a recursive helper's)?"""
    info = R.lookup_call(resolve_callee(norm.parsed, call.func, norm.extra_names))
    refusal = getattr(info, "numba_refusal", "")
    if callable(refusal):  # by the argument count (np.cross's keywords), as rule_backends.py
        refusal = refusal(len(call.args) + len(call.keywords))
    return where == "the numba backend" and isinstance(refusal, str) and bool(refusal)


def refuse_local_row_writes(norm, types, active: set, where: str | None) -> None:
    """Refuse a whole row or slice written into an active local array (`c[i] = x[i, 0]` with
    `c` a matrix) `where` tangents keep their lanes as the last axis (numba's vector mode,
    stacked lanes): the row's tangent would be written across the lanes; None: nothing
    refused. Arguments' shadows keep their lanes first, and their rows are written right."""
    if where is None:
        return
    for stmt in norm.body:
        for node in S.walk(stmt):
            target = node.targets[0] if isinstance(node, gast.Assign) else \
                node.target if isinstance(node, gast.AugAssign) else None
            if not isinstance(target, gast.Subscript) or \
                    not isinstance(types.of(target), Array):
                continue
            name = S.target_name(target)
            if name in active and name not in norm.params:
                norm.refusals.add(norm.parsed.error(
                    node, "row write", f"`{S.unparse_expr(target)}` writes a whole row or "
                    f"slice of the local array `{name}`, which carries tangents; that is not "
                    f"supported in {where} yet", hint="write the elements in a loop "
                    f"({name}[i, j] = ...), or use the python backend with at most 16 lanes",
                    kind=LaneLayoutError))


def rebound_allocations(norm, types) -> set:
    """Local arrays allocated inside a loop or more than once (`w = np.zeros(3)` in a loop, a
    work array per iteration): the reverse sweep treats each allocation as a new value of the
    name, as it does a whole-array expression."""
    counts: dict[str, int] = {}
    out = set()

    def block(stmts, in_loop):
        for stmt in stmts:
            if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) \
                    and isinstance(types[stmt.targets[0].id], Array) \
                    and is_allocation(norm, stmt.value):
                name = stmt.targets[0].id
                counts[name] = counts.get(name, 0) + 1
                if in_loop or counts[name] > 1:
                    out.add(name)
            for field in ("body", "orelse"):
                sub = getattr(stmt, field, None)
                if isinstance(sub, list):
                    block(sub, in_loop or isinstance(stmt, (gast.For, gast.While)))
    block(norm.body, False)
    return out - set(norm.params)


def unshared_argument_updates(norm) -> set:
    """Array arguments only ever updated with `p += x` / `p -= x`: never bound in the body,
    never bound to another name, never viewed (`q = p`, `q = p[1:]`, `q = p.T`)."""
    bound, shared = set(), set()
    for stmt in norm.body:
        for node in S.walk(stmt):
            if isinstance(node, gast.Assign):
                bound |= {n.id for t in node.targets for n in S.walk(t)
                          if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
                shared |= {n.id for n in S.walk(node.value) if isinstance(n, gast.Name)
                           and viewed_array(norm, node.value) == n.id}
                if isinstance(node.value, gast.Name):
                    shared.add(node.value.id)
    return {p for p in norm.params if p not in bound and p not in shared}
