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
import builtins
import copy
import types

import numpy as np

from srcad.operators.sparse.slice_names import (
    COMPARED,
    NUMBERS,
    PURE_METHODS,
    SELECTIONS,
    VIEWS,
    LoopTargets,
    call,
    chosen,
    count,
    effective,
    float_type,
    index_value,
    local_ndims,
    logged,
    statements,
    target_names,
    truth,
)

_UNFOLLOWED = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
               ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try, ast.With,
               ast.Global, ast.Nonlocal, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await,
               ast.Delete, ast.AsyncFor, ast.AsyncWith, ast.Import, ast.ImportFrom)
_CONTROL = (ast.Break, ast.Continue, ast.Return, ast.Raise)


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
        params = [a.arg for a in function.args.args]
        self.modules = {name for name, value in namespace.items()
                        if isinstance(value, types.ModuleType)}
        stored = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)
                  and isinstance(n.ctx, ast.Store)}
        self.fixed = set(params) - stored  # parameters whose shapes the preparation fixes
        self.parent = {}
        self.ndims = local_ndims(function, {params[i]: n for i, n in ndims.items()})
        self._aliases(function.body)
        self.tangent = {self.find(n) for n in (params[i] for i in tangent_positions)}
        self.tangent |= {self.find(n.id) for n in ast.walk(function)
                         if isinstance(n, ast.Name) and n.id.endswith("_dot")}
        self.varying = {self.find(params[i]) for i in varying_positions}
        self._propagate()
        self.site_count = 0  # decisions the slice logs (0: nothing varies)

    # -- names ---------------------------------------------------------------------------------
    def find(self, name):
        while self.parent.get(name, name) != name:
            name = self.parent[name]
        return name

    def _union(self, a, b):
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[a] = b

    def _bases(self, expr) -> set:
        """Names whose object expr may be (a view of)."""
        if isinstance(expr, ast.Name):
            return {expr.id}
        if isinstance(expr, ast.Subscript) and self._element(expr):
            return set()  # a number, or a copy (an index array): no view
        if isinstance(expr, (ast.Subscript, ast.Attribute, ast.Starred)):
            return self._bases(expr.value)
        if isinstance(expr, ast.IfExp):
            return self._bases(expr.body) | self._bases(expr.orelse)
        if isinstance(expr, (ast.Tuple, ast.List)):
            return set().union(*(self._bases(e) for e in expr.elts)) if expr.elts else set()
        if isinstance(expr, ast.Call):
            func = expr.func
            if isinstance(func, ast.Attribute) and func.attr not in VIEWS:
                return set()  # a NumPy or math function, or an array method, making anew
            found = set().union(*(self._bases(a) for a in expr.args)) if expr.args else set()
            if isinstance(func, ast.Attribute):
                found |= {b for b in self._bases(func.value) if b not in self.modules}
            elif isinstance(func, ast.Name) and func.id in NUMBERS:
                return set()
            return found  # (a Python function, `min`, `list` may return or hold an argument)
        return set()

    def _element(self, expr) -> bool:
        """`a[i, j]` with one index per dimension of a numeric array of known ndim."""
        if not isinstance(expr.value, ast.Name) or expr.value.id not in self.ndims:
            return False
        index = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        return len(index) == self.ndims[expr.value.id] and not any(
            isinstance(i, (ast.Slice, ast.Starred)) or (isinstance(i, ast.Constant) and (
                i.value is None or i.value is Ellipsis)) for i in index)

    def _aliases(self, body):
        for stmt in statements(body):
            if isinstance(stmt, ast.Assign):
                if isinstance(stmt.value, ast.Name) and "__loop" in stmt.value.id:
                    continue  # a loop's int (`_LoopTargets`): no object shared
                bases = self._bases(stmt.value)
                for target in stmt.targets:
                    for name in target_names(target):
                        for base in bases:
                            self._union(name, base)
            elif isinstance(stmt, ast.For):
                for name in target_names(stmt.target):
                    for base in self._bases(stmt.iter):
                        self._union(name, base)

    def _reads(self, node) -> set:
        """The names whose values node reads (a parameter's shape is no value: the
        preparation fixes it)."""
        names, stack = set(), [node]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Name):
                if node.id not in self.modules:
                    names.add(self.find(node.id))
            elif not self._shape_of_parameter(node):
                stack.extend(ast.iter_child_nodes(node))
        return names

    def _shape_of_parameter(self, node) -> bool:
        """`len(p)`, `p.shape`, `p.size`, `p.ndim` of a parameter f never rebinds."""
        if isinstance(node, ast.Attribute):
            return node.attr in ("shape", "size", "ndim") and isinstance(node.value, ast.Name) \
                and node.value.id in self.fixed
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "len" and len(node.args) == 1 and not node.keywords \
            and isinstance(node.args[0], ast.Name) and node.args[0].id in self.fixed

    def _writes(self, stmt) -> set:
        names = set()
        targets = (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                   if isinstance(stmt, (ast.AugAssign, ast.AnnAssign, ast.For)) else [])
        for target in targets:
            names |= target_names(target)
        nodes = [stmt.iter, stmt.target] if isinstance(stmt, ast.For) else [stmt]
        for node in (n for root in nodes for n in ast.walk(root)):
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Attribute):  # a method may change its object
                    names |= self._bases(node.func.value) - self.modules
                if isinstance(stmt, ast.Expr):  # a call for its effect writes its arguments
                    for arg in list(node.args) + [k.value for k in node.keywords]:
                        names |= self._bases(arg) - self.modules
                names |= {b for k in node.keywords if k.arg == "out" for b in self._bases(k.value)}
        return {self.find(n) for n in names}

    # -- which names vary ------------------------------------------------------------------------
    def _propagate(self):
        changed = True
        while changed:
            before = (len(self.varying), len(self.tangent))
            self._walk_varying(self.function.body, False)
            changed = (len(self.varying), len(self.tangent)) != before

    def _walk_varying(self, body, controlled):
        for stmt in body:
            if isinstance(stmt, ast.If) or isinstance(stmt, ast.While):
                inner = controlled or bool(self._reads(stmt.test) & self.varying)
                self._walk_varying(stmt.body, inner)
                self._walk_varying(stmt.orelse, inner)
            elif isinstance(stmt, ast.For):
                inner = controlled or bool(self._reads(stmt.iter) & self.varying)
                if inner:
                    self.varying |= self._writes(stmt)
                if self._reads(stmt.iter) & self.tangent:
                    self.tangent |= self._writes(stmt)
                self._walk_varying(stmt.body, inner)
                self._walk_varying(stmt.orelse, inner)
            elif not isinstance(stmt, _CONTROL):
                reads = self._reads(stmt)
                if controlled or reads & self.varying:
                    self.varying |= self._writes(stmt)
                if reads & self.tangent:
                    self.tangent |= self._writes(stmt)

    def _context(self, context) -> set:
        """The names the tests and iterables around a statement read (and loops write)."""
        names = set()
        for outer in context:
            names |= self._reads(outer.iter if isinstance(outer, ast.For) else outer.test)
            names |= self._writes(outer) if isinstance(outer, ast.For) else set()
        return names

    def _varies(self, expr) -> bool:
        return bool(self._reads(expr) & self.varying)

    # -- the decisions of a statement --------------------------------------------------------------
    def _decisions(self, node) -> list:
        """The varying decisions inside an expression or simple statement, as expressions
        whose values are logged."""
        found = []
        for sub in ast.walk(node):
            if isinstance(sub, ast.IfExp) and self._varies(sub.test):
                found.append(call("_srcad_truth", [sub.test]))
            elif isinstance(sub, ast.BoolOp) and self._varies(sub):
                found.append(ast.Tuple([call("_srcad_truth", [v]) for v in sub.values],
                                       ast.Load()))
            elif isinstance(sub, ast.Subscript) and self._varies(sub.slice):
                found.append(index_value(sub.slice))
            elif isinstance(sub, ast.Call) and self._varies(sub):
                func = sub.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                arguments = list(sub.args) + [k.value for k in sub.keywords]
                given = [a for a in arguments if not self._reads(a) & self.tangent]
                if name not in SELECTIONS:
                    if len(given) < len(arguments) and self._opaque(func):
                        raise Unfollowed  # a function of tangents that may branch inside
                    continue
                if name in COMPARED and sub.args:
                    found.append(call("_srcad_chosen", [sub] + list(sub.args)))
                elif name == "where" and sub.args:
                    found.append(call("_srcad_array", [sub.args[0]]))
                elif name == "sort" and len(sub.args) == 1 and not sub.keywords \
                        and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                        and func.value.id in self.modules:  # the order, not the values
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

    def _opaque(self, func) -> bool:
        """A call srcad's code makes to a Python function (a helper of its runtime, or
        one it did not inline), not to NumPy's or math's (whose tangent forms are
        structural unless they select: `SELECTIONS`)."""
        if isinstance(func, ast.Attribute):  # a module's function, or an array's method
            return False
        if not isinstance(func, ast.Name):
            return True
        target = self.namespace.get(func.id, getattr(builtins, func.id, None))
        return target is None or isinstance(target, types.FunctionType)

    def _check_pure(self, expr):
        if self._reads(expr) & self.tangent:
            raise Unfollowed  # a decision reading a tangent: not a primal value
        for node in (n for n in ast.walk(expr) if isinstance(n, ast.Call)):
            func = node.func
            if isinstance(func, ast.Attribute) and not (
                    isinstance(func.value, ast.Name) and func.value.id in self.modules) \
                    and func.attr not in PURE_METHODS:
                raise Unfollowed  # logging it would run a method with effects twice

    # -- building the slice ------------------------------------------------------------------------
    def build(self) -> DecisionSlice | None:
        needed, kept = set(), set()
        self._seed(self.function.body, [], needed)
        changed = True
        while changed:
            changed = self._grow(self.function.body, [], needed, kept)
        if needed & self.tangent:
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
                if self._varies(stmt.test):
                    needed |= self._reads(stmt.test) | self._context(context)
                self._seed(stmt.body, context + [stmt], needed)
                self._seed(stmt.orelse, context + [stmt], needed)
            elif isinstance(stmt, ast.For):
                if self._varies(stmt.iter) or self._decisions(stmt.iter):
                    needed |= self._reads(stmt.iter) | self._context(context)
                self._seed(stmt.body, context + [stmt], needed)
                self._seed(stmt.orelse, context + [stmt], needed)
            elif isinstance(stmt, _CONTROL) or self._decisions(stmt):
                needed |= self._context(context)
                if not isinstance(stmt, _CONTROL):
                    for expr in self._decisions(stmt):
                        needed |= self._reads(expr)

    def _grow(self, body, context, needed, kept) -> bool:
        changed = False
        for stmt in body:
            if isinstance(stmt, (ast.If, ast.While, ast.For)):
                if isinstance(stmt, ast.For) and self._writes(stmt) & needed \
                        and id(stmt) not in kept:
                    kept.add(id(stmt))
                    needed |= self._reads(stmt.iter) | self._context(context)
                    changed = True
                for inner in (stmt.body, stmt.orelse):
                    changed |= self._grow(inner, context + [stmt], needed, kept)
            elif not isinstance(stmt, _CONTROL) and id(stmt) not in kept \
                    and self._writes(stmt) & needed:
                kept.add(id(stmt))
                needed |= self._reads(stmt) | self._context(context)
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
                varies = self._varies(stmt.test)
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
                varies = self._varies(stmt.iter)
                if varies or notes or effective(inner) or effective(orelse) \
                        or id(stmt) in self.kept:
                    iterable = call("_srcad_count", [stmt.iter, ast.Name(
                        "_srcad_note", ast.Load())]) if varies else stmt.iter
                    self.site_count += varies
                    out.extend(notes)
                    out.append(ast.For(target=stmt.target, iter=iterable,
                                       body=inner or [ast.Pass()], orelse=orelse))
            elif isinstance(stmt, ast.Assert):
                if self._varies(stmt.test):
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
