"""Linear algebra calls spelled for numba (a part of srcad/transform/numba_compat.py's
rewrites of generated code).

* `np.tensordot(x, y, axes=([1], [0]))`: `moved_tensordot(x, y, '([1], [0])')`, the axes
  written in the call passed as a string literal (srcad/runtime/numba_products.py makes the
  einsum subscripts of them when numba types the call: numba has no np.tensordot).
* `np.linalg.multi_dot([a, b, c])`: `array_matmul(array_matmul(a, b), c)` (numba has no
  multi_dot; the same product, its terms summed in NumPy's order for the chain's order).
* `np.linalg.svd(A, ...)`, `np.linalg.qr(A, ...)`, `np.linalg.pinv(A, ...)`: `linalg_svd`,
  `linalg_qr`, `linalg_pinv` with the same arguments (srcad/runtime/numba_decompositions.py
  follows NumPy's keywords), and their parts `.U`, `.S`, `.Vh`, `.Q`, `.R` and lstsq_parts'
  `.solution`, `.residuals`, `.rank`, `.singular_values` as `[0]`, `[1]`, ... (numba returns
  plain tuples).
* `np.linalg.matrix_power(A, n)`: `linalg_matrix_power(A, n)` (srcad/runtime/numba_products.py:
  numba's own is typed as returning an array or None, which numba cannot add into).
* `np.linalg.solve(A, b)`: `linalg_solve(A, b)` (srcad/runtime/numba_lapack.py: LAPACK's dgesv
  on copies of the operands in any layout, compiled once per rank of `b`, without numba's
  run-time formatted messages; numba's own solve of float64 operands compiled once per
  combination of their layouts).
* `np.linalg.inv(A)`, `np.linalg.slogdet(A)`, `np.linalg.det(A)`: `linalg_inv(A)`,
  `linalg_slogdet(A)`, `linalg_det(A)` (srcad/runtime/numba_lapack.py: one compile each
  whatever the layout of `A`, the inverse through the solve's compiled code; numba's own
  compiled once per layout of its operand, each with its LAPACK glue and error paths, and an
  adjoint reads `A.T`, layout F, where the primal read `A`).

>>> from srcad.frontend import syntax as S
>>> S.unparse_expr(linalg_call(S.parse_expr("np.tensordot(a, b, axes=([1], [0]))")))
"moved_tensordot(a, b, '([1], [0])')"
>>> S.unparse_expr(linalg_call(S.parse_expr("np.linalg.multi_dot([a, b, c])")))
'array_matmul(array_matmul(a, b), c)'
>>> S.unparse_expr(linalg_call(S.parse_expr("np.linalg.solve(a.T, g)")))
'linalg_solve(a.T, g)'
>>> S.unparse_expr(linalg_call(S.parse_expr("np.linalg.inv(a.T)")))
'linalg_inv(a.T)'
>>> S.unparse_expr(linalg_part(S.parse_expr("linalg_svd(a, False).Vh")))
'linalg_svd(a, False)[2]'
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S

_RENAMED = {"np.linalg.svd": "linalg_svd", "np.linalg.qr": "linalg_qr",
            "np.linalg.pinv": "linalg_pinv",
            # srcad/runtime/numba_lapack.py
            "np.linalg.solve": "linalg_solve", "np.linalg.inv": "linalg_inv",
            "np.linalg.slogdet": "linalg_slogdet", "np.linalg.det": "linalg_det",
            # srcad/runtime/numba_products.py: numba types its own as an array or None
            "np.linalg.matrix_power": "linalg_matrix_power"}
# the parts of the tuples these return, by name (srcad/rules/spectral.py FIELDS)
_PARTS = {"linalg_svd": ("U", "S", "Vh"), "linalg_qr": ("Q", "R"),
          "lstsq_parts": ("solution", "residuals", "rank", "singular_values")}


def linalg_part(node):
    """`f(...)[k]` for the attribute `node` that reads part k of a decomposition `f(...)`
    spelled for numba, or `node` itself."""
    call = node.value
    if not isinstance(call, gast.Call) or not isinstance(call.func, gast.Name):
        return node
    parts = _PARTS.get(call.func.id, ())
    if node.attr not in parts:
        return node
    return gast.copy_location(gast.Subscript(value=call, slice=S.const(parts.index(node.attr)),
                                             ctx=gast.Load()), node)


def linalg_call(node):
    """The numba spelling of the call `node` (a gast.Call), or `node` itself."""
    spelled = S.unparse_expr(node.func)
    if spelled == "np.inner" and len(node.args) == 2 and not node.keywords:
        # numba has no np.inner: the product over both last axes
        return gast.copy_location(S.call("moved_tensordot", *node.args,
                                         S.const("([-1], [-1])")), node)
    if spelled == "np.vdot" and len(node.args) == 2 and not node.keywords:
        # numba's np.vdot takes vectors: NumPy's flattens its operands
        flat = [S.call("np.ravel", S.call("np.ascontiguousarray", a)) for a in node.args]
        return gast.copy_location(S.call("np.vdot", *flat), node)
    if spelled == "np.tensordot" and len(node.args) >= 2:
        axes = next((k.value for k in node.keywords if k.arg == "axes"),
                    node.args[2] if len(node.args) > 2 else S.const(2))
        try:
            gast.literal_eval(axes)
        except ValueError:  # not written in the call: numba refuses it by name
            return node
        return gast.copy_location(S.call("moved_tensordot", *node.args[:2],
                                         S.const(S.unparse_expr(axes))), node)
    if spelled in _RENAMED:
        node.func = S.name(_RENAMED[spelled])
        return node
    if spelled == "np.linalg.multi_dot" and len(node.args) == 1 and not node.keywords \
            and isinstance(node.args[0], (gast.List, gast.Tuple)) and node.args[0].elts:
        product, *rest = node.args[0].elts
        for factor in rest:
            product = S.call("array_matmul", product, factor)
        return gast.copy_location(product, node)
    return node
