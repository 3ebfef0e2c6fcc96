"""Numba backend: zeros a loop makes anew on each iteration written into the array their name
already owns. The reverse sweep resets an array adjoint after each use (`x_bar =
np.zeros(x_shape)` in the loop that undoes a `while`), and the forward sweep starts a
temporary's adjoint there (`x_prime_bar = np.zeros_like(x_prime)`): one allocation per
iteration each, ~50 ns apiece, which on a small array is most of an iteration's cost. Where
the name owns its array, the statement becomes

    x_bar = zeros_into(x_bar, x_shape)   # x_bar's own array, zeroed, when of that shape

(srcad/runtime/numba_semantics.py: new zeros where the shape differs).

A name owns its array when no other name, container, tape or caller can hold that array:

- every binding of the name makes a new array: `np.zeros`, `np.zeros_like`, `np.ones...`,
  `np.empty...`, `.copy()`, `copied_adjoint`, arithmetic, a fused loop of arithmetic, a
  nested gradient kernel's result (not its `_scratch` view of the workspace),
  `assigned_adjoint` of one of these (srcad/transform/numba_first_adjoints.py), `zeros_into`
  of the name (and the bindings a caller vouches for: `fresh`, nested_result_reuse.py);
- every read of the name is used up where it stands: an element read (as many int indices as
  the array has axes), `.shape`, `.size`, `.ndim`, a write into it (`x_bar[i] += ...`), an
  operand of arithmetic, a comparison or a fused loop of arithmetic, the right side of an
  augmented assignment, the argument of `np.zeros_like` and its kin (its shape read), an
  operand of a nested gradient kernel (it copies nothing it is given into what it returns),
  or any of these through `unshared`, `unbroadcast`, `broadcast_view`, another fused loop or
  a slice (what may return the array itself or a view of it). Anything else (a binding to
  another name, a tuple, a list's `append`, a `return`, a call of anything else) is an
  escape.

The name is a float array by srcad's types (or the adjoint of one); it is not a parameter; a
function that defines functions or lambdas is left alone. A name the rewritten statement may
be the first to bind is bound to empty zeros of its rank at the top of the function (numba
types a name once: the zeros are of the type its other bindings have). Only statements inside
loops are rewritten: outside one each runs once.
"""

from __future__ import annotations

import gast

from srcad.analysis.types import Array
from srcad.frontend import syntax as S
from srcad.transform.numba_loop_sites import after_docstring

_NEW = {"zeros", "zeros_like", "ones", "ones_like", "empty", "empty_like", "full", "full_like"}
_MADE_BY_CALL = ("array_matmul", "copied_adjoint", "zeros_into")
# calls whose result may be their argument itself or a view of it
_PASSING = {"unshared", "unbroadcast", "broadcast_view", "assigned_adjoint", "copied_adjoint"}
_NUMBER_ATTRIBUTES = {"shape", "size", "ndim", "dtype"}
_KERNEL = "srcad_nested_"
_SCRATCH = "_scratch"


def reuse_loop_zeros(tree, types, bars: dict, fused=None) -> set:
    """Rewrite (in place) the zeros made in loops of `tree`'s functions into the arrays their
    names own (module docstring); the names rewritten. `bars`: v -> v_bar, the adjoints.

    >>> from srcad.analysis.types import Array
    >>> class Types:
    ...     env, mixed = {"x": Array(1, True), "g": Array(1, True)}, set()
    >>> tree = gast.parse("def f(x, n, x_bar):\\n"
    ...                   "    g_bar = np.zeros_like(x)\\n"
    ...                   "    for i in range(n):\\n"
    ...                   "        g_bar[0] += x[i]\\n"
    ...                   "        x_bar += unshared(x_bar, g_bar)\\n"
    ...                   "        g_bar = np.zeros(x.shape)\\n")
    >>> sorted(reuse_loop_zeros(tree, Types(), {"x": "x_bar", "g": "g_bar"}))
    ['g_bar']
    >>> from srcad.build.codegen import to_source
    >>> print(to_source(tree).strip().splitlines()[-1].strip())
    g_bar = zeros_into(g_bar, x.shape)
    """
    floats = {v: t.ndim for v, t in types.env.items()
              if isinstance(t, Array) and t.is_float and v not in types.mixed}
    ranks = dict(floats)
    ranks.update({bar: floats[v] for v, bar in bars.items() if v in floats})
    rewritten = set()
    for fn in [n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)]:
        rewritten |= _function(fn, ranks, floats, fused or {})
    return rewritten


def _function(fn, ranks: dict, floats: dict, fused: dict) -> set:
    if any(isinstance(n, (gast.FunctionDef, gast.Lambda)) and n is not fn
           for n in S.walk(fn)):
        return set()
    params = {a.id for a in fn.args.args if isinstance(a, gast.Name)}
    candidates = owned_names(fn, set(ranks) - params, ranks, fused)
    names = set()
    for stmt, top in in_loops(fn):
        reset = _reset(stmt, candidates, floats)
        if reset is None:
            continue
        name, shape = reset
        stmt.value = gast.copy_location(
            S.call("zeros_into", S.name(name), shape), stmt.value)
        names.add(name)
        if not bound_before(fn, top, name):
            initialize(fn, name, ranks[name])
    return names


def in_loops(fn) -> list:
    """(statement, the statement of `fn`'s body holding it) for each statement inside a loop
    of `fn`, each once."""
    found = {}
    for top in fn.body:
        for loop in S.walk(top):
            if isinstance(loop, (gast.For, gast.While)):
                for stmt in S.walk(loop):
                    if isinstance(stmt, gast.stmt) and stmt is not loop:
                        found.setdefault(id(stmt), (stmt, top))
    return list(found.values())


def _reset(stmt, candidates, floats):
    """(name, shape expression) where `stmt` is `name = np.zeros(shape)` or
    `name = np.zeros_like(u)` (u a float array) of an owned name, else None."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in candidates):
        return None
    call = stmt.value
    if not (_is_numpy_call(call) and len(call.args) == 1 and not call.keywords):
        return None
    if call.func.attr == "zeros":
        return stmt.targets[0].id, call.args[0]
    if call.func.attr == "zeros_like" and isinstance(call.args[0], gast.Name) \
            and call.args[0].id in floats:
        return stmt.targets[0].id, gast.Attribute(gast.Name(call.args[0].id, gast.Load(), None,
                                                            None), "shape", gast.Load())
    return None


def owned_names(fn, names: set, ranks: dict, fused=None, fresh=frozenset()) -> set:
    """The names of `names` that own their arrays in `fn` (module docstring); `fused`: the
    fused loops' names (their FusedLoop), whose results are new arrays."""
    fused = fused or {}  # `fresh`: the ids of further bindings that make new arrays
    parents = {child: node for node in S.walk(fn) for child in gast.iter_child_nodes(node)}
    owned = set(names)
    for node in S.walk(fn):
        if not isinstance(node, gast.Name) or node.id not in owned:
            continue
        if isinstance(node.ctx, gast.Load):
            if not _used_up(node, parents, ranks[node.id], fused):
                owned.discard(node.id)
        elif isinstance(node.ctx, gast.Store):
            parent = parents.get(node)
            if isinstance(parent, gast.AugAssign) and parent.target is node:
                continue  # added into in place
            if not (isinstance(parent, gast.Assign) and parent.targets == [node]
                    and (_made_new(parent.value, fused) or id(parent) in fresh)):
                owned.discard(node.id)
        else:
            owned.discard(node.id)
    return owned


def _made_new(value, fused) -> bool:
    """Is `value` a new array no other name holds?"""
    if isinstance(value, (gast.BinOp, gast.UnaryOp)):
        return True
    if not isinstance(value, gast.Call):
        return False
    if _is_numpy_call(value):
        return value.func.attr in _NEW
    func = value.func
    if isinstance(func, gast.Attribute) and func.attr == "copy" and not value.args:
        return True
    if not isinstance(func, gast.Name):
        return False
    if func.id == "assigned_adjoint":
        return len(value.args) == 2 and _made_new(value.args[1], fused)
    if func.id.startswith(_KERNEL):
        return not func.id.endswith(_SCRATCH)
    return func.id.startswith(_MADE_BY_CALL) or _fused_anew(func.id, fused)


def _fused_anew(name, fused) -> bool:
    """Is `name` a fused loop computing arithmetic of its operands (its result a new array or
    a number, never an operand itself)?"""
    loop = fused.get(name)
    return loop is not None and not loop.expression.strip("() ").isidentifier()


def _used_up(node, parents, rank, fused) -> bool:
    """Is the array read by `node` used where it stands, never reaching another holder?"""
    while True:
        parent = parents.get(node)
        if isinstance(parent, gast.Subscript) and parent.value is node:
            if not isinstance(parent.ctx, gast.Load) or _element(parent.slice, rank):
                return True  # a write into it, or a number read from it
            node = parent  # a view of it
        elif isinstance(parent, gast.Attribute):
            return parent.attr in _NUMBER_ATTRIBUTES
        elif isinstance(parent, (gast.BinOp, gast.UnaryOp, gast.Compare)):
            return True
        elif isinstance(parent, gast.AugAssign):
            return parent.value is node
        elif isinstance(parent, gast.Call) and node in parent.args \
                and isinstance(parent.func, gast.Name):
            name = parent.func.id
            if name.startswith(_KERNEL) or _fused_anew(name, fused):
                return True
            if name in _PASSING or name.startswith("fused_"):
                node = parent
            else:
                return False
        elif _is_numpy_call(parent) and node in parent.args and parent.func.attr in _NEW:
            return True  # its shape and type read
        else:
            return False


def _element(index, rank) -> bool:
    """Does `index` pick one element of an array of `rank` axes (int constants and names,
    one per axis)?"""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    return len(parts) == rank and all(
        (isinstance(p, gast.Constant) and type(p.value) is int) or isinstance(p, gast.Name)
        for p in parts)


def _is_numpy_call(node) -> bool:
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and isinstance(node.func.value, gast.Name) and node.func.value.id == "np"


def bound_before(fn, top, name) -> bool:
    """Is `name` bound by a statement of `fn`'s body before `top` (so wherever `top` runs)?"""
    for stmt in fn.body:
        if stmt is top:
            return False
        if isinstance(stmt, gast.Assign) and any(
                isinstance(t, gast.Name) and t.id == name for t in stmt.targets):
            return True
    return False


def initialize(fn, name, rank) -> None:
    """Bind `name` to empty zeros of `rank` axes at the top of `fn` (after its docstring)."""
    shape = "(" + "0, " * rank + ")" if rank else "()"
    first = after_docstring(fn)
    fn.body[first:first] = S.located(S.parse_stmts(f"{name} = np.zeros({shape})"),
                                     fn.body[first])
