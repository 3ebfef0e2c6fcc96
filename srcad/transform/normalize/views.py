"""Views written through, rewritten as reads and writes of the array they view.

NumPy's basic indexing makes views: a row `v = state[i]`, a row passed to a helper (inlined
as `out = h[t]`), the rows of `for row in A` (`row = A[row_index]`), a block `blk = A[1:3,
0:2]`, an alias `out = state`. A write through a view (`v[k] = ...`, `v += ...`, `row[:] =
...`) writes the array, and a view made before a write of its array sees the write. srcad
follows arrays by name, so such a view is resolved before the analyses: each read and write
of it becomes the same read or write of its array with the indices composed (`v[k]` ->
`state[i, k]`, `blk[p, q]` -> `A[1 + p, q]`, `v += g` -> `state[i] += g`), and its binding is
dropped. An int index into a sliced axis is checked against the slice as NumPy checks
it (`a[1:3][5]` raises IndexError though `a[6]` may exist; `v[-1]` is the view's last
element), at the cost of a comparison in range (view_indices.py). The element and slice
writes of the array itself then carry every derivative: the tangent or adjoint of the view
is the same view of the array's tangent or adjoint, and a write through one view is seen by
every other view, as in NumPy.

Guarantees: only views the old rule refused are touched (a second name of an array some
statement writes after the name is bound, analysis/writes.py), so the generated code of
everything else is unchanged. A view is resolved only where its array is known from the
source at each use; an index variable rebound while the view is in use is read once, where
the view is made (`v_i = i`). Refused, naming the line: a view whose array depends on a
branch or on an earlier loop iteration (`v = a[0] if ... else b[0]` written as an if),
a view used after its array is rebound, and indices that do not compose into one basic
index (a slice of a slice, a step that is not a positive literal).
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from srcad.analysis.list_entry_errors import entry_alias_error
from srcad.analysis.types import INT, Array, Types
from srcad.analysis.writes import shared_while_written
from srcad.frontend import syntax as S
from srcad.transform.normalize.view_indices import (
    RUNTIME,
    NotComposable,
    element_of_slice,
    needs_size,
    size_assignments,
)


@dataclass(frozen=True)
class View:
    """`base[parts]` (parts None: the whole array, an alias)."""

    base: str
    parts: tuple | None
    # (axis, start name, size name) of slices whose bounds are known only at run time
    sizes: tuple = ()

    def expression(self, ctx=None):
        node = S.name(self.base)
        if self.parts is None:
            return node
        index = S.clone(self.parts[0]) if len(self.parts) == 1 else \
            gast.Tuple(elts=[S.clone(p) for p in self.parts], ctx=gast.Load())
        return gast.Subscript(value=node, slice=index, ctx=ctx or gast.Load())

    def key(self) -> str:
        return S.unparse_expr(self.expression()) + repr(self.sizes)


def resolve_views(norm, arg_types: dict) -> bool:
    """Rewrite the views written through (module docstring) in `norm.body`; True if any
    was. Runs until no view the old rule refuses is left that this pass can resolve.
    An index into a slice written on an array (`x[1:3][1]`) is one index of it by then
    (sliced_elements.py runs first: build/pipeline.py)."""
    changed = False
    for _ in range(8):  # each round resolves the views of the views resolved before
        types = Types(norm, arg_types, check=False)  # a name of two ranks may go away
        pending = {target for _, target, _ in shared_while_written(norm, types)}
        if not pending:
            break
        resolver = _Resolver(norm, types, pending)
        norm.body = resolver.block(norm.body, {}, set()) or [gast.Pass()]
        if not resolver.resolved:
            break
        changed = True
    return changed


class _Resolver:
    def __init__(self, norm, types, pending: set):
        self.norm, self.types, self.pending = norm, types, pending
        self.counters = _counters(norm.body)
        self.resolved = False

    def error(self, node, message, hint):
        return self.norm.parsed.error(node, "write through a view", message, hint=hint)

    # -- blocks: env maps a resolved view name to its View; poisoned names have no single one

    def block(self, stmts, env: dict, poisoned: set) -> list:
        out = []
        for k, stmt in enumerate(stmts):
            view = self._view_binding(stmt, env, poisoned)
            if view is not None:
                name = stmt.targets[0].id
                frozen, view = self._freeze(stmt, name, view, stmts[k + 1:])
                sized, view = self._sized(name, view, stmts[k + 1:])
                frozen += sized
                env[name] = view
                poisoned.discard(name)
                out.extend(gast.copy_location(a, stmt) for a in frozen)
                self.resolved = True
                continue
            if isinstance(stmt, (gast.For, gast.While)):
                out.append(self._loop(stmt, env, poisoned))
            elif isinstance(stmt, gast.If):
                out.append(self._branch(stmt, env, poisoned))
            else:
                stmt = self._statement(stmt, env, poisoned)
                out.append(stmt)
                for name in S.bound_names(stmt):
                    env.pop(name, None)
                    poisoned.discard(name)
        return out

    def _loop(self, stmt, env, poisoned):
        header = "iter" if isinstance(stmt, gast.For) else "test"
        setattr(stmt, header, self._rewrite(getattr(stmt, header), stmt, env, poisoned))
        rebound = set().union(*(S.bound_names(s) for s in stmt.body + stmt.orelse))
        if isinstance(stmt, gast.For):
            rebound |= S.bound_names(gast.Assign(targets=[stmt.target], value=S.const(0)))
        # at the top of an iteration a name rebound in the body may hold the last one's value
        inner = {n: v for n, v in env.items() if n not in rebound}
        carried = poisoned | (rebound & self.pending)
        stmt.body = self.block(stmt.body, dict(inner), set(carried)) or [gast.Pass()]
        stmt.orelse = self.block(stmt.orelse, dict(inner), set(carried))
        for n in rebound:
            env.pop(n, None)
        poisoned |= rebound & self.pending
        return stmt

    def _branch(self, stmt, env, poisoned):
        stmt.test = self._rewrite(stmt.test, stmt, env, poisoned)
        arms = []
        for field in ("body", "orelse"):
            arm_env, arm_poisoned = dict(env), set(poisoned)
            setattr(stmt, field, self.block(getattr(stmt, field), arm_env, arm_poisoned))
            arms.append((arm_env, arm_poisoned))
        if not stmt.body:
            stmt.body = [gast.Pass()]
        (env_a, poisoned_a), (env_b, poisoned_b) = arms
        env.clear()
        poisoned.clear()
        poisoned |= poisoned_a | poisoned_b
        for name in set(env_a) | set(env_b):
            a, b = env_a.get(name), env_b.get(name)
            if a is not None and b is not None and a.key() == b.key():
                env[name] = a
            else:  # the array it views depends on the branch taken
                poisoned.add(name)
        return stmt

    def _statement(self, stmt, env, poisoned):
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) \
                and stmt.target.id in env:
            view = env[stmt.target.id]
            parts = view.parts if view.parts is not None else (_full_slice(),)
            stmt.target = View(view.base, parts).expression(gast.Store())
            stmt.value = self._rewrite(stmt.value, stmt, env, poisoned)
            return stmt
        return self._rewrite(stmt, stmt, env, poisoned)

    # -- one view binding

    def _view_binding(self, stmt, env, poisoned) -> View | None:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name)
                and stmt.targets[0].id in self.pending):
            return None
        try:
            return self._view_of(stmt.value, stmt, env, poisoned)
        except NotComposable as reason:
            raise self.error(stmt, f"`{stmt.targets[0].id}` is a view whose indices srcad "
                             f"cannot compose into one index of its array: {reason}",
                             hint="index the array itself") from None

    def _view_of(self, value, stmt, env, poisoned) -> View | None:
        """The View `value` is (a name or basic subscripts of one), None if it is not one."""
        if isinstance(value, gast.Name):
            if value.id in poisoned:
                raise self._unknown_base(stmt, value.id)
            if value.id in env:
                return env[value.id]
            return View(value.id, None) if isinstance(self.types[value.id], Array) else None
        if not isinstance(value, gast.Subscript):
            return None
        inner = self._view_of(value.value, stmt, env, poisoned)
        if inner is None:
            return None
        parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
        if not all(isinstance(p, gast.Slice) or self.types.of(p) == INT for p in parts):
            return None  # an index array or a new axis: a copy or a reshaped view
        parts = [self._rewrite(S.clone(p), stmt, env, poisoned) for p in parts]
        if inner.parts is None:
            return View(inner.base, tuple(parts))
        return View(inner.base, self._compose(inner, parts), inner.sizes)

    def _compose(self, view: View, inner: list) -> tuple:
        """The index of `view[inner]` as one index of its array (basic indices: the k-th
        part indexes axis k; view_indices.py checks an int into a slice)."""
        sizes = {axis: (start, size) for axis, start, size in view.sizes}
        out, rest = [], list(inner)
        for p in view.parts:
            if not isinstance(p, gast.Slice) or not rest:
                out.append(p)
                continue
            q = rest.pop(0)
            if _is_full(p):
                out.append(q)
            elif isinstance(q, gast.Slice):
                if not _is_full(q):
                    raise NotComposable(f"a slice of the slice `{S.unparse_expr(p)}`")
                out.append(p)
            else:
                self.norm.extra_names.update(RUNTIME)
                out.append(element_of_slice(view.base, len(out), p, q, self.counters,
                                            sizes.get(len(out))))
        return tuple(out + rest)

    def _sized(self, name, view, rest):
        """Assignments of the start and size of each slice of `view` an index into it needs
        (bounds known only at run time: view_indices.py), where the view is made, and the
        View that knows their names (nothing while the view is not indexed)."""
        if view.parts is None or not any(
                isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name)
                and n.value.id == name for s in _region(rest, name) for n in S.nodes(s)):
            return [], view
        known = {axis for axis, _, _ in view.sizes}
        assignments, sizes = [], list(view.sizes)
        for axis, p in enumerate(view.parts):
            if not isinstance(p, gast.Slice) or _is_full(p) or axis in known \
                    or not needs_size(p, self.counters):
                continue
            try:
                start = self.norm.namer.fresh(f"{name}_start")
                size = self.norm.namer.fresh(f"{name}_size")
                assignments += size_assignments(view.base, axis, p, start, size)
            except NotComposable:  # refused where it is indexed
                continue
            self.norm.extra_names.update(RUNTIME)
            sizes.append((axis, start, size))
        return assignments, View(view.base, view.parts, tuple(sizes))

    def _freeze(self, stmt, name, view, rest):
        """Assignments reading the view's index variables where it is made, if a statement
        while it is in use rebinds them, and the View reading those copies."""
        in_use = _region(rest, name)
        rebound = set().union(*(S.bound_names(s) for s in in_use)) if in_use else set()
        if view.base in rebound:
            error = entry_alias_error(self.norm, stmt, name, view.base)
            if error is not None:
                raise error
            raise self.error(stmt, f"`{name}` is a view of `{view.base}`, which is rebound "
                             "while the view is in use", hint=f"read and write through "
                             f"`{view.base}` itself, or copy: {name} = "
                             f"{S.unparse_expr(stmt.value)}.copy()")
        if view.parts is None:
            return [], view
        names = set().union(*(S.loaded_names(p) for p in view.parts)) & rebound
        if not names:
            return [], view
        renamed, frozen = {}, []
        for n in sorted(names):
            renamed[n] = self.norm.namer.fresh(f"{name}_{n}")
            frozen.append(S.assign(S.name(renamed[n]), S.name(n)))
            if n in self.counters:
                self.counters.add(renamed[n])
        parts = tuple(_Renamer(renamed).visit(S.clone(p)) for p in view.parts)
        return frozen, View(view.base, parts, view.sizes)

    # -- expressions

    def _rewrite(self, node, stmt, env, poisoned):
        if not env and not poisoned:
            return node
        return _Substitute(self, stmt, env, poisoned).visit(node)

    def _unknown_base(self, stmt, name):
        return self.error(stmt, f"`{name}` is a view whose array is not known here (it is "
                          "made in a branch, or in an earlier iteration of a loop around "
                          "this line), and the array it views is written while it is in use",
                          hint="make the view in the same block as its uses (peel the "
                          "first iteration if it views another array), or read and write "
                          "through each array itself")


class _Substitute(gast.NodeTransformer):
    def __init__(self, resolver, stmt, env, poisoned):
        self.resolver, self.stmt, self.env, self.poisoned = resolver, stmt, env, poisoned

    def visit_Name(self, node):
        if node.id in self.poisoned and isinstance(node.ctx, gast.Load):
            raise self.resolver._unknown_base(self.stmt, node.id)
        if node.id in self.env and isinstance(node.ctx, gast.Load):
            return self.env[node.id].expression()
        return node

    def visit_Subscript(self, node):
        root = node
        while isinstance(root, gast.Subscript):
            root = root.value
        if isinstance(root, gast.Name) and root.id in self.env:
            try:
                view = self.resolver._view_of(node, self.stmt, self.env, self.poisoned)
            except NotComposable as reason:
                raise self.resolver.error(self.stmt, f"`{S.unparse_expr(node)}` reads or "
                                          f"writes through the view `{root.id}` with indices "
                                          f"srcad cannot compose into one index of its "
                                          f"array: {reason}",
                                          hint="index the array itself") from None
            if view is not None:
                return gast.copy_location(view.expression(node.ctx), node)
        return self.generic_visit(node)


class _Renamer(gast.NodeTransformer):
    def __init__(self, renamed):
        self.renamed = renamed

    def visit_Name(self, node):
        return S.name(self.renamed[node.id]) if node.id in self.renamed else node


def _region(rest, name) -> list:
    """The statements after a view's binding while the view may be in use: up to its last
    mention before the block rebinds the name."""
    region = []
    for s in rest:
        if isinstance(s, gast.Assign) and any(isinstance(t, gast.Name) and t.id == name
                                              for t in s.targets) \
                and name not in S.loaded_names(s.value):
            break
        region.append(s)
    while region and not any(isinstance(n, gast.Name) and n.id == name
                             for n in S.nodes(region[-1])):
        region.pop()
    return region


def _counters(body) -> set:
    """Names bound only as the counter of `for n in range(...)` with a start that is not
    negative and no step: never negative, so `x[a:b][n]` is `x[a + n]`."""
    good, bad = set(), set()
    for stmt in body:
        for node in S.nodes(stmt):
            if isinstance(node, gast.For) and isinstance(node.target, gast.Name):
                call = node.iter
                ok = isinstance(call, gast.Call) and isinstance(call.func, gast.Name) \
                    and call.func.id == "range" and (len(call.args) == 1 or (
                        len(call.args) == 2 and isinstance(call.args[0], gast.Constant)
                        and isinstance(call.args[0].value, int) and call.args[0].value >= 0))
                (good if ok else bad).add(node.target.id)
            elif isinstance(node, (gast.Assign, gast.AugAssign)):
                bad |= S.bound_names(node)
    return good - bad


def _is_full(p) -> bool:
    return isinstance(p, gast.Slice) and p.lower is None and p.upper is None and p.step is None


def _full_slice():
    return gast.Slice(lower=None, upper=None, step=None)

