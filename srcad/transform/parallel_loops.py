"""Parallel loops of the python backend's forward code run on all iterations at once.

The forward code of an element-by-element loop (`for i in range(p)`: read entries, compute
floats, write entries of an output) does a few small float operations per iteration and per
lane, each a bytecode of CPython. When the iterations are independent, the same statements
run on arrays holding every iteration (`i = np.arange(p)`; `x[c + 3]` gathers, `math.sin`
becomes `np.sin`, an `if` (or `a if t else b`) computes both branches and chooses per
iteration with `np.where`,
`err[2 * i] = v` scatters), as NumPy code, and the loop is kept for when that cannot give the
loop's answer. This module decides which loops are lifted; the code it writes for them is
srcad/transform/parallel_code.py's.

A loop `for i in range(n)` / `range(a, b)` anywhere in the function (one that is not lifted
is searched for lifted loops inside it: the vertices of a loop over bones that accumulates)
is lifted when its body holds only assignments to names (`=`, `+=`), writes `A[index] =
value` (or `+=`), `if` statements assigning names and inner `for j in range(...)` loops of
those, and (checked on the tree):

* every name the body reads was assigned earlier in the same iteration, is the loop variable,
  or is not assigned in the loop (no value flows from one iteration to the next); a name
  assigned in one branch only, or only inside an inner loop, is not read after (a name is
  read after when some path reads it before setting it: srcad/analysis/live_after.py);
* an inner loop's bounds and variable are the same in every iteration (its variable is set
  by nothing else): it runs as a loop over the arrays of all iterations, carrying values
  from pass to pass as the loop does;
* writes follow srcad/transform/parallel_writes.py (one element of its own per iteration);
  an array written is not read in the loop nor assigned; writes sit outside branches and are
  done after every value, in their order (those inside inner loops kept per pass);
* calls are `math` functions NumPy has elementwise (`np.sin` for `math.sin`) and `abs`;
  `A[:, ...]` (stacked lanes) only in arithmetic (srcad/transform/parallel_arrays.py).

and, when it runs (else the loop runs), the checks of srcad/transform/parallel_guards.py
hold and NumPy meets no division by zero, overflow or invalid operation (where CPython
raises, or where a branch not taken divides by zero): any exception in a block runs that
block as the loop, which raises what CPython raises. Names assigned in the loop and read after
it get their last iteration's value. Integer arithmetic is NumPy's int64. The lifted code
runs a block of iterations at a time, an element read or written through the loop variable
itself a slice (srcad/transform/parallel_blocks.py): what it holds is bounded whatever n.

>>> import gast
>>> from srcad.build.codegen import to_source
>>> from srcad.transform.names import Namer
>>> tree = gast.parse('''
... def f(x, y, n):
...     for i in range(n):
...         t = math.sin(x[2 * i])
...         y[i] = t * t
... ''')
>>> lift_parallel_loops(tree.body[0], Namer(set()))
1
>>> lifted = to_source(tree).split("try:")[1].split("except")[0]
>>> print(" ".join(lifted.split()))  # doctest: +NORMALIZE_WHITESPACE
with np.errstate(divide='raise', over='raise', invalid='raise' ): i = np.arange(block_start,
block_stop) t = np.sin(x[2 * i]) y_index = slice(block_start, block_stop) y_value = t * t
y[y_index] = y_value i = t = y_index = y_value = None
"""

from __future__ import annotations

import gast

from srcad.analysis.live_after import LiveAfter
from srcad.frontend import syntax as S
from srcad.transform.parallel_arrays import (
    is_lane,
    is_math,
    is_ufunc,
    lane_names,
    lane_slice,
    parts_of,
)
from srcad.transform.parallel_code import LiftedCode
from srcad.transform.parallel_writes import NotParallel, check_writes

_OPERATORS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.FloorDiv, gast.Mod)


def lift_parallel_loops(fn: gast.FunctionDef, namer) -> int:
    """Rewrite the parallel loops of `fn` (in place); how many were lifted. A loop that is
    not lifted is searched for parallel loops inside it."""
    return _lift_block(fn.body, LiveAfter(fn), namer)


def _lift_block(block, live, namer) -> int:
    lifted, index = 0, 0
    while index < len(block):
        statement = block[index]
        replacement = None
        if isinstance(statement, gast.For):
            try:
                replacement = _Loop(statement, live, namer).lifted()
            except NotParallel:
                replacement = None
        if replacement is None:
            if isinstance(statement, (gast.For, gast.While, gast.If)):
                lifted += _lift_block(statement.body, live, namer)
                lifted += _lift_block(statement.orelse, live, namer)
            index += 1
        else:
            block[index:index + 1] = replacement
            index += len(replacement)
            lifted += 1
    return lifted


def _range_bounds(loop):
    rng = loop.iter
    if loop.orelse or not isinstance(loop.target, gast.Name) \
            or not (isinstance(rng, gast.Call) and isinstance(rng.func, gast.Name)
                    and rng.func.id == "range" and 1 <= len(rng.args) <= 2
                    and not rng.keywords):
        raise NotParallel
    return rng.args


class _Loop:
    def __init__(self, loop, live, namer):
        self.loop, self.live, self.namer = loop, live, namer
        self.bounds = _range_bounds(loop)
        self.var = loop.target.id
        self.assigned = _stored(loop.body)
        inner = [n for n in gast.walk(loop) if isinstance(n, gast.For) and n is not loop]
        targets = {n.target.id for n in inner if isinstance(n.target, gast.Name)}
        others = _stored([s for s in loop.body if not isinstance(s, gast.For)]) | {
            n.id for f in inner for s in f.body if not isinstance(s, gast.For)
            for n in gast.walk(s) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        self.uniform = targets - others - {self.var}  # inner loops' variables
        self.ranges: dict = {}  # inner variable -> its constant range, inside its loop
        self.written = {}  # array -> [(index parts, ranges) of each write]
        self.arrays = {}  # array read or written -> index parts
        self.read_arrays: set = set()
        self.lane_arrays: set = set()  # arrays indexed `A[:, ...]`
        self.augmented: set = set()  # arrays written with `+=`
        self.before_if: dict = {}  # id of an if -> the names bound before it
        self.scalars = set()  # names from outside the loop read as values
        self.lanes = lane_names(loop.body)

    # -- checks
    def lifted(self):
        statements = [s for s in self.loop.body if not S.is_comment(s)]
        defined = {self.var}
        partial: set = set()
        for statement in statements:
            self._statement(statement, defined, partial, 0, False)
        if self.var in self.assigned or self.written.keys() & (self.assigned | self.read_arrays):
            raise NotParallel
        # a name read after the loop gets its last iteration's value: never a branch's alone
        maybe = (self.assigned - defined - self.uniform) | partial
        if self.live(self.loop, maybe):
            raise NotParallel
        self._bounds(self.bounds, set())
        for writes in self.written.values():
            check_writes(writes, self.var, self.assigned, self.uniform)
        return LiftedCode(self).statements(statements)

    def _bounds(self, bounds, defined):
        """Range bounds: the same in every iteration (Python evaluates them as they are)."""
        allowed = (gast.Name, gast.Constant, gast.BinOp, gast.Call, gast.Attribute,
                   gast.Subscript, gast.Load, gast.operator, gast.UnaryOp, gast.unaryop)
        for bound in bounds:
            for n in gast.walk(bound):
                if not isinstance(n, allowed) or (isinstance(n, gast.Attribute)
                                                  and n.attr != "shape") \
                        or (isinstance(n, gast.Call) and not (
                            isinstance(n.func, gast.Name) and n.func.id == "len"
                            and len(n.args) == 1 and not n.keywords)):
                    raise NotParallel
                if isinstance(n, gast.Name) and (
                        n.id == self.var or n.id in self.lanes
                        or (n.id in self.assigned
                            and not (n.id in self.uniform and n.id in defined))):
                    raise NotParallel

    def _statement(self, statement, defined, partial, depth, in_branch):
        if isinstance(statement, (gast.Assign, gast.AugAssign)):
            target = statement.targets[0] if isinstance(statement, gast.Assign) \
                and len(statement.targets) == 1 else getattr(statement, "target", None)
            if isinstance(statement, gast.AugAssign):
                if not isinstance(statement.op, _OPERATORS):
                    raise NotParallel
                if isinstance(target, gast.Name):
                    self._expression(gast.Name(target.id, gast.Load(), None, None), defined,
                                     partial)
            if target is None:
                raise NotParallel
            self._expression(statement.value, defined, partial)
            if isinstance(target, gast.Name):
                defined.add(target.id)
                partial.discard(target.id)
                return
            if not in_branch and isinstance(target, gast.Subscript) \
                    and isinstance(target.value, gast.Name):
                base = target.value.id
                parts = parts_of(target)
                lane = self._index(target, defined, partial)
                if is_lane(statement.value, self.lanes) and not lane:
                    raise NotParallel
                self.written.setdefault(base, []).append((parts, dict(self.ranges)))
                if isinstance(statement, gast.AugAssign):
                    self.augmented.add(base)
                return
        elif isinstance(statement, gast.If):
            self._expression(statement.test, defined, partial)
            if is_lane(statement.test, self.lanes):
                raise NotParallel
            self.before_if[id(statement)] = set(defined)
            branches = []
            for block in (statement.body, statement.orelse):
                inner, inner_partial = set(defined), set(partial)
                for s in block:
                    if not S.is_comment(s):
                        self._statement(s, inner, inner_partial, depth, True)
                branches.append(inner)
            both = branches[0] & branches[1]
            partial |= (branches[0] | branches[1]) - both
            defined |= both
            return
        elif isinstance(statement, gast.For) and not in_branch:
            self._inner_loop(statement, defined, partial, depth)
            return
        raise NotParallel

    def _inner_loop(self, loop, defined, partial, depth):
        """A loop inside: run as a loop on the arrays of all iterations (its bounds and
        variable are the same in every iteration)."""
        bounds = _range_bounds(loop)
        target = loop.target.id
        if target not in self.uniform:
            raise NotParallel
        self._bounds(bounds, defined)
        saved = self.ranges.get(target)
        values = [b.value for b in bounds if isinstance(b, gast.Constant)]
        if len(values) == len(bounds) and all(type(v) is int for v in values):
            self.ranges[target] = range(*values)
        else:
            self.ranges.pop(target, None)
        inner, inner_partial = set(defined) | {target}, set(partial)
        for s in loop.body:
            if not S.is_comment(s):
                self._statement(s, inner, inner_partial, depth + 1, False)
        if saved is None:
            self.ranges.pop(target, None)
        else:
            self.ranges[target] = saved
        partial |= (inner - defined - {target}) | (inner_partial - partial)
        defined.add(target)

    def _index(self, subscript, defined, partial) -> bool:
        """Check the parts of `A[...]` (read or written); whether it is `A[:, ...]`."""
        parts = parts_of(subscript)
        lane = lane_slice(parts[0])
        for part in parts[lane:]:
            if isinstance(part, (gast.Slice, gast.Tuple)) or is_lane(part, self.lanes):
                raise NotParallel
            self._expression(part, defined, partial)
        name = subscript.value.id
        if name in self.assigned:
            raise NotParallel
        self._array(name, len(parts))
        if lane:
            self.lane_arrays.add(name)
        return bool(lane)

    def _expression(self, node, defined, partial):
        subscripts = [n for n in gast.walk(node) if isinstance(n, gast.Subscript)]
        inside = {id(m) for n in subscripts for m in gast.walk(n.slice)}
        # `a.size`, `a.ndim` of an array the loop does not set: a number, every iteration
        inside |= {id(n.value) for n in gast.walk(node) if isinstance(n, gast.Attribute)
                   and n.attr in ("size", "ndim") and isinstance(n.value, gast.Name)
                   and n.value.id not in self.assigned}
        for n in gast.walk(node):
            if id(n) in inside:
                continue
            elif isinstance(n, gast.Subscript):
                if not isinstance(n.value, gast.Name):
                    raise NotParallel
                self._index(n, defined, partial)
                self.read_arrays.add(n.value.id)
            elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                if n.id in partial or (n.id in self.assigned and n.id not in defined):
                    raise NotParallel
                if n.id != self.var and n.id not in self.assigned:
                    self.scalars.add(n.id)
            elif isinstance(n, gast.Call):
                if not (is_ufunc(n.func) or (isinstance(n.func, gast.Name)
                                           and n.func.id == "abs")) or n.keywords \
                        or any(is_lane(a, self.lanes) for a in n.args):
                    raise NotParallel
            elif isinstance(n, gast.BinOp) and not isinstance(n.op, _OPERATORS):
                raise NotParallel
            elif isinstance(n, gast.Compare) and (
                    len(n.ops) != 1 or is_lane(n, self.lanes)):
                raise NotParallel
            elif isinstance(n, gast.IfExp) and is_lane(n.test, self.lanes):
                raise NotParallel
            elif isinstance(n, (gast.Slice, gast.Lambda, gast.BoolOp, gast.List, gast.Dict,
                                gast.Starred, gast.NamedExpr, gast.JoinedStr, gast.Tuple)) \
                    or (isinstance(n, gast.UnaryOp) and isinstance(n.op, gast.Not)):
                raise NotParallel
            elif isinstance(n, gast.Attribute) and not is_math(n) \
                    and id(n.value) not in inside:
                raise NotParallel

    def _array(self, name, count):
        if self.arrays.setdefault(name, count) != count:
            raise NotParallel


def _stored(statements) -> set:
    return {n.id for s in statements for n in gast.walk(s)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
