"""Numba backend, reverse mode: an array adjoint's first contribution is assigned, not added
to zeros. The reverse sweep makes `v_bar = np.zeros_like(v)` and later adds into it; where
the first statement that mentions `v_bar` after those zeros (in the same block) is
`v_bar += e` (or `v_bar += unshared(v_bar, e)`) with `e` not reading `v_bar`, the two become

    v_bar = assigned_adjoint(v, e)   # e a new array: a fused loop, a matrix product, arithmetic
    v_bar = copied_adjoint(v, e)     # e a name or `unbroadcast` of one: an array others hold

which is `e` itself (or its copy) where `e` is a float64 array of v's shape, and the zeros plus
`e` otherwise (srcad/runtime/numba_semantics.py): one pass over memory where there were three
(the zeros, the read of both, the write). Other first contributions (a call of a nested
kernel, whose result may be a view of its scratch) keep their zeros. The python backend's code
is not rewritten.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S

_MADE = ("fused_", "array_matmul")  # calls whose result is a new array (or a number)


def assign_first_adjoints(tree, bars: dict) -> None:
    """Rewrite (in place) the first contributions of the adjoints `bars` (v -> v_bar) in the
    blocks of `tree`'s functions."""
    primal = {bar: v for v, bar in bars.items()}
    if not primal:
        return
    for fn in (n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)):
        for node in S.walk(fn):
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                    setattr(node, field, _block(block, primal))


def _block(block, primal):
    out = list(block)
    k = 0
    while k < len(out):
        bar = _zeros_of(out[k], primal)
        if bar is not None:
            first = next((j for j in range(k + 1, len(out))
                          if bar in {n.id for n in S.nodes(out[j]) if isinstance(n, gast.Name)}),
                         None)
            changed = first is not None and not any(
                primal[bar] in S.stored_names(s) for s in out[k + 1:first])
            assigned = _assigned(out[first], bar, primal[bar]) if changed else None
            if assigned is not None:
                out[first] = gast.copy_location(assigned, out[first])
                del out[k]
                continue
        k += 1
    return out


def _zeros_of(stmt, primal):
    """`v_bar` where `stmt` is `v_bar = np.zeros_like(v)`, else None."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in primal):
        return None
    value, bar = stmt.value, stmt.targets[0].id
    if isinstance(value, gast.Call) and S.unparse_expr(value.func) == "np.zeros_like" \
            and len(value.args) == 1 and not value.keywords \
            and isinstance(value.args[0], gast.Name) and value.args[0].id == primal[bar]:
        return bar
    return None


def _assigned(stmt, bar, v):
    """`v_bar = assigned_adjoint(v, e)` or `copied_adjoint` for `stmt` `v_bar += e`; None
    where `stmt` is anything else or `e` is neither new nor a name's value."""
    if not (isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add)
            and isinstance(stmt.target, gast.Name) and stmt.target.id == bar):
        return None
    e = stmt.value
    if isinstance(e, gast.Call) and isinstance(e.func, gast.Name) and e.func.id == "unshared" \
            and len(e.args) == 2 and isinstance(e.args[0], gast.Name) and e.args[0].id == bar:
        e = e.args[1]
    if bar in S.loaded_names(e):
        return None
    if _broadcast_to_own_shape(e, v):  # a number spread over v (the adjoint of np.sum)
        return S.assign(S.name(bar), S.call("copied_adjoint", S.name(v), e.args[0]))
    if isinstance(e, (gast.BinOp, gast.UnaryOp)) or (
            isinstance(e, gast.Call) and isinstance(e.func, gast.Name)
            and e.func.id.startswith(_MADE)):
        helper = "assigned_adjoint"
    elif isinstance(e, gast.Name) or (
            isinstance(e, gast.Call) and isinstance(e.func, gast.Name)
            and e.func.id == "unbroadcast" and isinstance(e.args[0], gast.Name)):
        helper = "copied_adjoint"
    else:
        return None
    return S.assign(S.name(bar), S.call(helper, S.name(v), e))


def _broadcast_to_own_shape(e, v) -> bool:
    """Whether `e` is `broadcast_view(s, v.shape)`: its first contribution is `s` spread over
    v's shape, which `copied_adjoint(v, s)` makes in one pass (`np.full` of a number)."""
    return isinstance(e, gast.Call) and isinstance(e.func, gast.Name) \
        and e.func.id == "broadcast_view" and len(e.args) == 2 and not e.keywords \
        and S.unparse_expr(e.args[1]) == f"{v}.shape"
