"""Batched reverse mode on numba: the generated reverse code run on W lanes of adjoints by a
loop over the lanes around each run of adjoint statements.

The reverse code is linear in its adjoints and each lane's adjoints follow the statements in
the same order, so the W lanes can run statement by statement. This rewrite of the
generated (numba-ready) source makes that explicit, for any W and without allocating:

* an adjoint float `t_bar` becomes a row of a workspace the caller passes
  (`t_bar = _srcad_lanes[K]`, a view: no allocation), and `t_bar` in a statement `t_bar[k]`;
* an adjoint array (a shadow the caller passes, or one the code allocates with
  `np.zeros_like(v)`) holds its lanes last: `y_bar[i]` becomes `y_bar[i, k]`, and the
  allocation `np.zeros(v.shape + (W,))` (the one-lane code allocates it too);
* a name bound to a row or slice of an adjoint array (`row_bar = A_bar[i]`, `A_bar[i, :]`:
  the reverse code binds such names only with ints and slices, views, see
  transform/reverse/view_adjoints.py) is an adjoint array too, the same view of the lanes-last
  array, so its lanes are last as well; the binding runs once, outside the lane loops;
* an array copied from an argument (`c = x.copy()`, `np.copy(x)`) has x's dimensions, and
  so does the adjoint array allocated for it;
* a float result's seed `result_bar` is a vector of W seeds, `result_bar[k]`;
* each run of consecutive adjoint statements becomes one `for k in range(W):` loop: the
  primal and tape statements between them run once, as in the one-lane code; one that binds
  names only and shares none with the run before it runs before that run's loop, which then
  goes on (srcad/operators/lane_runs.py: fewer loops for numba to compile, the same results).

Anything else that could mix the lanes or run a side effect W times is refused
(`BatchUnsupported`, the caller then sweeps once per cotangent): a branch or a loop bound
on an adjoint, an adjoint array used whole (but in `a_bar += b_bar`) or indexed by fewer
indices than it has dimensions outside a view binding, a call other than `math` and plain
scalar builtins in an adjoint statement, a local adjoint array whose dimensions cannot be
read from its allocation.
"""

from __future__ import annotations

import ast

from srcad.errors import SrcadError
from srcad.operators.lane_runs import integer_counters, moves_before, variables

_SCALAR_CALLS = {"abs", "min", "max", "float", "int", "pow", "simd_exp"}
_MAKERS = {"zeros", "empty", "ones", "full"}
LANE = "_srcad_k"
WIDTH = "_srcad_w"
WORKSPACE = "_srcad_lanes"


class BatchUnsupported(SrcadError):
    """The reverse code does something the lanes cannot go through (see the module doc of
    srcad/operators/batched_reverse.py and this one's): the caller sweeps once per cotangent."""


def _refuse(what):
    raise BatchUnsupported(f"batched reverse mode runs element-by-element adjoint code; the "
                           f"reverse code has {what}", construct="batch",
                           hint="leave chunk out: one reverse sweep per row")


class LaneCode:
    """The rewritten source of one reverse function and the count of workspace rows."""

    def __init__(self, source: str, value_ndims: dict, seed_ndim: int | None):
        """`value_ndims`: ndim of every array argument (by parameter name) whose shadow
        `<name>_bar` the function takes; `seed_ndim`: the result's ndim (None: a float or
        no result)."""
        tree = _SharedRightSides().visit(ast.parse(source))
        self.function = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
        parameters = [a.arg for a in self.function.args.args]
        if "result_bar" not in parameters:
            _refuse("no result seed parameter")
        self.arrays = {f"{name}_bar": ndim for name, ndim in value_ndims.items()
                       if f"{name}_bar" in parameters}
        self.arrays["result_bar"] = 0 if seed_ndim is None else seed_ndim
        self._local_arrays()
        self.scalars = self._lane_scalars()
        self.variables = variables(self.function)
        self.counters = integer_counters(self.function)
        self.function.body = self._block(self.function.body)
        prologue = [_parse(f"{WIDTH} = {WORKSPACE}.shape[1]")]
        prologue += [_parse(f"{name} = {WORKSPACE}[{k}]") for k, name in enumerate(self.scalars)]
        docstring = self.function.body[:1] if _is_docstring(self.function.body[0]) else []
        self.function.body = docstring + prologue + self.function.body[len(docstring):]
        position = parameters.index("result_bar") + 1
        self.function.args.args.insert(position, ast.arg(WORKSPACE))
        self.function.args.defaults = []
        self.rows = len(self.scalars)
        self.source = ast.unparse(ast.fix_missing_locations(tree))
        self.name = self.function.name

    # -- which values hold lanes ----------------------------------------------------------------
    def _local_arrays(self):
        """Adjoint arrays the code allocates: `a_bar = np.zeros_like(a)`, ndim read from a's
        allocation (`a = np.zeros((3, n))`) or from the argument a is."""
        ndims = {}
        for node in ast.walk(self.function):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name) and _np_call(node.value, _MAKERS):
                shape = node.value.args[0] if node.value.args else None
                ndim = len(shape.elts) if isinstance(shape, ast.Tuple) else 1
                if ndims.get(node.targets[0].id, ndim) != ndim:
                    ndim = -1
                ndims[node.targets[0].id] = ndim
        for name, ndim in list(self.arrays.items()):
            if name != "result_bar":
                ndims.setdefault(name[:-4], ndim)
        for node in ast.walk(self.function):  # `c = x.copy()`: x's dimensions
            source = _copied(node.value) if isinstance(node, ast.Assign) \
                and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) else None
            if source is not None and source in ndims:
                target = node.targets[0].id
                ndims[target] = ndims[source] if ndims.get(target, ndims[source]) \
                    == ndims[source] else -1
        for node in ast.walk(self.function):
            if isinstance(node, ast.Assign) and _np_call(node.value, {"zeros_like"}):
                target = node.targets[0]
                if not (isinstance(target, ast.Name) and target.id.endswith("_bar")):
                    continue
                source = node.value.args[0] if node.value.args else None
                name = source.id if isinstance(source, ast.Name) else None
                if name in self.arrays:  # a reset of an adjoint array: lanes included
                    ndim = self.arrays[name]
                elif ndims.get(name, -1) < 0:
                    _refuse(f"the adjoint array `{target.id}` of unknown dimensions")
                else:
                    ndim = ndims[name]
                if self.arrays.get(target.id, ndim) != ndim:
                    _refuse(f"the adjoint array `{target.id}` allocated with two shapes")
                self.arrays[target.id] = ndim
        self._adjoint_views()

    def _adjoint_views(self):
        """Names bound to a row or slice of an adjoint array (`row_bar = A_bar[i, :]`): adjoint
        arrays of the view's dimensions, lanes last (views of views too)."""
        bindings = [(node.targets[0].id, node.value) for node in ast.walk(self.function)
                    if isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)]
        changed = True
        while changed:
            changed = False
            for name, value in bindings:
                ndim = _view_ndim(value, self.arrays)
                if ndim is None or self.arrays.get(name) == ndim:
                    continue
                if name in self.arrays:
                    _refuse(f"the adjoint array `{name}` bound with two shapes")
                self.arrays[name] = ndim
                changed = True
        self.views = {name for name, value in bindings
                      if _view_ndim(value, self.arrays) is not None}

    def _lane_scalars(self) -> list:
        assignments = []
        for node in ast.walk(self.function):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                assignments.append((targets, node.value))
        scalars, changed = [], True
        while changed:
            changed = False
            for targets, value in assignments:
                for target in targets:
                    if not isinstance(target, ast.Name) or target.id in self.arrays \
                            or target.id in scalars:
                        continue
                    if target.id.endswith("_bar") or self._has_lanes(value, scalars):
                        scalars.append(target.id)
                        changed = True
        return scalars

    def _has_lanes(self, expr, scalars=None) -> bool:
        scalars = self.scalars if scalars is None else scalars
        return any(isinstance(n, ast.Name) and (n.id in scalars or n.id in self.arrays)
                   for n in ast.walk(expr))

    # -- statements -----------------------------------------------------------------------------
    def _block(self, body) -> list:
        out, run, run_names = [], [], set()
        for stmt in [s for written in body for s in self._unguarded(written)]:
            lane = self._lane_statement(stmt)
            if lane is not None:
                run.append(lane)
                run_names |= {n.id for n in ast.walk(lane) if isinstance(n, ast.Name)
                              and n.id in self.variables}
                continue
            if run and not self._has_lanes(stmt) and moves_before(stmt, run_names,
                                                                   self.counters):
                out.append(stmt)  # runs before the run's loop, which stays open (lane_runs.py)
                continue
            if run:
                out.append(_lane_loop(run))
                run, run_names = [], set()
            out.append(self._other_statement(stmt))
        if run:
            out.append(_lane_loop(run))
        return out

    def _unguarded(self, stmt) -> list:
        """`stmt`, or the loop of a guard `if g_bar != 0.0: <for loop>` that skips a reverse
        loop adding only multiples of a zero adjoint (srcad/transform/numba_zero_adjoints.py):
        with lanes, g_bar holds one adjoint per lane, and running the loop for every lane
        adds the same as skipping it where a lane's adjoint is zero."""
        test = stmt.test if isinstance(stmt, ast.If) else None
        if isinstance(test, ast.Compare) and not stmt.orelse and len(stmt.body) == 1 \
                and isinstance(stmt.body[0], ast.For) and isinstance(test.left, ast.Name) \
                and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotEq) \
                and isinstance(test.comparators[0], ast.Constant) \
                and test.comparators[0].value == 0.0 and self._has_lanes(test.left):
            return stmt.body
        return [stmt]

    def _lane_statement(self, stmt):
        """The statement with lane k's names, if it computes an adjoint; else None."""
        if not isinstance(stmt, (ast.Assign, ast.AugAssign)):
            return None
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if len(targets) != 1:
            if any(self._has_lanes(t) for t in targets):
                _refuse(f"the assignment `{ast.unparse(stmt)}`")
            return None
        target = targets[0]
        if isinstance(target, ast.Name) and target.id in self.arrays:
            if isinstance(stmt, ast.Assign) and (_np_call(stmt.value, {"zeros_like"})
                                                 or target.id in self.views
                                                 and _view_ndim(stmt.value, self.arrays)):
                return None  # an allocation, rewritten with the other statements; a view
            if self._whole_array_sum(stmt):
                return None  # `y_bar += result_bar`: both lanes last, elementwise
            _refuse(f"the adjoint array `{target.id}` rebound")
        is_lane = (isinstance(target, ast.Name) and target.id in self.scalars) or (
            isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
            and target.value.id in self.arrays)
        if not is_lane:
            return None
        for node in ast.walk(stmt.value):
            if isinstance(node, ast.Call) and not _scalar_call(node.func):
                _refuse(f"the call {ast.unparse(node.func)} in an adjoint statement")
            if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.Lambda, ast.Slice)):
                _refuse(f"`{ast.unparse(node)}` in an adjoint statement")
        return _Lanes(self).visit(stmt)

    def _other_statement(self, stmt):
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name) \
                and stmt.targets[0].id in self.arrays:  # np.zeros_like(v): lanes last
            if not _np_call(stmt.value, {"zeros_like"}):
                return stmt  # a view of an adjoint array: its lanes stay last
            source = stmt.value.args[0]
            if not (isinstance(source, ast.Name) and source.id in self.arrays):
                # not a reset (np.zeros_like(a_bar) keeps its lanes): lanes added last
                stmt.value = _parse(f"np.zeros({ast.unparse(source)}.shape + ({WIDTH},))").value
            return stmt
        if isinstance(stmt, (ast.If, ast.While)):
            if self._has_lanes(stmt.test):
                _refuse(f"a branch on an adjoint: `{ast.unparse(stmt.test)}`")
            stmt.body, stmt.orelse = self._block(stmt.body), self._block(stmt.orelse)
            return stmt
        if isinstance(stmt, ast.For):
            if self._has_lanes(stmt.iter) or self._has_lanes(stmt.target):
                _refuse(f"a loop over adjoints: `{ast.unparse(stmt.iter)}`")
            stmt.body, stmt.orelse = self._block(stmt.body), self._block(stmt.orelse)
            return stmt
        if self._whole_array_sum(stmt):
            return stmt
        if isinstance(stmt, ast.Return) and stmt.value is not None:
            self._check_return(stmt.value)
            return stmt
        if self._has_lanes(stmt):
            _refuse(f"the statement `{ast.unparse(stmt)}`")
        return stmt

    def _whole_array_sum(self, stmt) -> bool:
        """`a_bar += b_bar` (or -=) of two adjoint arrays of one shape: elementwise, so the
        lanes (last in both) add lane by lane."""
        return (isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, (ast.Add, ast.Sub))
                and isinstance(stmt.target, ast.Name) and isinstance(stmt.value, ast.Name)
                and stmt.target.id in self.arrays and stmt.value.id in self.arrays
                and self.arrays[stmt.target.id] == self.arrays[stmt.value.id] > 0)

    def _check_return(self, value):
        """(value, (adjoints of Active floats), tapes...): an Active float's adjoint is
        returned as its W lanes (the workspace row)."""
        parts = value.elts if isinstance(value, ast.Tuple) else [value]
        for k, part in enumerate(parts):
            if k == 1 and isinstance(part, ast.Tuple):
                for element in part.elts:
                    if not (isinstance(element, ast.Name) and element.id in self.scalars) \
                            and self._has_lanes(element):
                        _refuse(f"the returned adjoint `{ast.unparse(element)}`")
            elif self._has_lanes(part):
                _refuse(f"the returned `{ast.unparse(part)}`")


class _Lanes(ast.NodeTransformer):
    """Lane k's form of an adjoint statement."""

    def __init__(self, code: LaneCode):
        self.code = code

    def visit_Name(self, node):
        if node.id in self.code.scalars or self.code.arrays.get(node.id) == 0:
            return ast.Subscript(value=ast.Name(node.id, ast.Load()),
                                 slice=ast.Name(LANE, ast.Load()), ctx=node.ctx)
        if node.id in self.code.arrays:
            _refuse(f"the adjoint array `{node.id}` used whole")
        return node

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in self.code.arrays:
            index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if len(index) != self.code.arrays[node.value.id]:
                _refuse(f"`{ast.unparse(node)}`, a part of an adjoint array")
            index = [self.visit(i) for i in index] + [ast.Name(LANE, ast.Load())]
            return ast.Subscript(value=node.value, slice=ast.Tuple(index, ast.Load()),
                                 ctx=node.ctx)
        return self.generic_visit(node)


def _lane_loop(statements) -> ast.For:
    return ast.For(target=ast.Name(LANE, ast.Store()),
                   iter=_parse(f"range({WIDTH})").value, body=statements, orelse=[])


def _parse(text):
    return ast.parse(text).body[0]


class _SharedRightSides(ast.NodeTransformer):
    """`unshared(t, v)` -> `v`: the numba code copies the right side of `t op= v` where it may
    overlap t (srcad/runtime/numba_semantics.py); the adjoint statements lanes rewrite add into
    elements, or add one adjoint array into another, which never overlap."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "unshared":
            return node.args[1]
        return node


def _is_docstring(stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def _np_call(value, names) -> bool:
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and isinstance(value.func.value, ast.Name) and value.func.value.id == "np"
            and value.func.attr in names)


def _copied(value) -> str | None:
    """x of `x.copy()` or `np.copy(x)`, else None."""
    if isinstance(value, ast.Call) and not value.keywords and isinstance(value.func,
                                                                         ast.Attribute):
        if value.func.attr == "copy" and not value.args \
                and isinstance(value.func.value, ast.Name) and value.func.value.id != "np":
            return value.func.value.id
        if _np_call(value, {"copy"}) and len(value.args) == 1 \
                and isinstance(value.args[0], ast.Name):
            return value.args[0].id
    return None


def _view_ndim(value, arrays: dict) -> int | None:
    """The dimensions of `value` when it is a row or slice of an adjoint array in `arrays`
    (ints and `a:b` slices, fewer ints than the array has dimensions), else None. An index
    is an int or a slice here: the reverse code indexes adjoint views with nothing else."""
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)
            and arrays.get(value.value.id, 0) > 0):
        return None
    index = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
    if any(isinstance(i, (ast.Starred, ast.Constant)) and not isinstance(
            getattr(i, "value", None), int) for i in index):
        return None  # an ellipsis or a new axis
    ints = sum(not isinstance(i, ast.Slice) for i in index)
    ndim = arrays[value.value.id]
    if len(index) > ndim or ints == ndim:
        return None
    return ndim - ints


def _scalar_call(func) -> bool:
    if isinstance(func, ast.Attribute):
        return isinstance(func.value, ast.Name) and func.value.id == "math"
    return isinstance(func, ast.Name) and func.id in _SCALAR_CALLS
