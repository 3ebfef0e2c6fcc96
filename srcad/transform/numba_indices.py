"""Subscripts by loop counters that are never negative, read as unsigned by numba.

numba indexes an array with a signed integer through Python's wraparound: a negative index
has the axis length added first. Where LLVM cannot prove the index non-negative (a counter of
`for j in range(i + 1, d)`, or a reverse sweep's `range(n - 1, -1, -1)`), that select sits in
every address computation and LLVM leaves the loop scalar: gmm's triangular product
`out[j] = out[j] + ltri[idx] * x[i]` ran 3x slower than the same loop vectorized.

A `for` variable over `range` never goes below the range's start (a positive step) and never
reaches its stop (a negative step). Where that bound is provably >= 0 (from literals, `len`,
`.shape`, `.size` and other names bound the same way; a name's every binding counts), each
subscript of an array by that name reads it as `np.uint64(name)`: numba then indexes without
the wraparound (the index's value is the same, so is the element); so does a subscript by a sum
or difference of such names and int literals that is provably >= 0 (`x[j - 1]` where `j >= 1`,
a tape slot `tape[tape_size + 1]`). Inside the body of a `for` over `range` that does not
rebind its variable, the variable is bounded by that loop's range alone: `j` of `for j in
range(1, n)` is >= 1 there even when another loop runs `j` over `range(n)` (or from a negative
start), so `x[j - 1]` in the first loop indexes without the wraparound. srcad's tape counters
(`counters`: `tape_size` and the like, which the reverse transform only moves between records
it pushed) are >= 0 whatever their bindings: a reverse sweep's `tape[tape_size]` after
`tape_size -= 1` kept LLVM's loops scalar (ode's gradient: 242 -> 133 ms at n=100000, s=100). A
subscript of a name typed as anything but an array (a list, a dict, a string) is left as it is.

An induction counter the reverse sweep restores by undoing its steps (`retraced`:
srcad/transform/reverse/counters.py, `c = 0` then only `c += s` steps) holds, wherever the
reverse sweep reads it, a value the forward sweep gave it: its reverse bindings (the inverse
steps `c -= s` and the value popped from a tape of numbers, `tapes`) bound it no lower than its
forward ones, so only those count. gmm's `ltri[lparamsidx]` in the reverse of its triangular
product (and, sharing the name's bound, in the forward sweep) kept the wraparound select and
ran scalar: the gradient 2x slower at d=64, k=5.

>>> import gast
>>> from srcad.frontend import syntax as S
>>> tree = gast.parse("def f(x, out):\\n"
...                   "    for i in range(len(x)):\\n"
...                   "        for j in range(i + 1, len(x)):\\n"
...                   "            out[j] = out[j] + x[i] * x[j - 1]\\n")
>>> print(S.unparse_expr(unsigned_indices(tree).body[0].body[0].body[0].body[0]).strip())
out[np.uint64(j)] = out[np.uint64(j)] + x[np.uint64(i)] * x[np.uint64(j - 1)]
"""

from __future__ import annotations

import gast

from srcad.analysis.types import Array
from srcad.frontend import syntax as S

_UNKNOWN = None  # a binding whose lower bound is not known


def unsigned_indices(tree, env: dict | None = None, counters=frozenset(),
                     retraced=frozenset(), tapes=frozenset()):
    """`tree` with the subscripts the module docstring describes rewritten (in place). `env`:
    srcad's types of the user's names (a base typed as anything but an Array is skipped);
    `counters`: names known to be >= 0 (srcad's tape counters); `retraced`: counters whose
    `-=` steps and reads from the arrays `tapes` only restore forward values."""
    for fn in [n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)]:
        bounds = _lower_bounds(fn, frozenset(counters), frozenset(retraced), frozenset(tapes))
        if any(bound is not None and bound >= 0 for bound in bounds.values()):
            _Rewrite(bounds, env or {}).visit_body(fn.body)
    return tree


def _own_nodes(body):
    """The nodes of the statements `body`, in order, not those of functions defined inside
    it."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (gast.FunctionDef, gast.Lambda)):
            continue
        stack.extend(reversed(list(gast.iter_child_nodes(node))))


def _sites(fn, retraced=frozenset(), tapes=frozenset()) -> dict:
    """{name: [binding]}: ("value", expr) for `name = expr`, ("add", expr) for `name += expr`,
    ("range", call) for `for name in range(...)`, _UNKNOWN for any other binding (a
    parameter, a tuple target, a nested function's name...); a `retraced` name's `-=` and
    its reads from `tapes` are left out (they restore values its other bindings gave it)."""
    sites: dict = {}
    accounted = set()
    args = fn.args
    for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if a is not None:
            sites.setdefault(a.id, []).append(_UNKNOWN)
    for node in _own_nodes(fn.body):
        if _restores(node, retraced, tapes):
            accounted.add(id(node.targets[0] if isinstance(node, gast.Assign) else node.target))
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name):
            sites.setdefault(node.targets[0].id, []).append(("value", node.value))
            accounted.add(id(node.targets[0]))
        elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            site = ("add", node.value) if isinstance(node.op, gast.Add) else _UNKNOWN
            sites.setdefault(node.target.id, []).append(site)
            accounted.add(id(node.target))
        elif isinstance(node, gast.For) and isinstance(node.target, gast.Name):
            site = ("range", node.iter) if _is_range(node.iter) else _UNKNOWN
            sites.setdefault(node.target.id, []).append(site)
            accounted.add(id(node.target))
        elif isinstance(node, (gast.FunctionDef, gast.ClassDef)):
            sites.setdefault(node.name, []).append(_UNKNOWN)
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            for name in node.names:
                sites.setdefault(name, []).append(_UNKNOWN)
        elif isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load) \
                and id(node) not in accounted:
            sites.setdefault(node.id, []).append(_UNKNOWN)
    return sites


def _restores(node, retraced, tapes) -> bool:
    """Is `node` a retraced counter's inverse step (`c -= s`) or its value popped from a tape
    (`c = tape[...]`)?"""
    if isinstance(node, gast.AugAssign):
        return isinstance(node.target, gast.Name) and node.target.id in retraced \
            and isinstance(node.op, gast.Sub)
    return isinstance(node, gast.Assign) and len(node.targets) == 1 \
        and isinstance(node.targets[0], gast.Name) and node.targets[0].id in retraced \
        and isinstance(node.value, gast.Subscript) \
        and isinstance(node.value.value, gast.Name) and node.value.value.id in tapes


def _is_range(node) -> bool:
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
            and node.func.id == "range" and 1 <= len(node.args) <= 3 and not node.keywords
            and not any(isinstance(a, gast.Starred) for a in node.args))


def _lower_bounds(fn, known=frozenset(), retraced=frozenset(), tapes=frozenset()) -> dict:
    """{name: the least value any binding gives it, or None where not known}: from no bound
    at all, each round bounds the names whose every binding is bounded by the last round's
    names, until nothing changes (a name bound through itself stays unknown, except a
    counter's `+=` of a non-negative step, which never lowers it). The names `known` are
    >= 0 (bound 0) whatever their bindings; `retraced`, `tapes`: `_sites`."""
    sites = _sites(fn, retraced, tapes)
    bounds: dict = {}
    while True:
        new = {name: 0 if name in known else _bound_of_sites(found, bounds)
               for name, found in sites.items()}
        if new == bounds:
            return bounds
        bounds = new


def _bound_of_sites(found, bounds):
    lows = []
    for site in found:
        if site is _UNKNOWN:
            return None
        kind, node = site
        if kind == "add":
            step = _bound(node, bounds)
            if step is None or step < 0:
                return None
            continue  # adding a non-negative step never lowers the value
        low = _bound(node, bounds) if kind == "value" else _range_bound(node, bounds)
        if low is None:
            return None
        lows.append(low)
    return min(lows) if lows else None


def _range_bound(call, bounds):
    """The least value a `for` variable over `range(...)` takes, or None."""
    args = call.args
    if len(args) == 1:
        return 0
    step = _literal_int(args[2]) if len(args) == 3 else 1
    if step is None or step == 0:
        return None
    if step > 0:
        return _bound(args[0], bounds)
    stop = _bound(args[1], bounds)
    return None if stop is None else stop + 1


def _literal_int(node):
    try:
        value = gast.literal_eval(node)
    except ValueError:
        return None
    return value if type(value) is int else None


def _bound(node, bounds):
    """A lower bound of the int `node`, or None (not an int known to be bounded)."""
    if isinstance(node, gast.Constant):
        return node.value if type(node.value) is int else None
    if isinstance(node, gast.Name):
        return bounds.get(node.id)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return _literal_int(node)
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
            and node.func.id == "len" and len(node.args) == 1 and not node.keywords:
        return 0
    if isinstance(node, gast.Attribute) and node.attr in ("size", "ndim"):
        return 0
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) \
            and node.value.attr == "shape" and _literal_int(node.slice) is not None:
        return 0
    if isinstance(node, gast.BinOp):
        left, right = _bound(node.left, bounds), _bound(node.right, bounds)
        if isinstance(node.op, gast.Add) and left is not None and right is not None:
            return left + right
        if isinstance(node.op, gast.Sub) and left is not None:
            subtracted = _literal_int(node.right)
            return None if subtracted is None else left - subtracted
        if isinstance(node.op, (gast.Mult, gast.FloorDiv)) and left is not None \
                and right is not None and left >= 0 and right >= (0 if isinstance(
                    node.op, gast.Mult) else 1):
            return 0
    return None


class _Rewrite:
    """Rewrites each subscript of an array by a non-negative name, or a sum or difference of
    names and literals that is >= 0 (the module docstring)."""

    def __init__(self, bounds: dict, env: dict):
        self.bounds = bounds
        self.env = env

    def visit_body(self, body):
        # (node, the bounds that hold there): a loop's body gets its variable's own range
        stack = [(node, self.bounds) for node in reversed(body)]
        while stack:
            node, bounds = stack.pop()
            if isinstance(node, gast.Subscript) and self._array_base(node.value):
                node.slice = self._index(node.slice, bounds)
            if isinstance(node, (gast.FunctionDef, gast.Lambda)):
                continue
            inner = _loop_bounds(node, bounds)
            children = list(gast.iter_child_nodes(node))
            stack.extend((child, inner if inner is not None and any(
                child is b for b in node.body) else bounds) for child in reversed(children))

    def _array_base(self, base) -> bool:
        if not isinstance(base, gast.Name):
            return False
        known = self.env.get(base.id)
        return known is None or isinstance(known, Array)

    def _index(self, index, bounds):
        if self._non_negative(index, bounds):
            return gast.copy_location(S.call("np.uint64", index), index)
        if isinstance(index, gast.Tuple):
            index.elts = [self._index(e, bounds) if isinstance(e, (gast.Name, gast.BinOp))
                          else e for e in index.elts]
        return index

    def _non_negative(self, index, bounds) -> bool:
        """A name, or a `+`/`-` of names and int literals, whose lower bound is >= 0."""
        if not (isinstance(index, gast.Name) or isinstance(index, gast.BinOp)
                and isinstance(index.op, (gast.Add, gast.Sub)) and all(
                    isinstance(n, (gast.Name, gast.Constant, gast.BinOp, gast.operator,
                                   gast.expr_context))
                    for n in gast.walk(index))):
            return False
        bound = _bound(index, bounds)
        return bound is not None and bound >= 0


def _loop_bounds(node, bounds):
    """The bounds inside the body of `node`, a `for name in range(...)` whose body never
    rebinds name (name is then always a value of that range there), or None: `bounds` with
    name bounded by this range alone, where that is higher than (or unlike) its bound from
    every binding of the function."""
    if not (isinstance(node, gast.For) and isinstance(node.target, gast.Name)
            and _is_range(node.iter)):
        return None
    name = node.target.id
    low = _range_bound(node.iter, bounds)
    if low is None or (bounds.get(name) is not None and bounds[name] >= low) \
            or _rebinds(node.body, name):
        return None
    return {**bounds, name: low}


def _rebinds(body, name) -> bool:
    """Does a statement of `body` (a function defined in it too: `nonlocal`) bind `name`?"""
    for node in (n for stmt in body for n in gast.walk(stmt)):
        if isinstance(node, gast.Name) and node.id == name \
                and not isinstance(node.ctx, gast.Load):
            return True
        if isinstance(node, (gast.FunctionDef, gast.ClassDef)) and node.name == name \
                or isinstance(node, (gast.Global, gast.Nonlocal)) and name in node.names:
            return True
    return False
