"""The decisions of f's forward code that can change a traced sparsity pattern, and a slice
of that code which computes them alone.

A traced pattern (`sparsity.jacobian_pattern`) is a function of the path f's forward code
takes and of the values it indexes with: dependency sets ignore every other value. The
*decisions* are where a value can steer them: the tests of `if`, `while` and conditional
expressions, the indices of subscripts, the iterables of `for` loops, and the calls that
select or make an int of a float (`np.where`, `max`, `int`, `np.argmax`, ...). A decision
*varies* when it reads, through assignments or under control of a varying test, an argument
that is not a Constant (x, an Output's or a Cache's given values); the others are fixed by the
Constants and the shapes.

`decision_slice(compiled, ...)` builds, from the generated forward source, the program slice
that computes the varying decisions in the order f meets them: the statements their values
depend on (every writer of a name they read, to a fixpoint; aliases share writers), the
loops and branches around them, every `break`/`continue`/`return` (kept so the slice takes
f's path), and no tangent code. Run at two points with the same Constants, equal logs mean
f takes the same path and the same indices and selections at both, so the traced pattern
is the same. Guarantee: `None` (the caller traces at every call) whenever the source has a
construct this analysis does not follow (comprehensions, lambdas, nested functions, `try`,
`with`, `global`, `:=`, a decision reading a tangent, a call with side effects inside a
decision, a Python function given tangents and varying values, which may branch inside).
"""

from __future__ import annotations

import ast
import copy

import numpy as np

from srcad.operators.sparse.name_flow import CONTROL, NameFlow
from srcad.operators.sparse.slice_names import (
    COMPARED,
    PURE_METHODS,
    SELECTIONS,
    LoopTargets,
    call,
    chosen,
    count,
    effective,
    float_type,
    index_value,
    logged,
    truth,
)

_UNFOLLOWED = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
               ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try, ast.With,
               ast.Global, ast.Nonlocal, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await,
               ast.Delete, ast.AsyncFor, ast.AsyncWith, ast.Import, ast.ImportFrom)


class Unfollowed(Exception):
    """The source has a construct the slice does not follow."""


class DecisionSlice:
    """The slice as a function of the tracing arguments (tangents None); `log(args)` runs it
    and returns the decisions it met, in order (None if it raised)."""

    def __init__(self, function, sites: int, source: str):
        self.function, self.sites, self.source = function, sites, source

    def log(self, args) -> list | None:
        notes = []
        try:
            with np.errstate(all="ignore"):  # f's own run reports its warnings
                self.function(notes.append, *args)
        except Exception:  # noqa: BLE001 - the full tracing decides (and reports) instead
            return None
        return notes


def decision_slice(compiled, varying_positions, tangent_positions, ndims) -> DecisionSlice | None:
    """The slice of `compiled.source` (f's forward code) computing its varying decisions.
    `varying_positions`: the parameters that are not Constants; `tangent_positions`: the
    tangent parameters (None when the slice runs); `ndims`: position -> ndim of the
    parameters that are numeric arrays."""
    try:
        tree = ast.parse(compiled.source)
        function = tree.body[0]
        if len(tree.body) != 1 or not isinstance(function, ast.FunctionDef):
            raise Unfollowed
        return _Slicer(function, compiled.function.__globals__, varying_positions,
                       tangent_positions, ndims).build()
    except (Unfollowed, RecursionError, SyntaxError):
        return None


class _Slicer:
    def __init__(self, function, namespace, varying_positions, tangent_positions, ndims):
        if any(isinstance(n, _UNFOLLOWED) for n in ast.walk(function) if n is not function):
            raise Unfollowed
        function = LoopTargets().rename(function)
        self.function, self.namespace = function, namespace
        self.flow = NameFlow(function, namespace, varying_positions, tangent_positions, ndims)
        self.decision_cache = {}
        self.site_count = 0  # decisions the slice logs (0: nothing varies)

    # -- the decisions of a statement --------------------------------------------------------------
    def _decisions(self, node) -> list:
        """The varying decisions inside an expression or simple statement (of the tree), as
        expressions whose values are logged."""
        if id(node) not in self.decision_cache:
            self.decision_cache[id(node)] = self._find_decisions(node)
        return self.decision_cache[id(node)]

    def _find_decisions(self, node) -> list:
        found = []
        for sub in ast.walk(node):
            if isinstance(sub, ast.IfExp) and self.flow.varies(sub.test):
                found.append(call("_srcad_truth", [sub.test]))
            elif isinstance(sub, ast.BoolOp) and self.flow.varies(sub):
                found.append(ast.Tuple([call("_srcad_truth", [v]) for v in sub.values],
                                       ast.Load()))
            elif isinstance(sub, ast.Subscript) and self.flow.varies(sub.slice):
                found.append(index_value(sub.slice))
            elif isinstance(sub, ast.Call) and self.flow.varies(sub):
                func = sub.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                arguments = list(sub.args) + [k.value for k in sub.keywords]
                given = [a for a in arguments if not self.flow.reads(a) & self.flow.tangent]
                if name not in SELECTIONS:
                    if len(given) < len(arguments) and self.flow.opaque(func):
                        raise Unfollowed  # a function of tangents that may branch inside
                    continue
                if name in COMPARED and sub.args:
                    found.append(call("_srcad_chosen", [sub] + list(sub.args)))
                elif name == "where" and sub.args:
                    found.append(call("_srcad_array", [sub.args[0]]))
                elif name == "sort" and len(sub.args) == 1 and not sub.keywords \
                        and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                        and func.value.id in self.flow.modules:  # the order, not the values
                    found.append(call("_srcad_array", [ast.Call(
                        func=ast.Attribute(func.value, "argsort", ast.Load()), args=sub.args,
                        keywords=[ast.keyword("kind", ast.Constant("stable"))])]))
                elif len(given) < len(arguments):  # tangents selected: the selection
                    found.append(ast.Tuple([call("_srcad_array", [a]) for a in given],
                                           ast.Load()))
                elif name != "astype" or not float_type(sub):
                    found.append(call("_srcad_array", [sub]))
        for expr in found:
            self._check_pure(expr)
        return found

    def _check_pure(self, expr):
        if self.flow.reads(expr) & self.flow.tangent:
            raise Unfollowed  # a decision reading a tangent: not a primal value
        for node in (n for n in ast.walk(expr) if isinstance(n, ast.Call)):
            func = node.func
            if isinstance(func, ast.Attribute) and not (
                    isinstance(func.value, ast.Name) and func.value.id in self.flow.modules) \
                    and func.attr not in PURE_METHODS:
                raise Unfollowed  # logging it would run a method with effects twice

    # -- building the slice ------------------------------------------------------------------------
    def build(self) -> DecisionSlice | None:
        needed, kept = set(), set()
        self._seed(self.function.body, [], needed)
        changed = True
        while changed:
            changed = self._grow(self.function.body, [], needed, kept)
        if needed & self.flow.tangent:
            raise Unfollowed
        self.kept = kept
        body = self._emit(self.function.body)
        function = copy.copy(self.function)
        function.args = copy.copy(function.args)
        function.args.args = [ast.arg("_srcad_note")] + list(function.args.args)
        function.name, function.body = "_srcad_decisions", body + [ast.Return(None)]
        function.decorator_list, function.returns = [], None
        module = ast.fix_missing_locations(ast.Module(body=[function], type_ignores=[]))
        namespace = dict(self.namespace)
        namespace.update(_srcad_truth=truth, _srcad_chosen=chosen, _srcad_array=logged,
                         _srcad_count=count)
        exec(compile(module, "<srcad decision slice>", "exec"), namespace)
        return DecisionSlice(namespace["_srcad_decisions"], self.site_count, ast.unparse(module))

    def _seed(self, body, context, needed):
        for stmt in body:
            if isinstance(stmt, (ast.If, ast.While)):
                if self.flow.varies(stmt.test):
                    needed |= self.flow.reads(stmt.test) | self.flow.context(context)
                self._seed(stmt.body, context + [stmt], needed)
                self._seed(stmt.orelse, context + [stmt], needed)
            elif isinstance(stmt, ast.For):
                if self.flow.varies(stmt.iter) or self._decisions(stmt.iter):
                    needed |= self.flow.reads(stmt.iter) | self.flow.context(context)
                self._seed(stmt.body, context + [stmt], needed)
                self._seed(stmt.orelse, context + [stmt], needed)
            elif isinstance(stmt, CONTROL) or self._decisions(stmt):
                needed |= self.flow.context(context)
                if not isinstance(stmt, CONTROL):
                    for expr in self._decisions(stmt):
                        needed |= self.flow.reads(expr)

    def _grow(self, body, context, needed, kept) -> bool:
        changed = False
        for stmt in body:
            if isinstance(stmt, (ast.If, ast.While, ast.For)):
                if isinstance(stmt, ast.For) and self.flow.writes(stmt) & needed \
                        and id(stmt) not in kept:
                    kept.add(id(stmt))
                    needed |= self.flow.reads(stmt.iter) | self.flow.context(context)
                    changed = True
                for inner in (stmt.body, stmt.orelse):
                    changed |= self._grow(inner, context + [stmt], needed, kept)
            elif not isinstance(stmt, CONTROL) and id(stmt) not in kept \
                    and self.flow.writes(stmt) & needed:
                kept.add(id(stmt))
                needed |= self.flow.reads(stmt) | self.flow.context(context)
                changed = True
        return changed

    def _note(self, expr) -> ast.stmt:
        """`_srcad_note(expr)`: a decision that raises makes the whole log unknown."""
        self.site_count += 1
        return ast.Expr(call("_srcad_note", [expr]))

    def _emit(self, body) -> list:
        out = []
        for stmt in body:
            if isinstance(stmt, ast.Return):
                out.append(ast.Return(None))
            elif isinstance(stmt, ast.Raise):
                out.append(ast.Raise(call("RuntimeError", []), None))
            elif isinstance(stmt, (ast.Break, ast.Continue, ast.Pass)):
                out.append(stmt)
            elif isinstance(stmt, (ast.If, ast.While)):
                inner, orelse = self._emit(stmt.body), self._emit(stmt.orelse)
                varies = self.flow.varies(stmt.test)
                if varies or effective(inner) or effective(orelse):
                    if varies:
                        self.site_count += 1
                    test = call("_srcad_truth", [stmt.test, ast.Name("_srcad_note",
                                                                      ast.Load())]) \
                        if varies else stmt.test
                    out.append(type(stmt)(test=test, body=inner or [ast.Pass()],
                                          orelse=orelse))
            elif isinstance(stmt, ast.For):
                inner, orelse = self._emit(stmt.body), self._emit(stmt.orelse)
                notes = [self._note(d) for d in self._decisions(stmt.iter)]
                varies = self.flow.varies(stmt.iter)
                if varies or notes or effective(inner) or effective(orelse) \
                        or id(stmt) in self.kept:
                    iterable = call("_srcad_count", [stmt.iter, ast.Name(
                        "_srcad_note", ast.Load())]) if varies else stmt.iter
                    self.site_count += varies
                    out.extend(notes)
                    out.append(ast.For(target=stmt.target, iter=iterable,
                                       body=inner or [ast.Pass()], orelse=orelse))
            elif isinstance(stmt, ast.Assert):
                if self.flow.varies(stmt.test):
                    out.append(self._note(call("_srcad_truth", [stmt.test])))
            else:
                if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                    continue  # a docstring
                if not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)):
                    raise Unfollowed
                out.extend(self._note(d) for d in self._decisions(stmt))
                if id(stmt) in self.kept:
                    out.append(stmt)
        return out
