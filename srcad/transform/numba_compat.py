"""Rewrites that keep generated code inside what numba compiles.

* `while True:` (a constant test, left only by `break`): numba cannot type variables updated
  in such a loop ("Type of variable ... cannot be determined"); a test through a variable is
  the same loop and compiles.
* `e ** 2` and `e ** 3` (a literal integer exponent): numba computes an integer power with a
  loop (square and multiply), and a loop inside a loop stops LLVM from vectorizing the outer
  one. They become `e * e` and `e * (e * e)`, the very products numba's loop forms (so the
  same bits), when `e` is plain arithmetic on names, constants and elements: written twice,
  it is computed once (LLVM merges identical pure arithmetic).
* `a @ b`, `np.dot(a, b)`, `np.matmul(a, b)`, `a.dot(b)`: `array_matmul(a, b)`
  (srcad/runtime/numba_arrays.py): numba's own product needs SciPy's BLAS and contiguous operands;
  srcad's calls it where it can, else loops.
* `np.float64(a) / b` (NumPy's division, srcad/rules/numpy_division.py): `np.divide(a, b)`,
  whose quotient by zero is inf or NaN as NumPy's (numba's `/` raises ZeroDivisionError).
* `np.tanh(x)`: `array_tanh(x)` (srcad/runtime/numba_arrays.py): of a float64 array, one loop of
  srcad's vectorizable tanh (numba's calls the C library's once per element, a third of a
  recurrent network's reverse sweep); of a number, numba's own. `np.exp(x)`: `array_exp(x)`
  likewise, with srcad's vectorizable exp (numba's calls the C library's per element, three
  times as long over an array), and `np.log(x)`: `array_log(x)` with its vectorizable log.
* `np.broadcast_shapes(...)`, `np.broadcast_to(x, s)`: `broadcast_shape(...)`,
  `broadcast_view(x, s)` (srcad/runtime/numba_broadcast.py): the same shape and read-only
  view, as straight-line code made for the ranks, where numba's own took seconds to compile
  for each combination of argument types.
* `a += np.outer(x, y)` (a statement, the adjoint of a matrix-vector product):
  `outer_add(a, x, y)`, one loop over `a` instead of a new matrix added to it; `a -= np.outer(x,
  y)` and `a += -np.outer(x, y)` (the adjoint of a solve): `outer_add(a, -x, y)`; not where
  `x` or `y` reads `a`'s name (outer_add reads them while it writes into `a`).
* `np.concatenate([a, b])`, `np.stack([a, b], axis=1)` (and hstack, vstack): the listed
  arrays as a tuple (numba joins tuples of arrays; a list must hold one type).
  `np.stack((a, b), axis=0)`: `array_stack((a, b))` (srcad/runtime/numba_arrays.py), which also
  stacks numbers (the tangent of `np.array([a * a, b])`; numba's np.stack takes arrays).
* `np.array([row, row])` of rows (a 2-D literal `np.array([[x[0], x[1]], [x[2], x[3]]])`, whose
  rows normalization makes arrays), of arrays (`np.array([x[:2], x[2:]])`) or of numbers
  not all written out: `array_stack((row, row))`; numba's np.array takes no list of arrays
  (array_stack keeps NumPy's dtype of numbers: ints of ints, else floats).
* `np.array(x)` of anything but a list or tuple written out: `array_copy(x)`, a copy of an
  array (numba's np.array takes lists, tuples and numbers).
* `np.linalg.slogdet(A).logabsdet` (and `.sign`): `np.linalg.slogdet(A)[1]` (`[0]`):
  numba's slogdet returns a plain pair.
* `x.reshape(s)`, `np.reshape(x, s)`, `np.ravel(x)`, `x.ravel()`: of
  `np.ascontiguousarray(x)` (numba reshapes contiguous arrays only, and fails at run time
  otherwise; the array itself when it is contiguous, a copy otherwise, which no one writes).
  A step-one slice of a name (`work[a:b]`, the workspace generated code carves) is contiguous
  and reshaped as it is.
* `np.expand_dims(g, (0, 2))`: one axis at a time (numba's takes an int), of
  `np.asarray(g)` (numba's takes arrays; `g` is a number where a reduction took every axis).
* `np.sum(x, axis=1, keepdims=True)` (and np.mean, np.max, np.min, np.amax, np.amin, the
  methods `x.sum(axis=0)`, ...): `reduce_sum_1_keep(x)`, a loop nest made for that reduction
  (srcad/transform/numba_reductions.py;
  srcad/runtime/numba_arrays.py `reducer`; the compiler imports each such name it finds). numba has
  np.sum with an int axis only, and no keepdims.
* `t += v` (every augmented assignment whose right side may be an existing array: a name, an
  element or slice, an attribute, a call): `t += unshared(t, v)` (srcad/runtime/numba_semantics.py),
  `v` copied when its memory overlaps `t`'s. NumPy reads the whole right side before it writes
  (`y[1:] += y[:-1]` adds the old values); numba's loop reads each element after the
  previous ones were written.
* `np.roll(x, 1, axis=0)`, `np.pad(x, 1, 'edge')`, `x.take(i, axis=0)` and the rest of the
  movement family: `moved_roll(...)`, ... (srcad/transform/numba_movement.py), which follow
  NumPy's keywords where numba's own functions do not.
* `divmod_parts(x, y).quotient`, `.remainder` (srcad's reading of np.divmod's pair):
  `np.floor_divide(x, y)`, `np.remainder(x, y)`.
* `np.linalg.eigh(A, UPLO='U')`, `np.linalg.eigvalsh(A)`: `spectral_eigh(...)`,
  `spectral_eigvalsh(...)` (srcad/runtime/numba_spectral.py: numba's take no UPLO), and
  `.eigenvalues`, `.eigenvectors` of eigh: `[0]`, `[1]` (numba returns a plain pair).
* `np.tensordot(x, y, axes)`, `np.linalg.multi_dot([...])` and the rest of linear algebra
  numba lacks: srcad/transform/numba_linalg_calls.py.
* `np.add.at(a, idx, v)` (the adjoint of a read through an index array): `scatter_add(a, idx,
  v)` (srcad/runtime/numba_scatter.py), which numba lacks.
* `a ** b` (an exponent that is not a number written out): `int_power(a, b, where)`
  (srcad/runtime/numba_semantics.py): numba's `a ** b` of ints, as Python's; refused at run time
  where Python's is not an int64 (`2 ** -k` is a float in Python, 0 in numba; an int beyond int64
  has no bound in Python, wraps in numba). `where` names the user's line and expression.
* `n = n * k` and `n *= k` (a product kept across statements, the way an int grows past
  int64: a factorial): `n = int_product(n, k, where)`, `n *= int_factor(n, k, where)`
  (srcad/runtime/numba_semantics.py): refused at run time where two ints' product leaves
  int64; floats and arrays multiply as before.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.rules.numpy_entries import NUMBA_STATISTICS
from srcad.transform.numba_linalg_calls import linalg_call, linalg_part
from srcad.transform.numba_movement import moved_call
from srcad.transform.numba_reductions import REDUCTIONS, axis_reduction, reduction_name
from srcad.transform.numba_statistics import statistic_call

_SLOGDET_PARTS = {"sign": 0, "logabsdet": 1}  # numba's slogdet returns a plain pair
_EIGH_PARTS = {"eigenvalues": 0, "eigenvectors": 1}  # and its eigh (spectral_eigh)
# np.divmod's parts as srcad reads them (`divmod_parts(x, y).quotient`): each its ufunc
_DIVMOD_PARTS = {"quotient": "np.floor_divide", "remainder": "np.remainder"}
_SPECTRAL = {"np.linalg.eigh": "spectral_eigh", "np.linalg.eigvalsh": "spectral_eigvalsh"}
# numba joins a tuple, not a list
_JOINS = ("concatenate", "stack", "hstack", "vstack", "column_stack")
# straight-line code made for the ranks (srcad/runtime/numba_broadcast.py)
_BROADCASTS = {"broadcast_shapes": "broadcast_shape", "broadcast_to": "broadcast_view"}


class _ConstantLoops(gast.NodeTransformer):
    def __init__(self, namer):
        self.namer = namer

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                setattr(node, field, self._block(block))
        return node

    def _block(self, block):
        out = []
        for stmt in block:
            if isinstance(stmt, gast.While) and isinstance(stmt.test, gast.Constant) \
                    and stmt.test.value:
                flag = self.namer.fresh("forever")
                out.append(S.assign(S.name(flag), S.const(True)))
                stmt.test = S.name(flag)
            out.append(stmt)
        return out


class _SmallPowers(gast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        exponent = node.right
        if isinstance(node.op, gast.Pow) and isinstance(exponent, gast.Constant) \
                and type(exponent.value) is int and exponent.value in (2, 3) \
                and _plain(node.left):
            square = gast.BinOp(left=node.left, op=gast.Mult(), right=S.clone(node.left))
            if exponent.value == 2:
                return gast.copy_location(square, node)
            return gast.copy_location(gast.BinOp(left=S.clone(node.left), op=gast.Mult(),
                                                 right=square), node)
        return node


class _Products(gast.NodeTransformer):
    def visit_Expr(self, node):
        self.generic_visit(node)
        v = node.value
        if isinstance(v, gast.Call) and S.unparse_expr(v.func) == "np.add.at" \
                and len(v.args) == 3 and not v.keywords:
            return gast.copy_location(S.expr_stmt(S.call("scatter_add", *v.args)), node)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        v = node.value
        negated = isinstance(node.op, gast.Sub)
        if isinstance(node.op, gast.Add) and isinstance(v, gast.UnaryOp) \
                and isinstance(v.op, gast.USub):  # `a += -np.outer(x, y)` (solve's adjoint)
            v, negated = v.operand, True
        if isinstance(node.op, (gast.Add, gast.Sub)) and isinstance(v, gast.Call) \
                and not v.keywords and len(v.args) == 2 and isinstance(v.func, gast.Attribute) \
                and v.func.attr == "outer" and isinstance(v.func.value, gast.Name) \
                and v.func.value.id == "np" \
                and not {n.id for n in S.nodes(node.target) if isinstance(n, gast.Name)} \
                & set().union(*map(S.loaded_names, v.args)):
            # (outer_add reads x and y while it writes: none may be a view of the target)
            target = S.clone(node.target)
            target.ctx = gast.Load()  # a Name or a Subscript: its inner loads stay loads
            x, y = v.args  # -(x y) and (-x) y are the same numbers
            x = gast.UnaryOp(op=gast.USub(), operand=x) if negated else x
            return gast.copy_location(S.expr_stmt(S.call("outer_add", target, x, y)), node)
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        part = linalg_part(node)  # linalg_svd(A).U, lstsq_parts(A, b).solution
        if part is not node:
            return part
        if node.attr in _DIVMOD_PARTS and isinstance(node.value, gast.Call) \
                and S.unparse_expr(node.value.func) == "divmod_parts":
            return gast.copy_location(S.call(_DIVMOD_PARTS[node.attr], *node.value.args), node)
        if node.attr in _EIGH_PARTS and isinstance(node.value, gast.Call) \
                and S.unparse_expr(node.value.func) == "spectral_eigh":
            index = S.const(_EIGH_PARTS[node.attr])
            return gast.copy_location(gast.Subscript(value=node.value, slice=index,
                                                     ctx=gast.Load()), node)
        if node.attr in _SLOGDET_PARTS and isinstance(node.value, gast.Call) \
                and S.unparse_expr(node.value.func) in ("np.linalg.slogdet", "linalg_slogdet"):
            index = S.const(_SLOGDET_PARTS[node.attr])
            return gast.copy_location(gast.Subscript(value=node.value, slice=index,
                                                     ctx=gast.Load()), node)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.MatMult):
            return gast.copy_location(S.call("array_matmul", node.left, node.right), node)
        left = node.left
        if isinstance(node.op, gast.Div) and isinstance(left, gast.Call) and len(left.args) == 1 \
                and not left.keywords and S.unparse_expr(left.func) == "np.float64":
            return gast.copy_location(S.call("np.divide", left.args[0], node.right), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, gast.Name) and f.id in ("cross_of", "cross_length"):  # np.cross's
            # derivative (srcad/runtime/cross_runtime.py): numba's np.cross takes no axis
            # keywords and 3-vectors
            return gast.copy_location(S.call("np.cross", *node.args[:2]), node) \
                if f.id == "cross_of" else gast.copy_location(gast.Subscript(
                    value=node.args[0], slice=node.args[2], ctx=gast.Load()), node)
        if not isinstance(f, gast.Attribute):
            return node
        if isinstance(f.value, gast.Name) and f.value.id == "math" and f.attr == "hypot" \
                and len(node.args) == 1 and not node.keywords:  # numba's takes two or more
            return gast.copy_location(S.call("abs", node.args[0]), node)
        module = isinstance(f.value, gast.Name) and f.value.id == "np"
        if module and f.attr == "heaviside" and len(node.args) == 2 and not node.keywords:
            return gast.copy_location(S.call("array_heaviside", *node.args), node)
        if f.attr == "squeeze":  # np.squeeze(x, axis), x.squeeze(axis)
            squeezed = _squeezed(node if module else gast.Call(
                func=f, args=[f.value, *node.args], keywords=node.keywords))
            if squeezed is not None:
                return gast.copy_location(squeezed, node)
        if module and f.attr == "fix":  # rounds toward zero: np.trunc, which numba has
            f.attr = "trunc"
            return node
        if not module and f.attr == "round":  # x.round(1): numba has the function only
            return gast.copy_location(gast.Call(func=S.parse_expr("np.round"), args=[
                f.value, *node.args], keywords=node.keywords), node)
        if f.attr in REDUCTIONS:
            return axis_reduction(node, module)
        moved = moved_call(node, module)  # np.roll(x, 1, axis=0), x.take(i, 0), ...
        if moved is not node:
            return moved
        linalg = linalg_call(node)  # np.tensordot, np.linalg.multi_dot, ...
        if linalg is not node:
            return linalg
        if f.attr in NUMBA_STATISTICS:  # np.var(x, axis=0, ddof=1), ...
            return statistic_call(node, module, reduction_name)
        if S.unparse_expr(f) in _SPECTRAL:  # UPLO= (srcad/runtime/numba_spectral.py)
            node.func = S.name(_SPECTRAL[S.unparse_expr(f)])
            return node
        if module and f.attr == "expand_dims" and len(node.args) == 2 \
                and isinstance(node.args[1], gast.Tuple):
            # numba takes one axis: inserted one by one, in increasing order (non-negative
            # axes: the reduction rules spell them so), each lands where the tuple puts it
            out = S.call("np.asarray", node.args[0])  # of a number too (a whole reduction)
            for axis in sorted(node.args[1].elts, key=_literal):
                out = S.call("np.expand_dims", out, axis)
            return gast.copy_location(out, node)
        if f.attr in ("reshape", "ravel") and (module or f.attr == "reshape") and node.args:
            if module:  # np.reshape(x, s), np.ravel(x)
                node.args[0] = S.call("np.ascontiguousarray", node.args[0])
            elif not _contiguous_slice(f.value):  # x.reshape(s)
                f.value = S.call("np.ascontiguousarray", f.value)
            return node
        if not module and f.attr in ("ravel", "flatten") and not node.args:
            f.value = S.call("np.ascontiguousarray", f.value)
            return node
        if module and f.attr in _JOINS and node.args and isinstance(node.args[0], gast.List):
            node.args[0] = gast.Tuple(elts=node.args[0].elts, ctx=gast.Load())
        if module and f.attr == "stack" and len(node.args) == 1 \
                and isinstance(node.args[0], gast.Tuple) and _axis_zero(node.keywords):
            return gast.copy_location(S.call("array_stack", node.args[0]), node)
        if module and f.attr in _JOINS and node.args and isinstance(node.args[0], gast.Tuple):
            return node
        if node.keywords:
            return node
        if module and f.attr == "array" and len(node.args) == 1 \
                and not isinstance(node.args[0], (gast.List, gast.Tuple)):
            return gast.copy_location(S.call("array_copy", node.args[0]), node)
        if module and f.attr == "array" and len(node.args) == 1 and node.args[0].elts \
                and not _starred(node.args[0].elts) \
                and not all(isinstance(e, gast.Constant) for e in node.args[0].elts):
            # rows written out (a 2-D literal), arrays (`[x[:2], x[2:]]`) or numbers
            rows = gast.Tuple(elts=list(node.args[0].elts), ctx=gast.Load())
            return gast.copy_location(S.call("array_stack", rows), node)
        if module and f.attr in _BROADCASTS and not _starred(node.args) and (
                f.attr == "broadcast_shapes" or len(node.args) == 2):
            return gast.copy_location(S.call(_BROADCASTS[f.attr], *node.args), node)
        if module and f.attr in ("tanh", "exp", "log") and len(node.args) == 1:
            return gast.copy_location(S.call(f"array_{f.attr}", *node.args), node)
        if module and f.attr in ("dot", "matmul") and len(node.args) == 2:
            return gast.copy_location(S.call("array_matmul", *node.args), node)
        if not module and f.attr == "dot" and len(node.args) == 1:  # x.dot(y)
            return gast.copy_location(S.call("array_matmul", f.value, node.args[0]), node)
        return node


def _axis_zero(keywords) -> bool:
    """No keyword but `axis=0` (np.stack's default)."""
    return all(k.arg == "axis" and isinstance(k.value, gast.Constant) and k.value.value == 0
               for k in keywords)


def _literal(e):
    try:
        return gast.literal_eval(e)
    except ValueError:
        return 0


def _contiguous_slice(e) -> bool:
    """`work[a:b]`: a step-one slice of a name (the workspace carved by generated code, a 1-D
    contiguous array) is contiguous: reshaped as it is, a view of the workspace."""
    return isinstance(e, gast.Subscript) and isinstance(e.value, gast.Name) \
        and isinstance(e.slice, gast.Slice) and e.slice.step is None


def _starred(args) -> bool:
    return any(isinstance(a, gast.Starred) for a in args)


def _plain(e) -> bool:
    return all(isinstance(n, (gast.Name, gast.Constant, gast.Attribute, gast.Subscript,
                              gast.BinOp, gast.UnaryOp, gast.Tuple, gast.Load,
                              gast.operator, gast.unaryop, gast.expr_context))
               for n in gast.walk(e))


class _IntPowers(gast.NodeTransformer):
    def __init__(self, where):
        self.where = where

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.Pow) and not isinstance(node.right, gast.Constant):
            where = S.const(self.where(node) if self.where else f"`{S.unparse_expr(node)}`")
            return gast.copy_location(S.call("int_power", node.left, node.right, where), node)
        return node


class _IntProducts(gast.NodeTransformer):
    """`n = n * k` (either operand) and `n *= k` for a name n: checked where both are ints."""

    def __init__(self, where):
        self.where = where

    def _where(self, node):
        return S.const(self.where(node) if self.where else f"`{S.unparse_expr(node)}`")

    def visit_AugAssign(self, node):
        if isinstance(node.op, gast.Mult) and isinstance(node.target, gast.Name):
            node.value = gast.copy_location(S.call("int_factor", S.name(node.target.id),
                                                   node.value, self._where(node)), node.value)
        return node

    def visit_Assign(self, node):
        value = node.value
        if len(node.targets) == 1 and isinstance(node.targets[0], gast.Name) \
                and isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult) \
                and any(isinstance(o, gast.Name) and o.id == node.targets[0].id
                        for o in (value.left, value.right)):
            node.value = gast.copy_location(S.call("int_product", value.left, value.right,
                                                   self._where(value)), value)
        return node


class _Unshared(gast.NodeTransformer):
    def visit_AugAssign(self, node):
        if not isinstance(node.value, _FRESH):
            target = S.clone(node.target)
            target.ctx = gast.Load()  # a Name or a Subscript: its inner loads stay loads
            node.value = gast.copy_location(S.call("unshared", target, node.value), node.value)
        return node


# right sides that are a new value, never an existing array's memory
_FRESH = (gast.Constant, gast.BinOp, gast.UnaryOp, gast.BoolOp, gast.Compare, gast.List,
          gast.Tuple, gast.ListComp)


def numba_friendly(tree, namer, where=None):
    """`tree` with the rewrites above applied (in place). `where(node)`: the user's file,
    line and expression of a generated node, for the run-time refusals."""
    tree = _Products().visit(_SmallPowers().visit(_ConstantLoops(namer).visit(tree)))
    tree = _IntProducts(where).visit(_IntPowers(where).visit(tree))
    return _Unshared().visit(tree)


def _squeezed(node):
    """`np.squeeze(x, axis=k)` (k non-negative ints, as the rule spells them) of a name or a
    view as the reshape numba has: `x.shape` without those axes; else None."""
    operand = node.args[0] if node.args else None
    axis = node.args[1] if len(node.args) > 1 else next(
        (k.value for k in node.keywords if k.arg == "axis"), None)
    try:
        axes = gast.literal_eval(axis) if axis is not None else None
    except ValueError:
        return None
    axes = (axes,) if isinstance(axes, int) else axes
    if not isinstance(operand, (gast.Name, gast.Subscript)) or not isinstance(axes, tuple) \
            or not all(isinstance(a, int) and a >= 0 for a in axes):
        return None
    shape = S.parse_expr(f"({S.unparse_expr(operand)}).shape")
    for a in sorted(axes, reverse=True):
        text = S.unparse_expr(shape)
        shape = S.parse_expr(f"({text})[:{a}] + ({text})[{a + 1}:]")
    return S.call("np.reshape", S.call("np.ascontiguousarray", S.clone(operand)), shape)
