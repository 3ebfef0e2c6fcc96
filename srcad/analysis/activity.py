"""Activity analysis: a variable is active when it is *varied* (depends on an active input) AND
*useful* (can affect an active output). Only active variables get derivative code.

Name-level and flow-insensitive (sound, slightly conservative): each assignment links its
target to the differentiable reads of its value; array element writes link the array to itself.
Indices, conditions, `len`, `int(...)`, `//` and comparisons carry no derivative.

Derivatives flow through element reads of array variables only: a whole varied array (`x` in
np.tanh(x) or x @ w, a row a[i], an element of a computed array (2.0 * x)[i]) that reaches an
active value is refused here, in every mode, rather than silently carrying no derivative.
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from srcad import syntax as S
from srcad.analysis.types import Array, Types, is_float_like, stack_call
from srcad.errors import ActivityError
from srcad.rules import lookup_call
from srcad.syntax import target_name
from srcad.transform.inline import resolve_callee


def differentiable_leaves(expr, norm) -> list:
    """The nodes through which a derivative can enter `expr`: names and element reads (their
    indices carry none), skipping tests, int results and calls without a derivative."""
    return [n for n in differentiable_nodes(expr, norm)
            if isinstance(n, (gast.Name, gast.Subscript, gast.BoolOp))]


def differentiable_nodes(expr, norm) -> list:
    """The nodes of `expr` reached from its root through positions a derivative can flow
    through (indices, tests, calls without a derivative not entered), outermost first; a node
    reached may itself carry none (a comparison, np.sign(x))."""
    out: list = []

    def walk(e):
        if not isinstance(e, (gast.Name, gast.Subscript, gast.BoolOp)):
            out.append(e)
        if isinstance(e, gast.Name):
            out.append(e)
        elif isinstance(e, gast.Subscript):
            out.append(e)
            if not isinstance(e.value, gast.Name):
                walk(e.value)  # an element of a computed array: np.tanh(x)[i], x.copy()[i]
        elif isinstance(e, gast.BinOp):
            if not isinstance(e.op, gast.FloorDiv):
                walk(e.left)
                walk(e.right)
        elif isinstance(e, gast.UnaryOp):
            if not isinstance(e.op, gast.Not):
                walk(e.operand)
        elif isinstance(e, gast.IfExp):
            walk(e.body)
            walk(e.orelse)
        elif isinstance(e, gast.BoolOp):
            out.append(e)  # `a or b` is one of its operands: a derivative could enter
            for v in e.values:
                walk(v)
        elif isinstance(e, gast.Call):
            if stack_call(e) and stack_call(e)[1] == "pop":
                out.append(gast.Name(id=stack_call(e)[0], ctx=gast.Load(), annotation=None,
                                     type_comment=None))
                return
            if isinstance(e.func, gast.Attribute) and e.func.attr == "copy":
                walk(e.func.value)
                return
            obj = resolve_callee(norm.parsed, e.func, norm.extra_names)
            info = lookup_call(obj)
            if info is not None and (info.rule is not None or info.name == "copy"):
                for a in e.args:
                    walk(a)
        # Constant, Compare, Attribute (shape, math.pi): no derivative

    walk(expr)
    return out


def differentiable_reads(expr, norm) -> set[str]:
    """Names whose derivative can flow through `expr` (skips indices, tests, int results)."""
    return {leaf.id if isinstance(leaf, gast.Name) else leaf.value.id
            for leaf in differentiable_leaves(expr, norm)
            if isinstance(leaf, gast.Name) or (isinstance(leaf, gast.Subscript)
                                               and isinstance(leaf.value, gast.Name))}


def whole_array_read(expr, norm, types, varied: set):
    """The first part of `expr` through which a derivative would enter as a whole array
    (`x` in np.tanh(x), x @ w, x * 2.0; a row x[i] of a matrix; an element of a computed
    array, (2.0 * x)[i]; np.minimum(x[i], c) of a constant array c) from a varied value, else
    None. srcad differentiates element reads of array variables only: anything else would
    silently carry no derivative."""
    for leaf in differentiable_nodes(expr, norm):
        if isinstance(leaf, gast.BoolOp):
            continue
        if not isinstance(leaf, (gast.Name, gast.Subscript)):
            t = types.of(leaf)  # a computed array
            if isinstance(t, Array) and t.is_float and differentiable_reads(leaf, norm) & varied:
                return leaf
            continue
        if isinstance(leaf, gast.Subscript) and not isinstance(leaf.value, gast.Name):
            if differentiable_reads(leaf.value, norm) & varied:
                return leaf
            continue
        name = leaf.id if isinstance(leaf, gast.Name) else leaf.value.id
        t = types.of(leaf)
        if name in varied and isinstance(t, Array) and t.is_float:
            return leaf
    return None


@dataclass
class Activity:
    varied: set
    useful: set
    active: set

    def is_active(self, name: str) -> bool:
        return name in self.active


def _edges(norm):
    """(target, reads, stmt) for every assignment in the function."""
    for stmt in norm.body:
        for node in gast.walk(stmt):
            if isinstance(node, gast.Assign):
                for t in node.targets:
                    reads = differentiable_reads(node.value, norm)
                    if isinstance(t, gast.Subscript):
                        reads = reads | {target_name(t)}
                    yield target_name(t), reads, node
            elif isinstance(node, gast.AugAssign):
                reads = differentiable_reads(node.value, norm) | {target_name(node.target)}
                yield target_name(node.target), reads, node
            elif isinstance(node, gast.Expr) and stack_call(node.value) and node.value.args:
                stack = stack_call(node.value)[0]
                yield stack, differentiable_reads(node.value.args[0], norm) | {stack}, node
            elif isinstance(node, gast.Return) and node.value is not None:
                yield "<return>", differentiable_reads(node.value, norm), node


def analyse_activity(norm, types: Types, active_inputs: set, duplicated: set, const_arrays: set,
                     differentiate_return: bool) -> Activity:
    edges = [(t, {r for r in reads if is_float_like(types[r])}, s)
             for t, reads, s in _edges(norm)]
    varied = set(active_inputs) | set(duplicated)
    changed = True
    while changed:
        changed = False
        for target, reads, _ in edges:
            if target not in varied and reads & varied:
                varied.add(target)
                changed = True
    useful = set(duplicated) | ({"<return>"} if differentiate_return else set())
    changed = True
    while changed:
        changed = False
        for target, reads, _ in edges:
            if target in useful and not reads <= useful:
                useful |= reads
                changed = True
    for target, reads, stmt in edges:
        if target in const_arrays and reads & varied and reads - {target}:
            if (reads - {target}) & varied:
                raise norm.parsed.error(
                    stmt, "write into a Const array",
                    f"`{target}` is not annotated but receives values that depend on active "
                    "inputs; its derivative would be silently lost", kind=ActivityError,
                    hint=f"pass Duplicated({target}, d_{target}) (a zero shadow works for "
                    "scratch arrays)")
    active = {v for v in varied & useful if is_float_like(types[v]) or v == "<return>"}
    _refuse_whole_array_reads(norm, types, active, varied)
    return Activity(varied, useful, active)


def _refuse_whole_array_reads(norm, types, active, varied):
    """Refuse whole-array arithmetic (and `a or b` on floats) that reaches an active value:
    its derivative would be lost. Copies (`c = x.copy()`) and arrays returned by name are left
    to the transformations, which handle them."""
    for target, _, stmt in _edges(norm):
        if target not in active or isinstance(stmt, gast.Expr):
            continue
        value = stmt.value
        written = stmt.targets[0] if isinstance(stmt, gast.Assign) else \
            stmt.target if isinstance(stmt, gast.AugAssign) else None
        if isinstance(written, gast.Subscript) and isinstance(types.of(written), Array):
            raise norm.parsed.error(
                stmt, "whole-array operation", f"`{S.unparse_expr(written)}` is a whole row of "
                "an array that carries derivatives; srcad differentiates element by element",
                hint="write the row's elements in a loop: a[i, j] = ...")
        if isinstance(stmt, gast.Return) and isinstance(value, gast.Name):
            continue
        if isinstance(stmt, gast.Assign) and _is_copy(value, norm):
            continue
        for node in differentiable_leaves(value, norm):
            if isinstance(node, gast.BoolOp) and differentiable_reads(node, norm) & varied:
                raise norm.parsed.error(
                    stmt, "and/or", f"`{S.unparse_expr(node)}` evaluates to one of its "
                    "operands, which carry derivatives; srcad does not differentiate through "
                    "`and`/`or`", hint="write a conditional expression: a if a else b")
        found = whole_array_read(value, norm, types, varied)
        if found is not None:
            shown = S.unparse_expr(found)
            raise norm.parsed.error(
                stmt, "whole-array operation", f"`{shown}` is a whole array that carries a "
                f"derivative, used in `{S.unparse_expr(value)}`; srcad differentiates element "
                "by element (x[i], x[i, j]) and would lose this derivative",
                hint="write it as a loop over the elements (y[i] = np.tanh(x[i]))")


def _is_copy(value, norm) -> bool:
    """`x.copy()` or `np.copy(x)`."""
    if not isinstance(value, gast.Call):
        return False
    if isinstance(value.func, gast.Attribute) and value.func.attr == "copy" and not value.args:
        return True
    info = lookup_call(resolve_callee(norm.parsed, value.func, norm.extra_names))
    return info is not None and info.name == "copy"

