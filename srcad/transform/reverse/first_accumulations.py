"""A clean-up of reverse blocks (a part of `ReverseTransform`): a variable defined once in a block
and read only after that definition in the same iteration has a zero adjoint when the
iteration's reverse starts and a dead one after its definition's adjoint, so its first `v_bar += e`
becomes `v_bar = e` and the reset `v_bar = 0.0` goes.

On the python backend an array `v` (a whole-array local) gets the same: `v_bar` is bound to
its first contribution when that is a new array (arithmetic: `k_bar = 2.0 * g`) or the
adjoint of another such array that is dead from there on (`r_bar = k_bar` at the adjoint of
`k = r`: the array moves, nothing zeroes or adds into it again before `k_bar` is bound
anew), and to a copy of it otherwise (a name, a view such as `np.flip(g)`): per iteration a
pass over the array for the zeroing and one for the addition fewer, and `v_bar` still owns
its array (docs/arrays.md).
"""

from __future__ import annotations

import gast

from srcad.analysis.types import FLOAT, Array
from srcad.frontend import syntax as S
from srcad.transform.optimize import in_place_reset, is_array_reset


class FirstAccumulations:
    """The first-accumulation clean-up of `ReverseTransform.block`."""

    def _load_counts(self) -> dict:
        if self.load_counts is None:
            self.load_counts = _load_names(gast.Module(body=self.norm.body, type_ignores=[]))
        return self.load_counts

    def _read_only_after(self, block, index, name, loads=None) -> bool:
        """Is `name` read, and every read of it in the function in `block[index + 1:]`?
        `loads`: each statement's `_load_names` of `block`, when asked for many names."""
        if loads is None:
            later = sum(_loads(s, name) for s in block[index + 1:])
        else:
            later = sum(counts.get(name, 0) for counts in loads[index + 1:])
        return later > 0 and later == self._load_counts().get(name, 0)

    def _assign_first_accumulations(self, stmts, rev):
        """For a variable defined once in this block and read only after that definition in
        the same block iteration, its adjoint is zero when the iteration's reverse starts and
        dead after its definition's adjoint: the first `v_bar += e` becomes `v_bar = e` and
        the reset `v_bar = 0.0` goes (fewer statements in the hottest loops)."""
        names = None  # the names of each reverse statement, listed once
        loads = None  # the names each statement of the block reads (and how often), once
        moved: set = set()  # array adjoints whose array may move on (their reset went)
        # (last definitions first: the adjoint of `k = r` moves k_bar once k's reset went)
        for index, d in reversed(list(enumerate(stmts))):
            if not (isinstance(d, gast.Assign) and isinstance(d.targets[0], gast.Name)):
                continue
            v = d.targets[0].id
            bar = self.bar.get(v)
            array = self._owned_array_adjoint(v)
            if bar is None or (self.types[v] != FLOAT and not array) \
                    or v in self.norm.params or self.recording.def_count.get(v) != 1:
                continue
            if loads is None:
                loads = [_load_names(s) for s in stmts]
            if not self._read_only_after(stmts, index, v, loads):
                continue  # read elsewhere too (before its definition, after the block...)
            if names is None:
                names = [_names(r) for r in rev]
            mentions = [k for k, n in enumerate(names) if bar in n]
            if not mentions:
                continue
            first, last = mentions[0], mentions[-1]
            head, tail = rev[first], rev[last]
            if not (isinstance(head, gast.AugAssign) and isinstance(head.op, gast.Add)
                    and isinstance(head.target, gast.Name) and head.target.id == bar
                    and bar not in S.loaded_names(head.value)):
                continue
            if array:
                if self.reads_seed(head.value):
                    continue  # the caller's seed may be narrower (a float for an array)
                if not (is_array_reset(tail, bar) or (in_place_reset(tail)
                                                      and tail.targets[0].value.id == bar)):
                    continue
                value = head.value
                if not (_new_array(value) or _moved(value, moved, names, first)):
                    value = S.call("np.copy", value)  # (an existing array: not shared)
                moved.add(bar)
            elif not (isinstance(tail, gast.Assign) and isinstance(tail.targets[0], gast.Name)
                      and tail.targets[0].id == bar and isinstance(tail.value, gast.Constant)):
                continue
            rev[first] = S.assign(S.name(bar), value if array else head.value)
            names[first] = _names(rev[first])
            del rev[last], names[last]
            self.assigned_first.add(v)
        return rev

    def reads_seed(self, expr) -> bool:
        """Does `expr` read a seed of a returned array (`result_bar`; `result_bar_0`, ... of a
        returned tuple), which the caller may pass narrower than the array (a float)?"""
        seed = self.return_bar
        return seed is not None and any(
            (n == seed and self.returns_array) or n.startswith(seed + "_")
            for n in S.loaded_names(expr))

    def _owned_array_adjoint(self, v) -> bool:
        """python backend (numba keeps its own clean-ups of array adjoints): is `v` a
        whole-array local of floats whose adjoint is an array of its own (not a view of
        another adjoint, view_adjoints.py)?"""
        typ = self.types[v]
        return not self.tape_calls and isinstance(typ, Array) and typ.is_float and not typ.is_bool \
            and v in self.expression_arrays and v not in self.aliased_views


def _new_array(value) -> bool:
    """Is `value` certainly an array no other name holds: arithmetic (`2.0 * g`, `W.T @ g`),
    or `unbroadcast` of it? (A call may hand back a view of its operand: np.flip, a
    reshape, np.diagonal; it is copied.)"""
    if isinstance(value, gast.Call) and S.unparse_expr(value.func) == "unbroadcast":
        return _new_array(value.args[0])
    return isinstance(value, (gast.BinOp, gast.UnaryOp))


def _moved(value, moved: set, names: list, at: int) -> bool:
    """Is `value` the adjoint array of another local, reset nowhere any more (`moved`), that
    no reverse statement after index `at` mentions?"""
    return isinstance(value, gast.Name) and value.id in moved \
        and not any(value.id in n for n in names[at + 1:])


def _loads(stmt, name) -> int:
    return sum(1 for n in S.nodes(stmt) if isinstance(n, gast.Name) and n.id == name
               and isinstance(n.ctx, gast.Load))


def _load_names(stmt) -> dict:
    """name -> how many times `stmt` reads it."""
    counts: dict = {}
    for n in S.nodes(stmt):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def _names(stmt) -> set:
    return {n.id for n in S.nodes(stmt) if isinstance(n, gast.Name)}
