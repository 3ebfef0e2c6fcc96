"""Reverse mode: one generated function runs the forward sweep (the primal, plus pushes of the
values the reverse sweep needs and the primal overwrites) and then the reverse sweep (adjoint
statements in reverse order, reading taped values back).

Conventions of the generated code:
* the adjoint of `v` is `v_bar`; array shadows are the arrays passed in by the caller;
* `tape` holds floats, `int_tape` branch flags, trip counts, indices and array shapes, and
  `array_tape` arrays, by reference (plain lists, popped in the reverse order of their pushes);
* every reverse block starts with a comment naming the primal line it undoes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from srcad.analysis.array_bindings import (
    expression_bound,
    rebound_allocations,
    written_in_place,
)
from srcad.analysis.definite_assignment import bound_on_every_branch
from srcad.analysis.primitives import effect_call
from srcad.analysis.recording import Recording
from srcad.analysis.types import FLOAT, Array, is_differentiable, is_float_like
from srcad.frontend import syntax as S
from srcad.transform.optimize import assign_after_reset, drop_dead_resets, passed_through
from srcad.transform.reverse.arrays import ReverseArrays, adjoints_made_with
from srcad.transform.reverse.checkpoint import ReverseCheckpoint
from srcad.transform.reverse.control_flow import ReverseControlFlow
from srcad.transform.reverse.counters import ReverseCounters
from srcad.transform.reverse.dead_tape_entries import drop_dead_tape_entries
from srcad.transform.reverse.docstring import reverse_docstring
from srcad.transform.reverse.first_accumulations import FirstAccumulations
from srcad.transform.reverse.first_bindings import first_binding
from srcad.transform.reverse.invariant_sums import sums_in_locals
from srcad.transform.reverse.leaves import index_leaves, replaced
from srcad.transform.reverse.parameter_rows import fresh_adjoint
from srcad.transform.reverse.recording import ReverseRecording
from srcad.transform.reverse.shape_guards import ShapeGuards
from srcad.transform.reverse.slots import ReverseSlots
from srcad.transform.reverse.view_adjoints import ViewAdjoints
from srcad.transform.tapes import ARRAY_TAPE, FLOAT_TAPE, INT_TAPE, WORK, ArrayTapes, ListTapes


@dataclass
class ReverseCode:
    tree: gast.FunctionDef
    taped: list = field(default_factory=list)  # variables the forward sweep tapes
    tapes: list = field(default_factory=list)  # the tapes used ("tape", "int_tape", "work")


class ReverseTransform(ReverseRecording, ReverseControlFlow, ReverseSlots, ReverseArrays,
                       ReverseCheckpoint, FirstAccumulations, ReverseCounters, ViewAdjoints,
                       ShapeGuards):
    def __init__(self, norm, types, activity, arg_kinds: dict, name: str, tapes=None):
        self.norm = norm
        self.types = types
        self.activity = activity
        self.arg_kinds = arg_kinds  # param -> "const" | "active" | "duplicated"
        self.namer = norm.namer
        self.tapes = tapes or ListTapes()
        self.tapes.bind(self.namer)
        # numba: a float store and load beat recomputing exp/sqrt/...; python: about even,
        # so recompute and keep the tape short
        self.tape_calls = isinstance(self.tapes, ArrayTapes)
        self.expression_arrays = (expression_bound(norm, types)
                                  | rebound_allocations(norm, types)) & set(activity.active)
        self.recording = Recording(norm.body, self._keep_taped)
        self.bar: dict[str, str] = {}
        self.taped: list[str] = []  # what the forward sweep records: names, elements, shapes
        self.used_tapes: set[str] = set()
        self.loop_frames: list[dict] = []
        self.load_counts: dict | None = None  # reads of each name in the function
        self.assigned_first: set[str] = set()  # adjoints that need no zero at the start
        self.aliased_views: dict = {}  # views whose adjoint is a view of the array's adjoint
        self.name = name
        self.result = None
        self.return_bar = None
        self.returns_array = False
        self.replay_code: dict[int, list] = {}  # id(definition) -> statements recomputing it
        self.slot_forms: dict = {}  # id(statement) -> SlotForm (taped calls in slots)
        self.pieces: dict[int, list] = {}  # id(statement) -> its forward sweep statements
        for v in sorted(activity.active - {"<return>"}):
            self.bar[v] = self.namer.fresh(f"{v}_bar")
        # arrays bound to whole-array expressions (docs/arrays.md), and arrays whose elements
        # or contents the function writes (taped by copy, not by reference)
        self.written_in_place = written_in_place(norm)
        self.writes_out = None  # does a call write into an `out=` array (recording.py)

    # -- helpers -----------------------------------------------------------------------------
    def active_leaf(self, node) -> bool:
        if isinstance(node, gast.Name):
            return node.id in self.bar and is_differentiable(self.types[node.id])
        if isinstance(node, gast.Subscript):  # an element, a row or a slice
            base = node.value
            return (isinstance(base, gast.Name) and base.id in self.bar
                    and is_differentiable(self.types.of(node)))
        return False

    def _zero(self, target, subst=None, old_shape=None, seed_spent=False):
        """`v_bar = 0.0`; for an array, a new zero array (docs/arrays.md: an array adjoint
        owns its array, and the old one may still be read as a seed), of the replaced
        value's shape where a rebinding may change it (`old_shape`, read as recorded). A
        taped index (`subst`) is read from its taped copy, as in `_adjoint_ref`.

        `seed_spent`: the adjoint of the definition has been added into its operands already
        (nothing reads the seed any more), so a local array adjoint of unchanged shape is
        zeroed in place (`v_bar[...] = 0.0`): no allocation per reset, which in a loop (a row
        view `w = W[i]` per iteration) costs more than the row's arithmetic."""
        ref = self._adjoint_ref(target, subst)
        if isinstance(target, gast.Name) and isinstance(self.types[target.id], Array):
            if old_shape is not None:
                shape = (subst or {}).get(gast.dump(old_shape), old_shape)
                return S.assign(ref, S.call("np.zeros", S.clone(shape)))
            if seed_spent and target.id not in self.norm.params:
                return S.assign(gast.Subscript(value=S.clone(ref), slice=gast.Constant(
                    value=Ellipsis, kind=None), ctx=gast.Store()), S.const(0.0))
            return S.assign(ref, S.call("np.zeros_like", S.clone(ref)))
        return S.assign(ref, S.const(0.0))

    def error(self, node, construct, message, hint=None):
        return self.norm.parsed.error(node, construct, message, hint=hint)

    def _comment(self, stmt) -> gast.AST:
        line = self.norm.parsed.line_of(stmt)
        text = S.unparse_header(stmt)
        return S.comment(f"line {line}: {text}" if line else text)

    # -- statements ----------------------------------------------------------------------------
    def block(self, stmts):
        fwd, revs = [], []
        for index, stmt in enumerate(stmts):
            f, r = self.stmt(stmt)
            f = self.shape_guarded(stmt, f)  # a carried array kept its shape (shape_guards.py)
            self.pieces[id(stmt)] = f
            pushes, pops = self.counter_region_ends(stmts, index)
            fwd.extend(f + pushes)
            revs.append([] if all(S.is_comment(s) for s in r) else pops + r)
        rev = self._assign_first_accumulations(stmts, [s for r in reversed(revs) for s in r])
        return fwd, self.view_adjoint_aliases(stmts, rev) + rev

    def with_replays(self, block, rev):
        replays = [self.tapes.python_floats(s, self.types)
                   for d in self.recording.replays_for(block)
                   for s in S.clone(self.replay_code.get(id(d), [d]))]
        if replays and rev:
            return [S.comment("recompute values of this iteration (cheaper than taping)")] \
                + replays + rev
        return rev

    def stmt(self, stmt):
        counter_step = self.counter_step(stmt)
        if counter_step is not None:
            return counter_step
        if isinstance(stmt, gast.Assign):
            return self.assign(stmt, stmt.targets[0], stmt.value, None)
        if isinstance(stmt, gast.AugAssign):
            return self.assign(stmt, stmt.target, stmt.value, stmt.op)
        if isinstance(stmt, gast.Return):
            return self.ret(stmt)
        if isinstance(stmt, gast.For):
            return self.for_loop(stmt)
        if isinstance(stmt, gast.While):
            return self.while_loop(stmt)
        if isinstance(stmt, gast.If):
            return self.if_stmt(stmt)
        if isinstance(stmt, (gast.Pass, gast.Break, gast.Assert, gast.Raise)) or S.is_comment(stmt):
            return [stmt], []
        if isinstance(stmt, gast.Expr):
            if effect_call(self.norm, stmt.value) == "add.at" and (
                    S.loaded_names(stmt.value) & self.activity.active):
                raise self.error(stmt, "np.add.at", "`np.add.at` on values that carry "
                                 "derivatives is differentiated in forward mode only",
                                 hint="use mode='forward', or write the additions in a loop "
                                 "(`for k in range(len(idx)): a[idx[k]] += v[k]`)")
            return [stmt], []
        raise self.error(stmt, type(stmt).__name__, "statement not supported in reverse mode")

    def ret(self, stmt):
        if stmt.value is None:
            return [], []
        self.result = self.namer.fresh("result")
        assign = gast.copy_location(S.assign(S.name(self.result), stmt.value), stmt)
        self.recording.sites[id(assign)] = self.recording.sites[id(stmt)]
        if S.is_tuple_return(stmt):
            return self.tuple_return(stmt, assign)
        if "<return>" in self.activity.active and is_float_like(self.types.of(stmt.value)):
            self.return_bar = self.namer.fresh("result_bar")
            if isinstance(self.types.of(stmt.value), Array):
                return self.array_return(stmt, assign)
            self.bar[self.result] = self.return_bar
            self.types.env[self.result] = FLOAT
            fwd, rev = self.assign(assign, assign.targets[0], assign.value, None)
            rev[0] = self._comment(stmt)
            del self.bar[self.result]
            kill = S.assign(S.name(self.return_bar), S.const(0.0))
            return fwd, [s for s in rev if not S.same(s, kill)]
        return [assign], []

    def tuple_return(self, stmt, assign):
        """`return a, b` (each element a variable): `result_bar` is a tuple of one seed per
        element, added into the adjoint of each active element."""
        self.return_bar = self.namer.fresh("result_bar")
        seeds = [self.namer.fresh(f"{self.return_bar}_{k}") for k in range(len(stmt.value.elts))]
        rev = []
        for seed, element in zip(seeds, stmt.value.elts):
            if element.id in self.bar and is_float_like(self.types[element.id]):
                rev.append(S.aug_assign(S.name(self.bar[element.id]), gast.Add(),
                                        S.name(seed)))
        unpack = S.assign(gast.Tuple(elts=[S.name(s, store=True) for s in seeds],
                                     ctx=gast.Store()), S.name(self.return_bar))
        return [assign], [self._comment(stmt), unpack] + rev if rev else []

    def assign(self, stmt, target, value, op):
        tname = S.target_name(target)
        ttype = self.types[tname]
        active_target = tname in self.bar
        if isinstance(ttype, Array) and isinstance(target, gast.Name):
            if tname not in self.expression_arrays or self.grows(stmt):
                return self.array_binding(stmt, target, value)
            if self.view_adjoint_binding(stmt, target, value, op):
                return [stmt], []  # its reads' adjoints went into the array's as they went
        if not active_target:
            return [stmt], []
        diff = self._diff({})
        leaves = self._needed_leaves(value, diff, stmt)
        if op is not None and not isinstance(op, (gast.Add, gast.Sub)):
            full = gast.BinOp(left=S.as_load(target), op=op, right=value)
            leaves = self._needed_leaves(full, diff, stmt)
        else:
            full = None
        # a slice or row write (`y[1:] = v`): v may be narrower (broadcast into the slice)
        slice_write = isinstance(target, gast.Subscript) and \
            isinstance(self.types.of(target), Array)
        if isinstance(target, gast.Subscript):
            leaves = index_leaves(target.slice) + leaves
        if slice_write:
            leaves += [r for r in diff.shapes.shape_reads(value) if isinstance(r, gast.Attribute)]
        old_shape = self._replaced_shape(stmt, target, op, diff)
        if old_shape is not None:
            leaves.append(old_shape)
        pushes, pops, subst = self._record(leaves, stmt)
        diff = self._diff(subst)
        seed_read = self._adjoint_ref(target, subst)
        # the seed held before the target's adjoint changes (a slice of it is a view: copied)
        held = S.call("np.copy", seed_read) if slice_write else seed_read
        rev = [self._comment(stmt)] + pops

        def accumulate(leaf, contribution):
            return self.accumulate_leaf(leaf, contribution, subst)

        if op is not None and full is None:  # v += e, v -= e: v's adjoint passes through
            seed = seed_read if isinstance(op, gast.Add) else gast.UnaryOp(op=gast.USub(),
                                                                           operand=seed_read)
            if tname in S.loaded_names(value):
                g = self.namer.fresh("g")
                rev.append(S.assign(S.name(g), held))
                seed = S.name(g) if isinstance(op, gast.Add) else \
                    gast.UnaryOp(op=gast.USub(), operand=S.name(g))
            primal, prepared = self._with_taped_calls(stmt, diff, value, value, subst, rev)
            if slice_write:
                seed = diff.fit_seed(value, seed, prepared)
            rev += diff.adjoint(value, seed, accumulate, prepared)
            return pushes + primal, rev
        expr = full if full is not None else value
        if not diff.is_active(expr):
            rev.append(self._zero(target, subst, old_shape))
            return pushes + [stmt], rev
        primal, prepared = self._with_taped_calls(stmt, diff, expr, value, subst, rev)
        if tname in S.loaded_names(expr) or isinstance(target, gast.Subscript):
            g = self.namer.fresh(f"{tname}_bar_value" if isinstance(target, gast.Subscript)
                                 else "g")
            rev.append(S.assign(S.name(g), held))  # before the slice is zeroed
            zero_at = len(rev)
            rev.append(self._zero(target, subst, old_shape))
            seed = diff.fit_seed(expr, S.name(g), prepared) if slice_write else S.name(g)
            rev += diff.adjoint(expr, seed, accumulate, prepared)
            rev = passed_through(rev, zero_at, g)
            if tname in self.expression_arrays and isinstance(target, gast.Name):
                rev = assign_after_reset(rev, self.bar[tname], copy=None if self.tape_calls
                                         else self.reads_seed)
        else:
            if prepared is None:
                prepared = self._replay_with_intermediates(stmt, diff, expr, tname)
            rev += diff.adjoint(expr, seed_read, accumulate, prepared)
            rev.append(self._zero(target, subst, old_shape, seed_spent=True))
        return pushes + primal, rev

    def _replaced_shape(self, stmt, target, op, diff):
        """`v.shape` before `v = e` rebinds an array name that a loop or a branch rebinds
        (top-level rebindings have a name each, transform/normalize/retyped_names.py): the adjoint
        of the value replaced is reset to zeros of its own shape, which may differ from the new
        value's (`h = h[1:] * h[:-1]`, `w = x[:i + 1]` in a loop: reverse/loop_shapes.py).
        None for other statements and for a first binding outside a loop (no old value)."""
        name = S.target_name(target)
        if op is not None or not isinstance(target, gast.Name) \
                or name not in self.expression_arrays or name not in self.recording.def_site:
            return None
        once = self.recording.bind_count.get(name, 0) < 2 or first_binding(
            self.norm.body, self.norm.params, stmt, name)
        if once and not self.shape_may_change(stmt, name, diff.shapes):
            return None
        return gast.Attribute(value=S.name(name), attr="shape", ctx=gast.Load())

    def _with_taped_calls(self, stmt, diff, expr, value, subst, rev):
        """(forward statements, prepared intermediates or None) of `stmt`; with taped calls
        (numba), `rev` gets their pops after its comment and their cheap intermediates."""
        taped = self._taped_intermediates(stmt, diff, expr, value, subst)
        if taped is None:
            return [stmt], None
        primal, call_pops, recompute, prepared = taped
        rev[1:1] = call_pops
        rev += recompute
        return primal, prepared

    def _adjoint_ref(self, leaf, subst=None):
        """`v_bar` or `x_bar[i]` for a leaf; an index the forward sweep taped (`subst`) is read
        from its taped copy: the reverse sweep indexes where the primal read."""
        if isinstance(leaf, gast.Name):
            return S.name(self.bar[leaf.id])
        base = S.target_name(leaf)
        return gast.Subscript(value=S.name(self.bar[base]),
                              slice=S.as_load(replaced(leaf.slice, subst or {})),
                              ctx=gast.Load())

    # -- the whole function ------------------------------------------------------------------
    def build(self) -> ReverseCode:
        self.recording.counters = self._restored_counters()
        fwd, rev = self.block(self.norm.body)
        params, returned = [], []
        for p in self.norm.params:
            params.append(p)
            kind = self.arg_kinds[p]
            if kind == "duplicated":
                params.append(self.bar.setdefault(p, self.namer.fresh(f"{p}_bar")))
            elif kind == "active":
                returned.append(S.name(self.bar[p]) if p in self.bar else S.const(0.0))
        if self.return_bar is None:
            self.return_bar = self.namer.fresh("result_bar")
        params.append(self.return_bar)
        used = [t for t in (FLOAT_TAPE, INT_TAPE, WORK, ARRAY_TAPE) if t in self.used_tapes] \
            + sorted(t for t in self.used_tapes if t not in (FLOAT_TAPE, INT_TAPE, WORK,
                                                              ARRAY_TAPE))
        params += self.tapes.parameters(used)
        body = [S.comment("forward sweep: the primal, recording what the reverse sweep needs")]
        for tape in used:
            body += self.tapes.init(tape)
        duplicated = {p for p in self.norm.params if self.arg_kinds[p] == "duplicated"}
        # an array bound on some branches only: its adjoint is made where it is bound (at the
        # top of the reverse sweep the array may not exist)
        on_some_branches = self.expression_arrays - duplicated - bound_on_every_branch(
            self.norm.body, self.norm.params)
        on_some_branches -= set(self.aliased_views)  # bound in the reverse sweep
        body += adjoints_made_with(fwd, {v: self.bar[v] for v in on_some_branches
                                          if v in self.bar})
        body.append(S.comment("reverse sweep: adjoints in reverse order"))
        for v, bar in sorted(self.bar.items()):
            if v not in duplicated and self.types[v] == FLOAT and v != self.result \
                    and v not in self.assigned_first:
                body.append(S.assign(S.name(bar), S.const(0.0)))
            elif v in self.expression_arrays and v not in duplicated \
                    and v not in on_some_branches and v not in self.aliased_views \
                    and v not in self.assigned_first:
                body.append(S.assign(S.name(bar), fresh_adjoint(
                    v, self.recording, self.types, self.norm.params)))
        rev = drop_dead_resets(rev, {r.id for r in returned if isinstance(r, gast.Name)})
        body += sums_in_locals(rev, body + fwd + rev, set(params), self._scalar_adjoint_element,
                               self.namer)
        result = S.name(self.result) if self.result else S.const(None)
        body.append(gast.Return(value=gast.Tuple(
            elts=[result, gast.Tuple(elts=returned, ctx=gast.Load())]
            + self.tapes.results(used), ctx=gast.Load())))
        args = gast.arguments(args=[S.name(p, store=False) for p in params], posonlyargs=[],
                              vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                              defaults=[] if self.tapes.parameters(used) else [S.const(1.0)])
        for a in args.args:
            a.ctx = gast.Param()
        doc = reverse_docstring(self, duplicated, self.tapes.parameters(used))
        tree = gast.FunctionDef(name=self.name, args=args, body=[S.expr_stmt(S.const(doc))] + body,
                                decorator_list=[], returns=None, type_comment=None,
                                type_params=[])
        return ReverseCode(drop_dead_tape_entries(tree), list(dict.fromkeys(self.taped)),
                           [t for t in used if self.tapes.parameters([t])])

    def _scalar_adjoint_element(self, bar, index) -> bool:
        """Does `bar[index]` read one float of the adjoint array `bar`?"""
        primal = next((v for v, b in self.bar.items() if b == bar), None)
        typ = self.types[primal] if primal is not None else None
        if not isinstance(typ, Array) or not typ.is_float or typ.is_bool or \
                any(isinstance(n, gast.Slice) for n in gast.walk(index)):
            return False
        count = len(index.elts) if isinstance(index, gast.Tuple) else 1
        return count == typ.ndim
