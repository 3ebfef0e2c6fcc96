"""What the type inference refuses, with the user's line and a fix: calls without a derivative rule
on values that carry one, values srcad cannot see into reaching arithmetic, a name bound to an
array and to a number, writes through an index array (`TypeRefusals`, a part of `Types`).
"""

from __future__ import annotations

import dataclasses

import gast

from srcad.analysis.index_types import guessed_call, index_kind
from srcad.analysis.primitives import effect_operands
from srcad.analysis.value_types import BOOL, FLOAT, INT, OTHER, Array, is_float_like, stack_call
from srcad.errors import ArgumentError, UnsupportedCallError, UnsupportedSyntaxError
from srcad.frontend import syntax as S
from srcad.frontend.parse import resolve_callee

# where a refusal of a library call points: the page generated from the rule table
PAGE_HINT = ("the functions srcad differentiates are listed on the page Supported functions, "
             "docs/functions.md; write this one out in plain Python, or give it a rule with "
             "srcad.custom_jvp")


def no_rule_error(norm, call, why="its argument carries a derivative here (a call on "
                  "constants needs no rule)", hint=PAGE_HINT):
    shown = getattr(resolve_callee(norm.parsed, call.func, norm.extra_names), "__name__",
                    None) or _describe(call.func)
    return norm.parsed.error(call, "call", f"srcad has no derivative rule for `{shown}`, and "
                             f"{why}", hint=hint, kind=UnsupportedCallError)


def refuse_zero_dim_arrays(norm, specs) -> tuple:
    """A 0-d float array that carries a derivative is refused: NumPy arithmetic on it returns
    a scalar (`a * 1.0` is a float64, `b += v` then rebinds instead of writing), so the array
    semantics srcad's derivative code relies on (writes in place, shadows written on exit)
    do not hold for it. Returns the specs the later checks analyse: a refused array as the
    float its fix passes."""
    analysed = list(specs)
    for k, (param, spec) in enumerate(zip(norm.params, specs)):
        if spec.kind != "const" and isinstance(spec.type, Array) and spec.type.ndim == 0:
            analysed[k] = dataclasses.replace(spec, type=FLOAT)
            norm.refusals.add(norm.parsed.error(
                norm.parsed.tree, "argument", f"argument `{param}` is a 0-d array: NumPy "
                "arithmetic on a 0-d array returns a scalar, so srcad does not differentiate "
                "it as an array", hint=f"pass float({param}), or the one-element array "
                f"{param}.reshape(1)",
                kind=ArgumentError))
    return tuple(analysed)


def refuse_active_opaque_calls(norm, types, varied) -> None:
    """A call with no derivative rule whose argument carries a derivative is refused (its
    derivative would silently be zero); on constants it runs as it is."""
    for call in types.opaque_calls.values():
        if id(call) in types.refused_calls:
            continue  # refused by the type checks (its result used as something else)
        for arg in list(call.args) + [k.value for k in call.keywords]:
            names = {n.id for n in S.walk(arg) if isinstance(n, gast.Name)}
            if names & varied and _carries(types, arg):
                norm.refusals.add(_constant_code_error(norm, call, sorted(names & varied)[0])
                                  or no_rule_error(norm, call))
                break
    for call in types.effect_calls.values():
        for operand in effect_operands(call):
            carried = sorted(n.id for n in S.walk(operand) if isinstance(n, gast.Name)
                             and n.id in varied and is_float_like(types.of(n)))
            if carried:
                norm.refusals.add(norm.parsed.error(
                    call, "call", f"`{S.unparse_expr(call)}` is called for its effect and "
                    f"receives `{carried[0]}`, which carries a derivative: srcad cannot see what "
                    "the call writes", hint="write the update as an assignment (`z[:] = x`, "
                    "`z[i] += v`), or make the call on constants only",
                    kind=UnsupportedCallError))
                break


def _constant_code_error(norm, call, name_):
    """The refusal of a try statement or library-object code that runs as it is
    (srcad/transform/normalize/constant_blocks.py) receiving `name_`, which carries a
    derivative; None for other calls."""
    construct = getattr(resolve_callee(norm.parsed, call.func, norm.extra_names),
                        "srcad_constant_block", None)
    if construct is None:
        return None
    what = "the guarded code" if construct == "try/except" else "the library object's code"
    return norm.parsed.error(
        call, construct, f"{what} reads `{name_}`, which carries a derivative: srcad runs it "
        "as it is only on constants",
        kind=UnsupportedSyntaxError if construct == "try/except" else UnsupportedCallError,
        hint="move the error handling outside the differentiated function"
        if construct == "try/except" else "make the call on constants (draw standard normals "
        "and scale them: mu + sigma * rng.normal(size=n))")


def _carries(types, arg) -> bool:
    """Is `arg` a float or float array, or a literal holding one (`math.fsum((x, y))`: the
    tuple is no float, its elements are)?"""
    if isinstance(arg, (gast.Tuple, gast.List, gast.Set)):
        return any(_carries(types, e) for e in arg.elts)
    if isinstance(arg, gast.Starred):
        return _carries(types, arg.value)
    return is_float_like(types.of(arg))


def _describe(func) -> str:
    if isinstance(func, gast.Name):
        return func.id
    if isinstance(func, gast.Attribute):
        base = func.value
        if isinstance(base, (gast.Name, gast.Attribute)):
            return _describe(base) + "." + func.attr
        return f"({S.unparse_expr(base)}).{func.attr}"  # not the tree's node names (BinOp)
    return S.unparse_expr(func)


def _preorder(body):
    """The nodes of `body` in the order they are written."""
    for stmt in body:
        yield stmt
        yield from _preorder(list(gast.iter_child_nodes(stmt)))


class TypeRefusals:
    """The refusals of `Types`, run once its inference has settled (`check=True`): they read
    `self.norm`, `self.env`, `self.mixed`, `self.opaque_calls` and `self.of`."""

    def _refuse_unknown(self):
        """Refuse values srcad cannot see into (attributes of objects, tuples, Fractions...)
        wherever they reach arithmetic: treating them as constants could silently drop a
        derivative. Each name is refused once, and nothing that reads a refused name or
        is assigned to one is refused again (a consequence, not a construct of its own)."""
        # first: the cause of a name's mixed kinds below (not refused again there)
        written = {self._refuse_array_into_element(node, node.targets[0])
                   for stmt in self.norm.body for node in S.walk(stmt)
                   if isinstance(node, gast.Assign)} - {None}
        refused = self._refuse_unknown_names(written)
        skipped = {id(n) for stmt in self.norm.body for a in S.walk(stmt)
                   if isinstance(a, gast.Assign) and S.target_name(a.targets[0]) in refused
                   for n in S.walk(a.value)}
        for stmt in self.norm.body:
            for node in S.walk(stmt):
                if id(node) in skipped:
                    continue
                if isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Call)) \
                        or (isinstance(node, gast.Return) and node.value is not None
                            and not isinstance(node.value, gast.Tuple)):
                    culprit = self._refuse_opaque(node if not isinstance(node, gast.Return)
                                                  else node.value, refused)
                    if culprit is not None:  # its parts are not refused again
                        skipped |= {id(n) for n in S.walk(culprit)}
                targets = node.targets if isinstance(node, gast.Assign) else \
                    [node.target] if isinstance(node, gast.AugAssign) else []
                for target in targets:
                    if isinstance(target, gast.Subscript) and \
                            isinstance(self.of(target.value), Array) and index_kind(self, target):
                        self.norm.refusals.add(self.norm.parsed.error(
                            node, "array index", f"a write through an index array "
                            f"(`{S.unparse_expr(target)} = ...`)", hint="index arrays and "
                            "masks are supported in reads; write the elements in a loop"))

    def _refuse_unknown_names(self, written) -> set:
        """Refuse names bound to an array and to a number, or to values srcad does not
        handle, each once (not those of `written`, refused already); the names refused."""
        refused = set(written)
        knock_ons = self._knock_ons()
        for stmt in self.norm.body:
            for node in S.walk(stmt):
                if not (isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name)):
                    continue
                name = node.targets[0].id
                if name in refused:
                    continue
                if name in self.mixed:
                    refused.add(name)
                    self.norm.refusals.add(self.norm.parsed.error(
                        node, "assignment", f"`{name}` is bound to an array in one place "
                        "and to a number in another", hint="use two names, one for the "
                        "array and one for the number"))
                elif name in knock_ons:  # follows from the value it reads: that is refused
                    refused.add(name)
                    root = knock_ons[name]
                    if not isinstance(root, gast.Name):  # names reading each other: the cause
                        root = self._outside_read(name) or root  # is read in one of them
                    if isinstance(root, gast.Name) and root.id not in refused:
                        refused.add(root.id)
                        self.norm.refusals.add(self._opaque_error(root))
                elif self.env.get(name) in (OTHER, None):
                    refused.add(name)
                    node = self._culprit(name)  # a later `s += v` may be the cause
                    what = "a tuple" if isinstance(node.value, gast.Tuple) else \
                        "a value of a kind srcad does not handle"
                    self.norm.refusals.add(self.norm.parsed.error(
                        node, "assignment", f"`{name}` holds {what}",
                        hint="srcad handles floats, ints, bools and NumPy arrays; unpack "
                        "tuples directly: a, b = f(x)"))
        return refused

    def _refuse_array_into_element(self, node, target):
        """`y[i] = v` with v an array and y[i] one element (NumPy raises "setting an array
        element with a sequence"): also what appending arrays to a list grown by append
        becomes (such a list is an array of floats). The array's name when refused."""
        if not (isinstance(node, gast.Assign) and isinstance(target, gast.Subscript)):
            return None
        array, value = self.of(target.value), self.of(node.value)
        if not (isinstance(array, Array) and isinstance(value, Array) and value.ndim >= 1):
            return None
        index = target.slice.elts if isinstance(target.slice, gast.Tuple) else [target.slice]
        if len(index) == array.ndim and all(self.of(i) in (INT, BOOL) for i in index):
            name = S.target_name(target) or "the array"
            self.norm.refusals.add(self.norm.parsed.error(
                node, "element write", f"an array is written into one element of `{name}` (a "
                "list grown by append holds floats; an array element holds a number)",
                hint="append floats, or make a 2-D array with np.zeros((n, m)) and write its "
                "rows: a[i] = v"))
            return S.target_name(target)
        return None

    def _culprit(self, name):
        """The assignment to `name` to blame: the first whose own value is opaque (not the
        first assignment, `s = 0.0`, when a later one makes `s` opaque)."""
        assigns = [n for stmt in self.norm.body for n in S.walk(stmt)
                   if isinstance(n, (gast.Assign, gast.AugAssign))
                   and isinstance(n.targets[0] if isinstance(n, gast.Assign) else n.target,
                                  gast.Name)
                   and S.target_name(n.targets[0] if isinstance(n, gast.Assign)
                                     else n.target) == name]
        return next((n for n in assigns if self.of(n.value) in (OTHER, None)), assigns[0])

    def _refuse_opaque(self, expr, refused=frozenset()):
        operands = [expr]
        if isinstance(expr, gast.BinOp):
            operands = [expr.left, expr.right]
        elif isinstance(expr, gast.UnaryOp):
            operands = [expr.operand]
        elif isinstance(expr, gast.Call):
            if stack_call(expr) or (isinstance(expr.func, gast.Attribute)
                                    and expr.func.attr == "copy"):
                return
            operands = [e for a in expr.args  # np.stack([a, b]): the listed values
                        for e in (a.elts if isinstance(a, gast.List) else [a])]
        for operand in operands:
            if isinstance(operand, (gast.Constant, gast.Compare, gast.BoolOp, gast.Tuple)) \
                    or any(isinstance(n, gast.Name) and n.id in refused
                           for n in S.walk(operand)):
                continue
            if self.of(operand) == OTHER:
                if not self._refuse_guessed_type(operand):
                    root = self._opaque_name(operand)  # the cause, refused once
                    if isinstance(refused, set) and root is not None:
                        refused.add(root.id)
                    self.norm.refusals.add(self._opaque_error(root or operand))
                return operand  # one refusal per expression
        return None

    def _opaque_name(self, operand):
        """The name read in `operand` whose value srcad cannot see into, if one is (`shape`
        in `np.zeros(shape) + x`): the cause to name."""
        called = {id(n) for c in S.walk(operand) if isinstance(c, gast.Call)
                  for n in S.walk(c.func)} | {  # `MODEL.x`, `pairs[0]`: named whole
            id(c.value) for c in S.walk(operand) if isinstance(c, (gast.Attribute,
                                                                     gast.Subscript))}
        return next((n for n in S.walk(operand) if isinstance(n, gast.Name)
                     and isinstance(n.ctx, gast.Load) and id(n) not in called
                     and self.of(n) == OTHER), None)

    def _opaque_error(self, operand):
        return self.norm.parsed.error(
            operand, "opaque value", f"srcad cannot see into `{S.unparse_expr(operand)}` (an "
            "attribute of an object, a tuple or list element, or a number of an unsupported "
            "type), so it could not know whether a derivative flows through it",
            hint="pass the value as a float or NumPy array argument")

    def _knock_ons(self) -> dict:
        """The locals of no kind srcad handles only because their value reads such a value
        from outside (an argument, a global: `c = coeffs[i]`, then `s += c * x`), each with
        the name read there that is the cause (refused instead: one refusal, at the cause)."""
        assigned = {S.target_name(t) for stmt in self.norm.body for n in S.walk(stmt)
                    for t in (n.targets if isinstance(n, gast.Assign) else [n.target]
                              if isinstance(n, (gast.AugAssign, gast.For)) else [])}
        unknown = {S.target_name(n.targets[0] if isinstance(n, gast.Assign) else n.target)
                   for stmt in self.norm.body for n in S.walk(stmt)
                   if isinstance(n, (gast.Assign, gast.AugAssign))} - {None}
        unknown = {name for name in unknown if self.env.get(name) in (OTHER, None)}
        order = {id(n): k for k, n in enumerate(_preorder(self.norm.body))}
        culprits = {name: self._culprit(name) for name in unknown}
        knock_ons, grown = {}, True
        while grown:
            grown = False
            for name in sorted(unknown - knock_ons.keys()):
                value = culprits[name].value
                called = {id(c.func) for c in S.walk(value) if isinstance(c, gast.Call)}
                root = next((n for n in S.walk(value)  # a function called is no cause
                             if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
                             and id(n) not in called and (
                                 n.id in knock_ons or (n.id not in assigned and self.of(n) == OTHER)
                                 or (n.id in unknown and order[id(culprits[n.id])]
                                     < order[id(culprits[name])]))), None)
                if root is not None:  # the cause: a value from outside, or an earlier local
                    knock_ons[name] = knock_ons.get(root.id, root if root.id not in unknown
                                                    else root.id)
                    grown = True
        return knock_ons

    def _outside_read(self, name):
        """A name of unknown kind, not bound in the function, read by an assignment to `name`
        (`s = s * obj.c` after `s = helper(s)`: the copies in between make `s` and the
        helper's result each other's knock-on, and `obj` is the cause)."""
        assigned = {S.target_name(t) for stmt in self.norm.body for n in S.walk(stmt)
                    for t in (n.targets if isinstance(n, gast.Assign) else [n.target]
                              if isinstance(n, (gast.AugAssign, gast.For)) else [])}
        return next((n for stmt in self.norm.body for a in S.walk(stmt)
                     if isinstance(a, (gast.Assign, gast.AugAssign))
                     and S.target_name(a.targets[0] if isinstance(a, gast.Assign)
                                       else a.target) == name
                     for n in S.walk(a.value) if isinstance(n, gast.Name)
                     and isinstance(n.ctx, gast.Load) and n.id not in assigned
                     and self.of(n) == OTHER), None)

    def _refuse_guessed_type(self, operand) -> bool:
        """`lower = np.tri(n)`, then `lower[1, 0]`: the result of a call without a rule was
        taken to be a float, and the code uses it as something else: refused at the call
        (True when so)."""
        call = guessed_call(self, {n.id for n in S.walk(operand) if isinstance(n, gast.Name)})
        if call is None:
            return False
        target = next(a.targets[0].id for stmt in self.norm.body for a in S.walk(stmt)
                      if isinstance(a, gast.Assign) and a.value is call)
        self.refused_calls.add(id(call))
        self.norm.refusals.add(no_rule_error(
            self.norm, call, "srcad runs such a call as it is on constants and takes its "
            "result to be a float (or an array of its array arguments' rank), and "
            f"`{target}` is used as something else", hint="compute it outside the "
            "differentiated function and pass it as an argument"))
        return True
