"""Tuple locals become one variable per element.

A local bound only to tuples of one size (`t = (a, b)`, `t = helper(x)` once the helper's
tuple return is inlined, `u = t`) and read only by constant index (`t[0]`, `t[-1]`) or by
unpacking (`a, b = t`) is split into `t_0, t_1, ...`; the analyses then see plain scalars and
arrays. A tuple local used any other way (passed to a call, returned, indexed by a variable)
is left as it is, and the type analysis refuses it.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.names import Namer
from srcad.transform.normalize.lists import PartsSplitter, version_rebinds


def split_tuple_locals(body: list, params, namer: Namer, assign_one) -> list:
    """`body` with its splittable tuple locals split; `assign_one(target, value, origin)` is
    desugar's tuple assignment (it orders swaps through temporaries)."""
    tuples = {s.targets[0].id for s in body if isinstance(s, gast.Assign)
              and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
              and isinstance(s.value, gast.Tuple)}
    body = version_rebinds(body, tuples - set(params), namer)
    sizes = _splittable(body, set(params))
    if not sizes:
        return body
    parts = {n: [namer.fresh(f"{n}_{k}") for k in range(size)] for n, size in sizes.items()}
    return _Split(parts, assign_one).block(body)


def _bindings(body):
    for stmt in body:
        for node in S.nodes(stmt):
            if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], gast.Name):
                yield node.targets[0].id, node.value


def _splittable(body, params) -> dict:
    """name -> tuple size, for every local that can be split."""
    bound: dict = {}
    for name_, value in _bindings(body):
        bound.setdefault(name_, []).append(value)
    sizes = {n: {len(v.elts) for v in values if isinstance(v, gast.Tuple)}
             for n, values in bound.items() if n not in params and all(
                 isinstance(v, gast.Name) or (isinstance(v, gast.Tuple) and not any(
                     isinstance(e, gast.Starred) for e in v.elts)) for v in values)}
    grown = True
    while grown:  # `u = t`: u has t's size
        grown = False
        for n in sizes:
            for v in bound[n]:
                if isinstance(v, gast.Name) and not sizes.get(v.id, set()) <= sizes[n]:
                    sizes[n] |= sizes[v.id]
                    grown = True
    # A name rebound to tuples of different sizes keeps max-size parts: a program that runs
    # reads t[k] only below the size of t's current binding. Not with a negative index (its
    # element depends on that size) or a copy `u = t` (it would copy unassigned parts).
    candidates = {n: max(s) for n, s in sizes.items() if s}
    several = {n for n, s in sizes.items() if len(s) > 1}
    for stmt in body:
        for node in S.nodes(stmt):
            if isinstance(node, gast.Name) and node.id in several and isinstance(
                    node.ctx, gast.Load) and not _positive_index_of(node, stmt):
                candidates.pop(node.id, None)
            if isinstance(node, gast.Assign) and isinstance(node.value, gast.Name) \
                    and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name) \
                    and node.targets[0].id in several:
                candidates.pop(node.targets[0].id, None)
    changed = True
    while changed:  # drop names bound or read any other way, until nothing changes
        changed = False
        for name_, value in list(_bindings(body)):
            if name_ in candidates and not _fits(value, candidates[name_], candidates):
                del candidates[name_]
                changed = True
        allowed = _allowed_reads(body, candidates)
        for stmt in body:
            for node in S.nodes(stmt):
                # any other read, or a store not of the form `t = ...` (a loop variable,
                # `t += ...`, a target of unpacking) disqualifies
                if isinstance(node, gast.Name) and node.id in candidates \
                        and id(node) not in allowed:
                    candidates.pop(node.id, None)
                    changed = True
    return candidates


def _positive_index_of(name_node, stmt) -> bool:
    """Is `name_node` the value of a subscript by a constant index >= 0 in `stmt`?"""
    return any(isinstance(n, gast.Subscript) and n.value is name_node
               and isinstance(n.slice, gast.Constant) and type(n.slice.value) is int
               and n.slice.value >= 0 for n in S.nodes(stmt))


def _fits(value, size, candidates) -> bool:
    if isinstance(value, gast.Tuple):
        return len(value.elts) <= size
    return isinstance(value, gast.Name) and candidates.get(value.id) == size


def _allowed_reads(body, candidates) -> set:
    """Ids of the Name nodes of candidates that are read by constant index, copied whole
    (`u = t`), or bound (`t = ...`)."""
    ok = set()
    for stmt in body:
        for node in S.nodes(stmt):
            if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                    and node.value.id in candidates and isinstance(node.ctx, gast.Load) \
                    and S.constant_index(node.slice, candidates[node.value.id]) is not None:
                ok.add(id(node.value))
            if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], gast.Name) \
                    and node.targets[0].id in candidates:
                ok.add(id(node.targets[0]))
                if isinstance(node.value, gast.Name) and node.value.id in candidates:
                    ok.add(id(node.value))
    return ok


class _Split(PartsSplitter):
    def __init__(self, parts, assign_one):
        super().__init__(parts)
        self.assign_one = assign_one

    def visit_Assign(self, node):
        target = node.targets[0]
        if not (len(node.targets) == 1 and isinstance(target, gast.Name)
                and target.id in self.parts):
            return self.generic_visit(node)
        value = self.visit(node.value)
        if isinstance(value, gast.Name):
            value = gast.Tuple(elts=[S.name(p) for p in self.parts[value.id]], ctx=gast.Load())
        parts = self.parts[target.id][:len(value.elts)]  # a smaller tuple sets the first parts
        targets = gast.Tuple(elts=[S.name(p, store=True) for p in parts], ctx=gast.Store())
        return self.assign_one(targets, value, node)

    def visit_For(self, node):
        node.iter = self.visit(node.iter)
        node.body = self.block(node.body)
        node.orelse = self.block(node.orelse)
        return node

    def visit_While(self, node):
        node.test = self.visit(node.test)
        node.body = self.block(node.body)
        node.orelse = self.block(node.orelse)
        return node

    def visit_If(self, node):
        return self.visit_While(node)
