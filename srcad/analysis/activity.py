"""Activity analysis: a variable is active when it is *varied* (depends on an active input) AND
*useful* (can affect an active output). Only active variables get derivative code.

Name-level and flow-insensitive (sound, slightly conservative): each assignment links its
target to the differentiable reads of its value; array element writes link the array to itself.
Indices, conditions, `len`, `int(...)`, `//` and comparisons carry no derivative.

Whole arrays carry derivatives through the array rules (docs/arrays.md). What those rules do
not differentiate is refused here, in every mode, rather than silently carrying no
derivative: an element of a computed array ((2.0 * x)[i], np.abs(x)[0], a.T[0, 1]), a
function with no array rule applied to a varied array (abs(x), pow(x, 2)), and `a or b` on
floats that carry derivatives.
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from srcad.analysis.primitives import array_call, effect_call
from srcad.analysis.types import Array, Stack, Types, is_float_like, stack_call
from srcad.errors import ActivityError
from srcad.frontend import syntax as S
from srcad.frontend.parse import resolve_callee
from srcad.frontend.syntax import target_name
from srcad.rules import lookup_call


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
        call = array_call(norm, e) if isinstance(e, (gast.Call, gast.BinOp, gast.Attribute)) \
            else None
        if call is not None:  # np.sum(x, axis=0), x.T, x @ y: through the operands
            for operand in call.operands:
                walk(operand)
            return
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
        elif isinstance(e, gast.Tuple):  # `return a, b`: each element is an output
            for v in e.elts:
                walk(v)
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


def unhandled_array_read(expr, norm, types, varied: set):
    """The first part of `expr` through which a derivative of a varied value would enter an
    array in a way no array rule differentiates, else None: an element of a computed array
    ((2.0 * x)[i], np.abs(x)[0], a.T[0, 1]: only elements of array variables are read back),
    or a call with no array rule given a varied array (abs(x), pow(x, 2), np.copysign(x, y):
    their rules are scalar)."""
    for node in differentiable_nodes(expr, norm):
        if isinstance(node, gast.Subscript) and not isinstance(node.value, gast.Name):
            if differentiable_reads(node.value, norm) & varied:
                return node
        elif isinstance(node, gast.Call) and array_call(norm, node) is None \
                and _has_scalar_rule(node, norm):
            for arg in node.args:
                t = types.of(arg)
                if isinstance(t, Array) and t.is_float and differentiable_reads(arg, norm) & varied:
                    return node
    return None


def _has_scalar_rule(call, norm) -> bool:
    """Does `call` carry a derivative by a scalar rule only (abs, pow, np.copysign)? Calls
    without a derivative (np.zeros_like, len) pass arrays through harmlessly."""
    info = lookup_call(resolve_callee(norm.parsed, call.func, norm.extra_names))
    return info is not None and info.rule is not None


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
        for node in S.walk(stmt):
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
            elif isinstance(node, gast.Expr) and effect_call(norm, node.value) == "add.at":
                base, _, value = node.value.args  # np.add.at(a, idx, v) adds v into a
                yield target_name(base), differentiable_reads(value, norm) | {
                    target_name(base)}, node
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
                norm.refusals.add(norm.parsed.error(
                    stmt, "write into a Const array",
                    f"`{target}` is not annotated but receives values that depend on active "
                    "inputs; its derivative would be silently lost", kind=ActivityError,
                    hint=f"pass Duplicated({target}, d_{target}) (a zero shadow works for "
                    "scratch arrays)"))
    active = {v for v in varied & useful if is_float_like(types[v]) or v == "<return>"}
    _refuse_mixed_stacks(norm, types, varied)
    _refuse_unhandled_array_reads(norm, types, active, varied)
    _refuse_constructor_fills(norm, types, useful, varied)
    return Activity(varied, useful, active)


def _refuse_mixed_stacks(norm, types, varied):
    """A tape of generated reverse code that receives values carrying derivatives must carry
    their tangents: refused when its entries are of different kinds (arrays of different
    ranks, floats and arrays), whose tangents srcad does not stack."""
    for target, reads, stmt in _edges(norm):
        if isinstance(stmt, gast.Expr) and isinstance(types[target], Stack) \
                and not is_float_like(types[target]) and (reads - {target}) & varied:
            norm.refusals.add(norm.parsed.error(
                stmt, "tape", f"the tape `{target}` holds values of different kinds (floats "
                "and arrays, or arrays of different ranks), and some carry derivatives",
                hint="use gradient or jacobian of this program"))


def _refuse_unhandled_array_reads(norm, types, active, varied):
    """Refuse what would reach an active value without its derivative: `a or b` on floats,
    and the array reads no array rule differentiates (`unhandled_array_read`)."""
    for target, _, stmt in _edges(norm):
        if target not in active or isinstance(stmt, gast.Expr):
            continue
        value = stmt.value
        for node in differentiable_leaves(value, norm):
            if isinstance(node, gast.BoolOp) and differentiable_reads(node, norm) & varied:
                norm.refusals.add(norm.parsed.error(
                    stmt, "and/or", f"`{S.unparse_expr(node)}` evaluates to one of its "
                    "operands, which carry derivatives; srcad does not differentiate through "
                    "`and`/`or`", hint="write a conditional expression: a if a else b"))
                break  # one refusal per statement
        else:
            found = unhandled_array_read(value, norm, types, varied)
            if found is not None:
                norm.refusals.add(norm.parsed.error(
                    stmt, "whole-array operation", f"`{norm.parsed.spelled(found)}` reads a "
                    f"whole array that carries a derivative, in `{norm.parsed.spelled(value)}`, "
                    "in a way "
                    "srcad does not differentiate (an element of a computed array, or a "
                    "function with no array rule)", hint="name the array first (y = 2.0 * x; "
                    "then y[i]), or use the NumPy function (np.abs(x)) or a loop over the "
                    "elements"))


def _int_full_like(node, types) -> bool:
    """`np.full_like(idx, x)` of an int array `idx`, `np.full(n, x, dtype=int)`: NumPy's
    result holds ints, with no derivative (the rule of np.full, for floats, does not apply)."""
    return getattr(types.of(node), "is_float", True) is False


def _refuse_constructor_fills(norm, types, useful, varied):
    """Refuse an array constructor given a value that carries a derivative (`np.full(n, x)`,
    `np.linspace(0.0, x, n)`, `np.arange(x, x + 3.0)`) whose result is used: constructors have
    no derivative rule, so the array would silently carry none. Their sizes and the array a
    `*_like` constructor copies the shape of carry no derivative."""
    for target, _, stmt in _edges(norm):
        if target not in useful or isinstance(stmt, gast.Expr):
            continue
        for node in S.walk(stmt.value):
            if not isinstance(node, gast.Call):
                continue
            info = lookup_call(resolve_callee(norm.parsed, node.func, norm.extra_names))
            if info is None or not info.constructor or (info.select is not None
                                                        and not _int_full_like(node, types)):
                continue
            values = node.args[1:] if info.name.endswith("_like") else node.args
            if any(r in varied and is_float_like(types[r]) for v in values
                   for r in differentiable_reads(v, norm)):
                if info.select is not None:  # np.full of ints
                    norm.refusals.add(norm.parsed.error(
                        stmt, "array constructor", f"`{S.unparse_expr(node)}` fills an int "
                        "array (its dtype=, or the int type of full_like's first argument) "
                        "with a value that carries a derivative, which the ints drop",
                        hint="fill a float array: np.full(a.shape, x)"))
                    break
                norm.refusals.add(norm.parsed.error(
                    stmt, "array constructor", f"`{S.unparse_expr(node)}` fills an array with "
                    f"a value that carries a derivative; srcad does not differentiate "
                    f"`{info.name}`'s values", hint="scale a constant array instead "
                    "(x * np.ones(n), a + (b - a) * np.linspace(0.0, 1.0, n))"))
                break
