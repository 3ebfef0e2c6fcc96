"""One second-order pass for a nested gradient and its tangent in numba code.

The forward sweep through `gx = srcad.grad(g)(x, p)` computes the gradient and then its
tangent, at the same operands, in adjacent statements:

    gx = srcad_nested_gradient_1(x, p)
    gx_dot = srcad_nested_tangents_1_0_1(x, p, x_dot, p_dot)

The tangent's kernel runs the reverse code of g's tangent (reverse over forward); the adjoint
of a direction there is the gradient of g in that argument. So one kernel call gives both
(`nested_kernels.KernelWriter.second(..., gradient=True)`), before the first statement, and
each statement reads its own:

    srcad_pair_1 = srcad_nested_gradient_tangents_1_0_1(x, p, x_dot, p_dot)
    gx = srcad_pair_1[0]
    gx_dot = srcad_pair_1[1]

Guarantees: a pair is merged only when its statements are adjacent in one block (either
first), each an assignment holding one of the two calls, both calls name the same token and
operands (the same source text), the first statement binds or writes no name the second's
call reads, and, when it writes into an array (`v[i] = ...`, `v += ...`) rather than binding
names, every name it writes is a parameter or a name only ever bound to a new array (as for
the adjoint runs, srcad/operators/nested_adjoint_runs.py: not a view of an operand);
otherwise they stay.

>>> import gast
>>> from srcad.build.codegen import to_source
>>> tree = gast.parse('''
... def f(x, p, x_dot, p_dot):
...     gx = -1.0 * srcad_nested_gradient_1(x, p)
...     gx_dot = -srcad_nested_tangent_1_0(x, p, x_dot)
... ''')
>>> merged_gradient_pairs(tree)
[(1, (0,))]
>>> print(to_source(tree).strip().splitlines()[1])
    srcad_pair_1 = srcad_nested_gradient_tangents_1_0(x, p, x_dot)
"""

from __future__ import annotations

import re

import gast

from srcad.frontend import syntax as S
from srcad.operators.nested_adjoint_runs import bound_names, fresh_names, names_in, replace_call

_GRADIENT = re.compile(r"srcad_nested_gradient_(\d+)$")
_TANGENTS = re.compile(r"srcad_nested_tangents?_(\d+)_([\d_]+)$")


def kernel_name(token: int, operands) -> str:
    """The kernel giving the gradient and its tangent for directions on `operands`."""
    return f"srcad_nested_gradient_tangents_{token}_{'_'.join(map(str, operands))}"


def merged_gradient_pairs(tree) -> list:
    """Merge every such pair in `tree` (in place); the (token, operand numbers) of each."""
    fresh = fresh_names(tree)
    pairs: list = []
    for node in list(gast.walk(tree)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                setattr(node, field, _merged(block, fresh, pairs))
    return pairs


def _merged(block, fresh, pairs) -> list:
    out, i = [], 0
    while i < len(block):
        pair = _pair(block[i], block[i + 1], fresh) if i + 1 < len(block) else None
        if pair is None:
            out.append(block[i])
            i += 1
            continue
        (gradient, gradient_statement), (tangent, tangent_statement), token, ks = pair
        name = f"srcad_pair_{len(pairs) + 1}"
        call = gast.Call(S.name(kernel_name(token, ks)), [S.clone(a) for a in tangent.args], [])
        out += S.located([S.assign(S.name(name), call)], block[i])
        for statement, call, slot in ((gradient_statement, gradient, 0),
                                      (tangent_statement, tangent, 1)):
            replace_call(statement, call, gast.Subscript(S.name(name), S.const(slot), gast.Load()))
        out += [block[i], block[i + 1]]
        pairs.append((token, ks))
        i += 2
    return out


def _pair(first, second, fresh):
    """((gradient call, its statement), (tangent call, its statement), token, operand
    numbers) when `first` and `second` can share one kernel call, else None."""
    found = [_kernel_call(first), _kernel_call(second)]
    if None in found or found[0][1] == found[1][1]:
        return None
    (gradient, _, token, _), (tangent, _, other, ks) = sorted(found, key=lambda c: c[1])
    count = len(gradient.args)
    if token != other or len(tangent.args) != count + len(ks) \
            or not all(map(S.same, gradient.args, tangent.args[:count])):
        return None
    written = bound_names(first)
    read = names_in(found[1][0].args)
    rebinds = isinstance(first, gast.Assign) and all(isinstance(t, gast.Name)
                                                      for t in first.targets)
    if written & read or not (rebinds or written <= fresh):  # in place: maybe into a view
        return None
    statements = {found[0][1]: first, found[1][1]: second}
    return (gradient, statements["gradient"]), (tangent, statements["tangent"]), token, ks


def _kernel_call(statement):
    """(call, "gradient" or "tangent", token, operand numbers) of the one gradient or tangent
    kernel call of an assignment, else None."""
    if not isinstance(statement, (gast.Assign, gast.AugAssign)):
        return None
    found = []
    for node in gast.walk(statement):
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)):
            continue
        gradient, tangent = _GRADIENT.match(node.func.id), _TANGENTS.match(node.func.id)
        if gradient:
            found.append((node, "gradient", int(gradient.group(1)), ()))
        elif tangent:
            ks = tuple(int(k) for k in tangent.group(2).split("_"))
            found.append((node, "tangent", int(tangent.group(1)), ks))
    return found[0] if len(found) == 1 and not found[0][0].keywords else None
