"""Parallel loops of the python backend's forward code run on all iterations at once.

The forward code of an element-by-element loop (`for i in range(p)`: read entries, compute
floats, write entries of an output) does a few small float operations per iteration and per
lane, each a bytecode of CPython. When the iterations are independent, the same statements
run on arrays holding every iteration (`i = np.arange(p)`; `x[c + 3]` gathers, `math.sin`
becomes `np.sin`, an `if` (or `a if t else b`) computes both branches and chooses per
iteration with `np.where`,
`err[2 * i] = v` scatters), as NumPy code, and the loop is kept for when that cannot give the
loop's answer.

A top-level loop `for i in range(n)` / `range(a, b)` of the function is lifted when its body
holds only assignments to names, writes `A[index] = value` and `if` statements assigning names,
and (checked on the tree):

* every name the body reads was assigned earlier in the same iteration, is the loop variable,
  or is not assigned in the loop (no value flows from one iteration to the next); a name
  assigned in one branch only is not read after its `if`;
* an array written is not read in the loop, not assigned, written at an index with a part
  `k * i + b` (k a nonzero int, b not assigned in the loop: one element per iteration), and
  two writes into one array hit different elements (their offsets differ modulo k, or a
  constant part differs); writes sit outside branches and are done after every value;
* calls are `math` functions NumPy has elementwise (`np.sin` for `math.sin`) and `abs`.

and, when it runs (else the loop runs): the loop runs at least once, every array indexed is a
NumPy array with one axis per index part, every other name read from outside the loop is a
number, and NumPy meets no division by zero, overflow or invalid operation (where CPython
raises, or where a branch not taken divides by zero); any exception in the lifted code runs
the loop instead, which raises what CPython raises. Names assigned in the loop and read after
it get their last iteration's value. Integer arithmetic is NumPy's int64.

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
>>> print(" | ".join(line.strip() for line in lifted.strip().splitlines()))
... # doctest: +NORMALIZE_WHITESPACE
with np.errstate(divide='raise', over='raise', invalid='raise'): | i = np.arange(n) |
t = np.sin(x[2 * i]) | y_index = i | y_value = t * t | y[y_index] = y_value
"""

from __future__ import annotations

import collections

import gast

from srcad.frontend import syntax as S

# math functions with a NumPy ufunc of the same meaning on floats
_UFUNCS = {"sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan", "exp": "exp",
           "log": "log", "tanh": "tanh", "sinh": "sinh", "cosh": "cosh", "atan": "arctan",
           "log1p": "log1p", "expm1": "expm1", "fabs": "abs"}
_OPERATORS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.FloorDiv, gast.Mod)


class _NotParallel(Exception):
    pass


def lift_parallel_loops(fn: gast.FunctionDef, namer) -> int:
    """Rewrite the parallel top-level loops of `fn` (in place); how many were lifted."""
    lifted, body = 0, []
    loads = _Loads(fn)
    for statement in fn.body:
        replacement = None
        if isinstance(statement, gast.For):
            try:
                replacement = _Loop(statement, loads, namer).lifted()
            except _NotParallel:
                replacement = None
        if replacement is None:
            body.append(statement)
        else:
            body += replacement
            lifted += 1
    fn.body = body
    return lifted


class _Loads:
    """How often `fn` loads each name, counted once for all its loops (a walk of the whole
    function per loop made the first call of long unrolled code quadratic)."""

    def __init__(self, fn):
        self.fn = fn
        self._total = None

    def after(self, loop) -> set:
        """Names loaded anywhere in the function outside `loop`."""
        if self._total is None:
            self._total = _load_counts(self.fn)
        inside = _load_counts(loop)
        return {name for name, count in self._total.items() if count > inside.get(name, 0)}


def _load_counts(tree) -> collections.Counter:
    return collections.Counter(n.id for n in S.nodes(tree) if isinstance(n, gast.Name)
                               and isinstance(n.ctx, gast.Load))


class _Loop:
    def __init__(self, loop, loads, namer):
        self.loop, self.loads, self.namer = loop, loads, namer
        rng = loop.iter
        if loop.orelse or not isinstance(loop.target, gast.Name) \
                or not (isinstance(rng, gast.Call) and isinstance(rng.func, gast.Name)
                        and rng.func.id == "range" and 1 <= len(rng.args) <= 2
                        and not rng.keywords):
            raise _NotParallel
        self.var = loop.target.id
        self.bounds = rng.args
        self.assigned = {n.id for stmt in loop.body for n in gast.walk(stmt)
                         if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        self.written = {}  # array -> [index parts of each write]
        self.arrays = {}  # array read or written -> index parts
        self.read_arrays: set = set()
        self.before_if: dict = {}  # id of an if -> the names bound before it
        self.scalars = set()  # names from outside the loop read as values

    # -- checks
    def lifted(self):
        statements = [s for s in self.loop.body if not S.is_comment(s)]
        defined = {self.var}
        partial: set = set()
        for statement in statements:
            self._statement(statement, defined, partial, top=True)
        if self.var in self.assigned or self.written.keys() & (self.assigned | self.read_arrays):
            raise _NotParallel
        # a name read after the loop gets its last iteration's value: never a branch's alone
        if self.loads.after(self.loop) & (self.assigned - defined):
            raise _NotParallel
        for bound in self.bounds:
            self._expression(bound, set(), set(), outside=True)
        if _names([*self.bounds]) & self.assigned:
            raise _NotParallel
        for writes in self.written.values():
            _check_writes(writes, self.var, self.assigned)
        return self._code(statements)

    def _statement(self, statement, defined, partial, top):
        if isinstance(statement, gast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            self._expression(statement.value, defined, partial)
            if isinstance(target, gast.Name):
                defined.add(target.id)
                partial.discard(target.id)
                return
            if top and isinstance(target, gast.Subscript) \
                    and isinstance(target.value, gast.Name):
                parts = _parts(target)
                for part in parts:
                    self._expression(part, defined, partial)
                self.written.setdefault(target.value.id, []).append(parts)
                self._array(target.value.id, len(parts))
                return
        elif isinstance(statement, gast.If):
            self._expression(statement.test, defined, partial)
            self.before_if[id(statement)] = set(defined)
            branches = []
            for block in (statement.body, statement.orelse):
                inner, inner_partial = set(defined), set(partial)
                for s in block:
                    if not S.is_comment(s):
                        self._statement(s, inner, inner_partial, top=False)
                branches.append(inner)
            both = branches[0] & branches[1]
            partial |= (branches[0] | branches[1]) - both
            defined |= both
            return
        raise _NotParallel

    def _expression(self, node, defined, partial, outside=False):
        indices = {id(n.slice) for n in gast.walk(node) if isinstance(n, gast.Subscript)}
        for n in gast.walk(node):
            if isinstance(n, gast.Tuple) and id(n) in indices:
                continue
            elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                if n.id in partial or (n.id in self.assigned and n.id not in defined):
                    raise _NotParallel
            elif isinstance(n, gast.Call):
                if not (_ufunc(n.func) or (isinstance(n.func, gast.Name)
                                           and n.func.id == "abs")) or n.keywords:
                    raise _NotParallel
            elif isinstance(n, gast.BinOp) and not isinstance(n.op, _OPERATORS):
                raise _NotParallel
            elif isinstance(n, gast.Compare) and len(n.ops) != 1:
                raise _NotParallel
            elif isinstance(n, (gast.Slice, gast.Lambda, gast.BoolOp, gast.List, gast.Dict,
                                gast.Starred, gast.NamedExpr, gast.JoinedStr, gast.Tuple)) \
                    or (isinstance(n, gast.UnaryOp) and isinstance(n.op, gast.Not)):
                raise _NotParallel
            elif isinstance(n, gast.Attribute) and not _is_math(n):
                raise _NotParallel
        self._reads(node, outside)

    def _reads(self, node, outside):
        """Record the arrays indexed and the names read as values in `node`."""
        if isinstance(node, gast.Subscript):
            if not isinstance(node.value, gast.Name) or node.value.id in self.assigned:
                raise _NotParallel
            parts = _parts(node)
            self._array(node.value.id, len(parts))
            self.read_arrays.add(node.value.id)
            for part in parts:
                if isinstance(part, gast.Tuple):
                    raise _NotParallel
                self._reads(part, outside)
            return
        if isinstance(node, gast.Name):
            if node.id != self.var and node.id not in self.assigned:
                self.scalars.add(node.id)
            return
        if isinstance(node, gast.Call):
            for arg in node.args:
                self._reads(arg, outside)
            return
        for child in gast.iter_child_nodes(node):
            self._reads(child, outside)

    def _array(self, name, count):
        if self.arrays.setdefault(name, count) != count:
            raise _NotParallel

    # -- code
    def _code(self, statements):
        fresh = self.namer.fresh
        lifted = [S.assign(S.name(self.var), _call("np.arange", *map(S.clone, self.bounds)))]
        writes = []
        for statement in statements:
            lifted += self._lifted(statement, writes, fresh)
        after = self.loads.after(self.loop) & (self.assigned | {self.var})
        restores = [S.parse_stmts(f"{n} = {n}[-1] if np.ndim({n}) else {n}")[0]
                    for n in sorted(after)]
        count = "len(range(" + ", ".join(S.unparse_expr(b) for b in self.bounds) + "))"
        guards = [f"{count} > 0"]
        guards += [f"isinstance({a}, np.ndarray) and {a}.ndim == {k}"
                   for a, k in sorted(self.arrays.items())]
        guards += [f"np.ndim({n}) == 0" for n in sorted(self.scalars - set(self.arrays))
                   if n not in ("math", "np", "abs")]
        errstate = S.parse_stmts("with np.errstate(divide='raise', over='raise', "
                                 "invalid='raise'):\n    pass")[0]
        errstate.body = _mapped(lifted)
        attempt = gast.Try(body=[errstate, *writes, *restores],
                           handlers=[gast.ExceptHandler(S.name("Exception"), None,
                                                        [self.loop])],
                           orelse=[], finalbody=[])
        test = S.parse_expr(" and ".join(f"({g})" for g in guards))
        return [S.comment("a parallel loop run on all its iterations at once "
                          "(srcad/transform/parallel_loops.py), the loop if that fails"),
                gast.If(test=test, body=[attempt], orelse=[S.clone(self.loop)])]

    def _lifted(self, statement, writes, fresh):
        if S.is_comment(statement):
            return [statement]
        if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name):
            return [S.assign(statement.targets[0], S.clone(statement.value))]
        if isinstance(statement, gast.Assign):  # a write: index and value now, written last
            target = statement.targets[0]
            base = target.value.id
            index, value = fresh(f"{base}_index"), fresh(f"{base}_value")
            writes.append(S.parse_stmts(f"{base}[{index}] = {value}")[0])
            return [S.assign(S.name(index), S.clone(target.slice)),
                    S.assign(S.name(value), S.clone(statement.value))]
        return self._select(statement, writes, fresh)

    def _select(self, statement, writes, fresh):
        """`if`: both branches for every iteration, each name chosen with np.where (a name
        bound in one branch only and not before is never read after: checked)."""
        chosen = fresh("chosen")
        before = self.before_if[id(statement)]
        bound = [{n.id for s in block for n in gast.walk(s)
                  if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
                 for block in (statement.body, statement.orelse)]
        names = sorted(n for n in bound[0] | bound[1]
                       if n in before or (n in bound[0] and n in bound[1]))
        kept = {n: fresh(f"{n}_kept") for n in names if n in before}
        then = {n: fresh(f"{n}_then") for n in names}
        lines = [S.assign(S.name(chosen), S.clone(statement.test))]
        lines += [S.assign(S.name(kept[n]), S.name(n)) for n in kept]
        for s in statement.body:
            lines += self._lifted(s, writes, fresh)
        lines += [S.assign(S.name(then[n]), S.name(n)) for n in names]
        lines += [S.assign(S.name(n), S.name(kept[n])) for n in kept]
        for s in statement.orelse:
            lines += self._lifted(s, writes, fresh)
        lines += [S.parse_stmts(f"{n} = np.where({chosen}, {then[n]}, {n})")[0]
                  for n in names]
        return lines


def _check_writes(writes, var, assigned):
    """Each write hits one element per iteration; two writes never the same element."""
    forms = []
    for parts in writes:
        form = None
        for position, part in enumerate(parts):
            affine = _affine(part, var)
            if affine is not None and form is None:
                if (_names([part]) - {var}) & assigned:
                    raise _NotParallel
                form = (position, *affine)
            elif _names([part]) & (assigned | {var}):
                raise _NotParallel
        if form is None or form[1] == 0:
            raise _NotParallel
        forms.append((form, parts))
    for k, ((position, scale, offset, rest), parts) in enumerate(forms):
        for (other_position, other_scale, other_offset, other_rest), other in forms[:k]:
            constants_differ = any(
                isinstance(a, gast.Constant) and isinstance(b, gast.Constant)
                and a.value != b.value for j, (a, b) in enumerate(zip(parts, other))
                if j != position)
            if constants_differ:
                continue
            if (position, scale, rest) != (other_position, other_scale, other_rest) \
                    or (offset - other_offset) % scale == 0:
                raise _NotParallel


def _affine(node, var):
    """(k, c, rest) when `node` is k * var + c + rest (k, c ints, rest text without var)."""
    if isinstance(node, gast.Name) and node.id == var:
        return 1, 0, ""
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
        for a, b in ((node.left, node.right), (node.right, node.left)):
            if isinstance(a, gast.Constant) and type(a.value) is int \
                    and isinstance(b, gast.Name) and b.id == var:
                return a.value, 0, ""
        return None
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
        sign = 1 if isinstance(node.op, gast.Add) else -1
        for a, b, b_sign in ((node.left, node.right, sign), (node.right, node.left, 1)):
            if isinstance(node.op, gast.Sub) and a is node.right:
                continue  # c - k * i: not handled
            inner = _affine(a, var)
            if inner is None or var in _names([b]):
                continue
            k, c, rest = inner
            if isinstance(b, gast.Constant) and type(b.value) is int:
                return k, c + b_sign * b.value, rest
            return k, c, rest + ("+" if b_sign > 0 else "-") + S.unparse_expr(b)
    return None


def _parts(subscript):
    index = subscript.slice
    return list(index.elts) if isinstance(index, gast.Tuple) else [index]


def _names(nodes) -> set:
    return {n.id for node in nodes for n in gast.walk(node) if isinstance(n, gast.Name)}


def _is_math(node) -> bool:
    return isinstance(node.value, gast.Name) and node.value.id == "math" \
        and node.attr in _UFUNCS


def _ufunc(func) -> bool:
    return isinstance(func, gast.Attribute) and _is_math(func)


def _call(function: str, *args):
    return S.call(function, *args)


class _Elementwise(gast.NodeTransformer):
    """math.f(...) as np.f(...), abs as np.abs, `a if t else b` as np.where(t, a, b)."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, gast.Attribute) and _is_math(node.func):
            node.func = S.parse_expr(f"np.{_UFUNCS[node.func.attr]}")
        elif isinstance(node.func, gast.Name) and node.func.id == "abs":
            node.func = S.parse_expr("np.abs")
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return _call("np.where", node.test, node.body, node.orelse)


def _mapped(statements):
    """`statements` written for arrays of iterations (`_Elementwise`)."""
    return [_Elementwise().visit(statement) for statement in statements]
