"""Enzyme-style nested differentiation: `srcad.autodiff(mode, g, ...)` called inside a function
srcad differentiates, rewritten into the nested-gradient primitive of
srcad/operators/nested.py, as `srcad.grad(g)(...)` is (srcad/transform/normalize/nested_calls.py
calls these for every `autodiff` call it meets):

* `srcad.autodiff(srcad.Reverse, g, srcad.Duplicated(x, dx), w)` as a statement: the shadow
  accumulates the gradient, `dx += srcad_nested_gradient(<g, 0>, x, w)` (one such line per
  `Duplicated` argument; Active results are dropped, as the statement drops them);
* `srcad.autodiff(srcad.Reverse, g, srcad.Active(t), w)[0]`: the gradient with respect to
  the Active argument 0 (an expression; no `Duplicated` argument then);
* `srcad.autodiff(srcad.Forward, g, srcad.Duplicated(x, v), w)`: the directional
  derivative of the float-valued g, `np.sum(srcad_nested_gradient(<g, 0>, x, w) * v)`.

The other arguments are bare, `Const(...)` or `Constant(...)` (constants of g). What else
is refused names the user's line: the WithPrimal modes, keywords other than a literal
`backend=`, Reverse mode used as a value without `[k]`.

JAX's `srcad.jvp(g, (a0, ...), (t0, ...))` of a float-valued g is read the same way: its
tangent `[1]` is `np.sum(grad_0 g * t0) + ...`, its value `[0]` the call `g(a0, ...)`, and
the pair `(value, tangent)` as a tuple (so `grad(lambda x: srcad.jvp(f, (x,), (v,))[1])` is
a Hessian-vector product, forward over reverse).
"""

from __future__ import annotations

import gast
import numpy as np

from srcad.errors import UnsupportedCallError
from srcad.frontend import syntax as S

_HINT = ("write srcad.autodiff(srcad.Reverse, g, srcad.Duplicated(x, dx), ...) as a statement, "
         "srcad.autodiff(srcad.Reverse, g, srcad.Active(t), ...)[0], or "
         "srcad.autodiff(srcad.Forward, g, srcad.Duplicated(x, v), ...), with g a module-level "
         "function returning a float")


def _refused(rewriter, node, message, hint=_HINT):
    return rewriter.parsed.error(node, "srcad.autodiff", message, kind=UnsupportedCallError,
                                 hint=hint)


def _parsed_call(rewriter, node):
    """(mode name, g expression, [(annotation, value, shadow)]) of an autodiff call."""
    for keyword in node.keywords:
        if not (keyword.arg == "backend" and isinstance(keyword.value, gast.Constant)):
            raise _refused(rewriter, node, f"srcad.autodiff(..., {keyword.arg}=...) inside a "
                           "differentiated function", hint="leave out seed=, batch= and "
                           "memory= in nested calls")
    if len(node.args) < 3 or any(isinstance(a, gast.Starred) for a in node.args):
        raise _refused(rewriter, node, "srcad.autodiff inside a differentiated function needs a "
                       "mode, a function and its arguments, written out")
    mode = rewriter._api_name(node.args[0])
    if mode not in ("Reverse", "Forward"):
        shown = S.unparse_expr(node.args[0])
        raise _refused(rewriter, node, f"srcad.autodiff({shown}, ...) inside a differentiated "
                       "function: srcad differentiates nested Reverse and Forward calls")
    operands = []
    for arg in node.args[2:]:
        kind = rewriter._api_name(arg.func) if isinstance(arg, gast.Call) else None
        if kind in ("Const", "Constant") and len(arg.args) == 1 and not arg.keywords:
            operands.append(("const", arg.args[0], None))
        elif kind == "Active" and len(arg.args) == 1 and not arg.keywords:
            operands.append(("active", arg.args[0], None))
        elif kind == "Duplicated" and len(arg.args) == 2 and not arg.keywords:
            operands.append(("duplicated", arg.args[0], arg.args[1]))
        elif kind is not None:
            raise _refused(rewriter, arg, f"srcad.{kind}(...) as an argument of a nested "
                           "srcad.autodiff call: its arguments are Active, Duplicated, Const "
                           "or bare")
        else:
            operands.append(("const", arg, None))
    return mode, node.args[1], operands


def _gradient(rewriter, node, g_expr, operands, k):
    values = [rewriter.visit(value) for _, value, _ in operands]
    return rewriter._primitive(node, g_expr, k, values)


def statements(rewriter, node) -> list:
    """A nested autodiff call written as a statement: its shadows' updates."""
    mode, g_expr, operands = _parsed_call(rewriter, node)
    if mode == "Forward":  # a statement dropping the tangent computes nothing srcad keeps
        return [S.expr_stmt(expression(rewriter, node))]
    lines = []
    for k, (kind, _, shadow) in enumerate(operands):
        if kind == "duplicated":
            update = S.aug_assign(shadow, gast.Add(),
                                  _gradient(rewriter, node, g_expr, operands, k))
            lines.append(gast.copy_location(update, node))
    if not lines:
        raise _refused(rewriter, node, "a nested srcad.autodiff(srcad.Reverse, ...) statement "
                       "with no Duplicated argument computes nothing it keeps")
    return lines


def expression(rewriter, node, index=None):
    """A nested autodiff call as a value: Forward's directional derivative, or Reverse's
    gradient of the Active argument `index` (`autodiff(...)[index]`)."""
    mode, g_expr, operands = _parsed_call(rewriter, node)
    kinds = [kind for kind, _, _ in operands]
    if mode == "Forward":
        if index is not None or kinds.count("duplicated") != 1 or "active" in kinds:
            raise _refused(rewriter, node, "a nested srcad.autodiff(srcad.Forward, ...) takes "
                           "one Duplicated(x, v) argument, the others constants, and gives the "
                           "derivative along v")
        _require_numpy(rewriter, node)
        k = kinds.index("duplicated")
        direction = rewriter.visit(operands[k][2])
        product = gast.BinOp(left=_gradient(rewriter, node, g_expr, operands, k),
                             op=gast.Mult(), right=direction)
        return gast.copy_location(S.call("np.sum", product), node)
    if index is None or "duplicated" in kinds or not 0 <= index < len(kinds) \
            or kinds[index] != "active":
        raise _refused(rewriter, node, "a nested srcad.autodiff(srcad.Reverse, ...) used as a "
                       "value: take the gradient of one Active argument with [k], with no "
                       "Duplicated argument (write those calls as statements)")
    return _gradient(rewriter, node, g_expr, operands, index)


def _require_numpy(rewriter, node):
    if rewriter.parsed.namespace.get("np", np) is not np:
        raise _refused(rewriter, node, "a nested srcad.autodiff(srcad.Forward, ...) in a module "
                       "where `np` is not NumPy", hint="import numpy as np")
    rewriter.parsed.namespace.setdefault("np", np)


def jvp_expression(rewriter, node, index=None):
    """`srcad.jvp(g, primals, tangents)` (or its `[0]`, `[1]`) of a float-valued g."""
    if len(node.args) != 3 or node.keywords or not all(
            isinstance(a, (gast.Tuple, gast.List)) for a in node.args[1:]) \
            or len(node.args[1].elts) != len(node.args[2].elts) or not node.args[1].elts:
        raise _refused(rewriter, node, "srcad.jvp inside a differentiated function takes g, a "
                       "tuple of primals and a tuple of as many tangents, written out",
                       hint="srcad.jvp(g, (x, p), (v, 0.0)), g a module-level function "
                       "returning a float")
    g_expr, primals, tangents = node.args[0], node.args[1].elts, node.args[2].elts
    if index == 0:
        call = gast.Call(func=g_expr, args=[rewriter.visit(p) for p in primals], keywords=[])
        return gast.copy_location(call, node)
    _require_numpy(rewriter, node)
    operands = [("active", p, None) for p in primals]
    terms = [S.call("np.sum", gast.BinOp(left=_gradient(rewriter, node, g_expr, operands, k),
                                         op=gast.Mult(), right=rewriter.visit(t)))
             for k, t in enumerate(tangents)]
    tangent = terms[0]
    for term in terms[1:]:
        tangent = gast.BinOp(left=tangent, op=gast.Add(), right=term)
    tangent = gast.copy_location(tangent, node)
    if index == 1:
        return tangent
    if index is not None:
        raise _refused(rewriter, node, f"srcad.jvp(...)[{index}]: jvp returns (value, tangent)")
    value = jvp_expression(rewriter, node, 0)
    return gast.copy_location(gast.Tuple(elts=[value, tangent], ctx=gast.Load()), node)
