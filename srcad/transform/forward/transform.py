"""Forward (tangent) mode, scalar or batched: the primal runs once and each active value
carries its tangent(s) alongside, statement by statement, with no tape. How the tangents are
stored is a `TangentStyle` (transform/forward/styles.py: Scalar, Unrolled, Stacked, Looped); every
tangent statement is emitted once per style lane, rule intermediates are shared.
"""

from __future__ import annotations

import copy
import dataclasses

import gast

from srcad.analysis.array_bindings import (
    copy_source,
    expression_bound,
    is_allocation,
    written_in_place,
)
from srcad.analysis.primitives import effect_call
from srcad.analysis.types import FLOAT, Array, is_differentiable, stack_call
from srcad.errors import LaneLayoutError
from srcad.frontend import syntax as S
from srcad.transform.expressions import ExpressionDiff
from srcad.transform.forward.docstring import forward_docstring
from srcad.transform.forward.lanes import (
    copy_lanes_last,
    lane_count,
    reread_arrays,
)
from srcad.transform.forward.part_updates import PartUpdates
from srcad.transform.forward.returns import ForwardReturns
from srcad.transform.forward.stacks import StackTangents
from srcad.transform.forward.styles import Looped, Stacked, grown_tangents
from srcad.transform.forward.unset_tangents import UnsetTangents
from srcad.transform.forward.views import bind_view, view_base, view_bindings, view_layouts
from srcad.transform.tapes import WORK, ArrayTapes


class ForwardTransform(ForwardReturns, StackTangents, PartUpdates):
    def __init__(self, norm, types, activity, arg_kinds: dict, name: str, styles: list):
        self.norm = norm
        self.types = types
        self.activity = activity
        self.arg_kinds = arg_kinds
        self.name = name
        self.styles = list(styles)
        self.namer = norm.namer
        self.active = {v for v in activity.active if v != "<return>"}
        self.names = {}  # (style index, variable) -> tangent name
        for v in sorted(self.active):
            for k, style in enumerate(styles):
                self.names[k, v] = self.namer.fresh(style.name(v))
        self.expression_arrays = expression_bound(norm, types) & self.active
        self.element_written = written_in_place(norm)
        self.result = None
        self.result_tangents = None
        self.copied = {}  # Looped: argument -> the caller's tangent array, copied lanes last
        # tangents a path can read before setting them (a Const argument made active on one
        # path): zero at entry
        self.unset = UnsetTangents((p for p in norm.params if self.seeded(p)), norm.params)
        # numba: hoisted arrays (and Looped's lanes-last copies) live in a workspace array
        # passed in and kept across calls, as in reverse mode (ArrayTapes.carve)
        self.work, self.uses_work = ArrayTapes(), False
        if isinstance(styles[0], Looped) or norm.workspace:  # hoisting: numba only
            self.work.bind(self.namer)
        if isinstance(styles[0], Looped):
            self._lay_out_lanes()

    def _lay_out_lanes(self):
        """Looped: the tangents of an array argument whose elements the body reads again and
        again go into a lanes-last copy (`x_dot_t`); the others are used where the caller put
        them (transform/forward/lanes.py)."""
        arrays = [p for p in self.norm.params if p in self.active
                  and isinstance(self.types[p], Array) and self.arg_kinds[p] != "const"]
        reread = reread_arrays(self.norm.body, arrays)
        bindings = view_bindings(self.norm.body, self.types, self.active)
        views, viewed = view_layouts(bindings, {p for p in arrays if p not in reread})
        reread |= viewed
        for p in reread:
            self.copied[p] = self.names[0, p]
            self.names[0, p] = self.namer.fresh(f"{self.names[0, p]}_t")
        first = frozenset(self.names[0, v] for v in views | {p for p in arrays
                                                             if p not in reread})
        self.styles[0] = dataclasses.replace(self.styles[0], lanes_first=first)

    def seeded(self, p) -> bool:
        """The caller passes p's tangents (a varied argument)."""
        return self.arg_kinds.get(p) in ("duplicated", "active")

    def tangent_name(self, k, v):
        return self.names[k, v]

    def active_leaf(self, node) -> bool:
        if isinstance(node, gast.Name):
            return node.id in self.active and is_differentiable(self.types[node.id])
        if isinstance(node, gast.Subscript):  # an element, a row or a slice
            return (isinstance(node.value, gast.Name) and node.value.id in self.active
                    and is_differentiable(self.types.of(node)))
        return False

    def leaf_tangent(self, k):
        def tangent(node):
            if isinstance(node, gast.Name):
                self.unset.read(node.id)
                return self.styles[k].scalar(self.tangent_name(k, node.id))
            return self.styles[k].element(self.tangent_name(k, node.value.id), node.slice)
        return tangent

    def target_tangent(self, k, target):
        if isinstance(target, gast.Name):
            ref = self.styles[k].scalar(self.tangent_name(k, target.id))
            S.set_store(ref)
            return ref
        ref = self.styles[k].element(self.tangent_name(k, target.value.id), target.slice)
        S.set_store(ref)
        return ref

    # -- statements --------------------------------------------------------------------------
    def block(self, stmts):
        out = []
        for stmt in stmts:
            out.extend(self.stmt(stmt))
        return out

    def stmt(self, stmt):
        if isinstance(stmt, (gast.Assign, gast.AugAssign)):
            target = stmt.target if isinstance(stmt, gast.AugAssign) else stmt.targets[0]
            out = self.assign(stmt, target, stmt.value, getattr(stmt, "op", None))
            for name in S.bound_names(stmt):
                self.unset.assigned(name)  # the primal is bound from here on
            return out
        if isinstance(stmt, gast.Return):
            return self.ret(stmt)
        if isinstance(stmt, (gast.For, gast.While, gast.If)):
            stmt = copy.copy(stmt)

            def body():
                for name in S.bound_names(stmt) if isinstance(stmt, gast.For) else ():
                    self.unset.assigned(name)  # the loop's target (and what the body binds)
                stmt.body = self.block(stmt.body) or [gast.Pass()]

            def orelse():
                stmt.orelse = self.block(stmt.orelse)
            if isinstance(stmt, gast.If):
                self.unset.branch([body, orelse])
            else:
                self.unset.loop([body, orelse])
            return [stmt]
        if isinstance(stmt, gast.Expr) and stack_call(stmt.value):
            return self.stack_push(stmt)
        if isinstance(stmt, gast.Expr) and effect_call(self.norm, stmt.value) == "add.at":
            return self.add_at(stmt)
        return [stmt]

    def add_at(self, stmt):
        """`np.add.at(a, idx, v)` adds v into a once per occurrence of an index; it is linear
        in a and v, so the tangents add the same way: `np.add.at(a_dot, idx, v_dot)`, computed
        before the primal changes a."""
        base, index, value = stmt.value.args
        if not (isinstance(base, gast.Name) and base.id in self.active):
            return [stmt]
        target = gast.Subscript(value=S.clone(base), slice=S.clone(index), ctx=gast.Store())
        diff = ExpressionDiff(self.norm, self.namer, self.active_leaf, types=self.types)
        out, prepared, lanes = self._lane_tangents(stmt, value, diff)
        tangents = [S.add_at(self.target_tangent(k, target), t)
                    for k, t in enumerate(lanes) if t is not None]
        primal = copy.deepcopy(stmt)
        primal.value.args[2] = prepared[2](value)
        return out + self.styles[0].wrap(tangents) + [primal]

    def _lane_tangents(self, stmt, expr, diff, root_name=None):
        """(statements, prepared, lanes): the line comment, the rule intermediates and
        coefficients every lane shares, and the tangent of `expr` in each lane (None where it
        has none)."""
        prepared = diff.prepare(expr, root_name=root_name)
        out = [S.comment(f"line {self.norm.parsed.line_of(stmt)}: {S.unparse_header(stmt)}")]
        out += prepared[0]
        coefs = None
        if len(self.styles) > 1 or isinstance(self.styles[0], Stacked):
            coef_stmts, coefs = diff.coefficients(expr, prepared)
            out += coef_stmts
        lanes = [diff.tangent(expr, self.leaf_tangent(k), prepared, coefs)
                 for k in range(len(self.styles))]
        return out, prepared, lanes

    def assign(self, stmt, target, value, op):
        tname = S.target_name(target)
        if isinstance(value, gast.List) or (stack_call(value) and stack_call(value)[0]
                                             in self.active):
            return self.stack_assign(stmt, target, value)
        in_place = op is not None and tname in self.norm.params  # `p += x`, checked before
        if isinstance(self.types[tname], Array) and isinstance(target, gast.Name) \
                and not in_place \
                and (tname not in self.expression_arrays or is_allocation(self.norm, value)):
            return self.array_binding(stmt, target, value)
        if tname not in self.active:
            return [stmt]
        if isinstance(self.styles[0], Looped) and isinstance(self.types[tname], Array) \
                and isinstance(target, gast.Name) and op is None:
            return self.view_binding(stmt, tname, value)
        diff = ExpressionDiff(self.norm, self.namer, self.active_leaf, types=self.types)
        if tname in self.expression_arrays and isinstance(target, gast.Name) and op is None \
                and not diff.is_active(value):
            # the whole array rebound to a constant (an update of a part, `p[1:] += 1.0` or
            # `p[:] *= 2.0`, keeps or scales the tangent below)
            self.unset.write(tname)
            return [stmt] + [S.assign(S.name(self.tangent_name(k, tname)),
                                      style.zeros_like(tname))
                             for k, style in enumerate(self.styles)]
        if isinstance(target, gast.Subscript) and isinstance(op, (gast.Mult, gast.Div)) \
                and not diff.is_active(value):
            return self._scaled_part(stmt, target, op, value)
        aug_linear = op is not None and isinstance(op, (gast.Add, gast.Sub))
        if op is not None and not aug_linear:
            expr = gast.BinOp(left=S.as_load(target), op=op, right=value)
        else:
            expr = value
        rebinds_itself = tname in S.loaded_names(expr) or isinstance(target, gast.Subscript) \
            or aug_linear
        root_name = None if rebinds_itself or op is not None else tname
        out, prepared, lanes = self._lane_tangents(stmt, expr, diff, root_name)
        tangents = []
        for k, t in enumerate(lanes):
            ref = self.target_tangent(k, target)
            if aug_linear and t is not None:
                if isinstance(target, gast.Name):
                    self.unset.read(tname)  # `a_dot += ...` reads a_dot
                if isinstance(target, gast.Name) and _shares_vectors(self.styles[k]):
                    # `a_dot` may be another value's vector (`a = b` binds a_dot to b_dot, `a =
                    # x[i]` to a view of x_dot): adding in place would change that value too
                    tangents.append(S.assign(ref, gast.BinOp(left=S.name(ref.id),
                                                             op=S.clone(op), right=t)))
                    continue
                tangents.append(gast.AugAssign(target=ref, op=S.clone(op), value=t))
            elif not aug_linear:
                if t is not None and isinstance(target, gast.Name) \
                        and self._shares_memory(tname, value, t):
                    t = gast.Call(func=gast.Attribute(value=t, attr="copy", ctx=gast.Load()),
                                  args=[], keywords=[])
                tangents.append(S.assign(ref, t if t is not None else S.const(0.0)))
        tangents = self.styles[0].wrap(tangents)
        if isinstance(target, gast.Name) and (tangents or not aug_linear):
            self.unset.write(tname)
        if root_name is not None:
            return out + tangents
        # the primal, reusing the intermediates computed above
        primal = copy.copy(stmt)
        primal.value = prepared[2](value)
        return out + tangents + [primal]

    def array_binding(self, stmt, target, value):
        tname = target.id
        if tname in self.norm.workspace:  # Scalar or Looped: hoisting is numba only
            return self._in_workspace(stmt, tname)
        if tname not in self.active:
            return [stmt]
        if (grown := grown_tangents(self, stmt)) is not None:  # a list's buffer made longer
            return grown
        source = copy_source(self.norm, value)
        if not is_allocation(self.norm, value):
            raise self.norm.parsed.error(stmt, "array assignment", f"whole-array operations "
                                         f"on the active array `{tname}` are not supported",
                                         hint="write the elements in a loop, or use x.copy()")
        out = [stmt]
        for k, style in enumerate(self.styles):
            shadow = self.tangent_name(k, tname)
            if source is not None and source in self.active:
                init = style.copy_of(self.tangent_name(k, source), self.types[source].ndim)
            else:
                init = style.zeros_like(tname)
            out.append(S.assign(S.name(shadow), init))
        self.unset.write(tname)  # its tangent is set from here on, not read unset
        return out

    def view_binding(self, stmt, tname, value) -> list:
        """Looped: `v = A[i]` binds v's tangents to the same view of A's, once for all lanes
        (transform/forward/views.py)."""
        base = view_base(value)
        if base is None:
            raise self.norm.parsed.error(
                stmt, "array assignment", f"`{tname}` bound to a computed array is not "
                "supported in numba vector mode with lanes in arrays",
                hint="batch='unrolled'", kind=LaneLayoutError)
        line = S.comment(f"line {self.norm.parsed.line_of(stmt)}: {S.unparse_header(stmt)}")
        shadow = self.tangent_name(0, base) if base in self.active else None
        return [line, stmt, bind_view(self.styles[0], tname, self.tangent_name(0, tname),
                                      value, shadow)]

    def _in_workspace(self, stmt, tname) -> list:
        """numba: hoisted arrays `a = np.empty(len(range(stop)))`, the group made with `a`
        and their tangents (Looped: lanes last), carved from the workspace
        (`ArrayTapes.carve_group`)."""
        style = self.styles[0]

        def tangents(a, stop):
            if a not in self.active:
                return None
            if not isinstance(style, Looped):
                return self.tangent_name(0, a), S.clone(stop), None
            lanes = S.name(style.lanes)
            return (self.tangent_name(0, a), S.substitute("stop * lanes", {
                "stop": stop, "lanes": lanes}), gast.Tuple(elts=[S.clone(stop), lanes],
                                                           ctx=gast.Load()))

        out = self.work.carve_group(self.norm, tname, self.namer, tangents, stmt)
        self.uses_work = self.uses_work or bool(out)
        return out

    # -- the whole function -------------------------------------------------------------------
    def build(self) -> gast.FunctionDef:
        body = self.block(self.norm.body)
        style = self.styles[0]
        self.scratch = []
        if isinstance(style, Looped):
            # scalar tangents live in arrays of W lanes, passed in by the caller (a prepared
            # call allocates nothing); each is written before it is read, or zeroed at entry
            self.scratch = [self.tangent_name(0, v) for v in sorted(self.active)
                            if not self.seeded(v) and self.types[v] == FLOAT]
        params = []
        for p in self.norm.params:
            params.append(p)
            if self.arg_kinds[p] in ("duplicated", "active"):
                for k in range(len(self.styles)):
                    params.append(self.copied.get(p) or self.names.setdefault(
                        (k, p), self.namer.fresh(self.styles[k].name(p))))
        result = S.name(self.result) if self.result else S.const(None)
        if self.result_tangents:
            tangents = [S.name(t) for t in self.result_tangents]
        elif self.result:
            tangents = [S.const(0.0)] * len(self.styles)
        else:
            tangents = []
        body = self.unset.zeros(self.types, self.styles, self.target_tangent) + body
        if isinstance(style, Looped):
            body = self._lanes_entry(style, params) + body + self._lanes_exit(body)
        returned = [result, gast.Tuple(elts=tangents, ctx=gast.Load())]
        params += self.scratch
        if self.uses_work:
            body = self.work.init(WORK) + body
            returned += self.work.results([WORK])
            params += self.work.parameters([WORK])
        body.append(gast.Return(value=gast.Tuple(elts=returned, ctx=gast.Load())))
        args = gast.arguments(args=[S.name(p) for p in params], posonlyargs=[], vararg=None,
                              kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
        for a in args.args:
            a.ctx = gast.Param()
        doc = forward_docstring(self.norm, self.styles, self.arg_kinds, self.activity)
        return gast.FunctionDef(name=self.name, args=args,
                                body=[S.expr_stmt(S.const(doc))] + body, decorator_list=[],
                                returns=None, type_comment=None, type_params=[])

    def _lanes_entry(self, style, params) -> list:
        """Looped: the lane count, and the lanes-last copies of argument tangents."""
        tangents = [t for t in params if t not in self.norm.params]
        out = lane_count(style.lanes, style.width, tangents[0] if tangents else None)
        entries, copies = [], []
        for p, caller in self.copied.items():
            index = ", ".join("ijklmn"[:self.types[p].ndim])
            out.append(S.comment(f"lanes last: {self.names[0, p]}[{index}, lane] is "
                                 f"{caller}[lane, {index}] (contiguous lane loops), in "
                                 f"`{self.work.names[WORK]}`"))
            entries.append((self.names[0, p], S.parse_expr(f"{caller}.size"),
                            S.parse_expr(f"{caller}.shape[1:] + ({style.lanes},)"), False))
            copies.append(copy_lanes_last(self.names[0, p], caller, self._indices(p),
                                          style.lane, style.lanes))
        if entries:
            self.uses_work = True
            out += self.work.carve(WORK, entries) + copies
        return out

    def _indices(self, p) -> list:
        """Fresh loop indices, one per axis of the array argument `p`."""
        return [self.namer.fresh(i) for i in "ijklmn"[:self.types[p].ndim]]

    def _lanes_exit(self, body) -> list:
        """Looped: the lanes-last copies the body wrote, back into the caller's arrays."""
        written = set()
        for stmt in body:
            written |= S.stored_names(stmt)
        style = self.styles[0]
        out = [copy_lanes_last(self.names[0, p], caller, self._indices(p), style.lane,
                               style.lanes, back=True)
               for p, caller in self.copied.items() if self.names[0, p] in written]
        if out:
            out.insert(0, S.comment("tangents of the written arguments, lanes first again"))
        return out


def _shares_vectors(style) -> bool:
    """Stacked lanes: a scalar's W tangents are one NumPy vector, which an assignment binds
    without copying (numba's Looped lanes copy element by element)."""
    return isinstance(style, Stacked) and not isinstance(style, Looped)

