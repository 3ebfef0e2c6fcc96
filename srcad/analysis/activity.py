"""Activity analysis: a variable is active when it is *varied* (depends on an active input) AND
*useful* (can affect an active output). Only active variables get derivative code.

Name-level and flow-insensitive (sound, slightly conservative): each assignment links its
target to the differentiable reads of its value; array element writes link the array to itself.
Indices, conditions, `len`, `int(...)`, `//` and comparisons carry no derivative.
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from srcad.analysis.primitives import array_call
from srcad.analysis.types import Types, is_float_like, stack_call
from srcad.errors import ActivityError
from srcad.rules import lookup_call
from srcad.syntax import target_name
from srcad.transform.inline import resolve_callee


def differentiable_reads(expr, norm) -> set[str]:
    """Names whose derivative can flow through `expr` (skips indices, tests, int results)."""
    out: set[str] = set()

    def walk(e):
        call = array_call(norm, e) if isinstance(e, (gast.Call, gast.BinOp, gast.Attribute)) \
            else None
        if call is not None:  # np.sum(x, axis=0), x.T, x @ y: through the operands
            for operand in call.operands:
                walk(operand)
            return
        if isinstance(e, gast.Name):
            out.add(e.id)
        elif isinstance(e, gast.Subscript):
            walk(e.value)  # the index carries no derivative
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
        elif isinstance(e, gast.Call):
            if stack_call(e) and stack_call(e)[1] == "pop":
                out.add(stack_call(e)[0])
                return
            if isinstance(e.func, gast.Attribute) and e.func.attr == "copy":
                walk(e.func.value)
                return
            obj = resolve_callee(norm.parsed, e.func, norm.extra_names)
            info = lookup_call(obj)
            if info is not None and (info.rule is not None or info.name == "copy"):
                for a in e.args:
                    walk(a)
        # Constant, Compare, BoolOp, Attribute (shape, math.pi): no derivative

    walk(expr)
    return out


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
    return Activity(varied, useful, active)
