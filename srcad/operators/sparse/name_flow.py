"""Which names of f's forward code share objects, vary, or carry tangents: the name
analysis the decision slice (`decisions.py`) stands on.

Aliases: a name bound to a view of another (`row = A[i]`, `np.reshape(a, ...)`, a Python
function's result) shares its writers; reading one element of a numeric array of known
ndim copies a number and shares nothing (`slice_names.local_ndims`). Varying: x, an
Output's or a Cache's values, and every name assigned from a varying one or under a test
(or loop) that varies, to a fixpoint; a parameter's shape is no value (the preparation fixes
it). Tangents: the tangent parameters, every `*_dot` name and what is computed from them.
Reads and writes are cached per node of the tree.
"""

from __future__ import annotations

import ast
import builtins
import types

from srcad.operators.sparse.slice_names import NUMBERS, VIEWS, local_ndims, statements, target_names

CONTROL = (ast.Break, ast.Continue, ast.Return, ast.Raise)


class NameFlow:
    """The classes of names that may share an object, and which of them vary or carry
    tangents."""

    def __init__(self, function, namespace, varying_positions, tangent_positions, ndims):
        self.function, self.namespace = function, namespace
        params = [a.arg for a in function.args.args]
        self.modules = {name for name, value in namespace.items()
                        if isinstance(value, types.ModuleType)}
        stored = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)
                  and isinstance(n.ctx, ast.Store)}
        self.fixed = set(params) - stored  # parameters whose shapes the preparation fixes
        self.parent = {}
        self.ndims = local_ndims(function, {params[i]: n for i, n in ndims.items()})
        self._aliases(function.body)  # the classes are final from here: cache by node
        self.read_cache, self.write_cache = {}, {}
        self.original = {id(n) for n in ast.walk(function)}  # alive with self.function
        self.tangent = {self.find(n) for n in (params[i] for i in tangent_positions)}
        self.tangent |= {self.find(n.id) for n in ast.walk(function)
                         if isinstance(n, ast.Name) and n.id.endswith("_dot")}
        self.varying = {self.find(params[i]) for i in varying_positions}
        self._propagate()

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
                    continue  # a loop's int (`LoopTargets`): no object shared
                bases = self._bases(stmt.value)
                for target in stmt.targets:
                    for name in target_names(target):
                        for base in bases:
                            self._union(name, base)
            elif isinstance(stmt, ast.For):
                for name in target_names(stmt.target):
                    for base in self._bases(stmt.iter):
                        self._union(name, base)

    def reads(self, node) -> set:
        """The names whose values node reads (a parameter's shape is no value: the
        preparation fixes it)."""
        if id(node) not in self.original:  # a decision built here: its id may be reused
            return self._read_names(node)
        found = self.read_cache.get(id(node))
        if found is None:
            found = self.read_cache[id(node)] = self._read_names(node)
        return found

    def _read_names(self, node) -> set:
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

    def writes(self, stmt) -> set:
        found = self.write_cache.get(id(stmt))
        if found is None:
            found = self.write_cache[id(stmt)] = self._written_names(stmt)
        return found  # (statements of the tree only)

    def _written_names(self, stmt) -> set:
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
                inner = controlled or bool(self.reads(stmt.test) & self.varying)
                self._walk_varying(stmt.body, inner)
                self._walk_varying(stmt.orelse, inner)
            elif isinstance(stmt, ast.For):
                inner = controlled or bool(self.reads(stmt.iter) & self.varying)
                if inner:
                    self.varying |= self.writes(stmt)
                if self.reads(stmt.iter) & self.tangent:
                    self.tangent |= self.writes(stmt)
                self._walk_varying(stmt.body, inner)
                self._walk_varying(stmt.orelse, inner)
            elif not isinstance(stmt, CONTROL):
                reads = self.reads(stmt)
                if controlled or reads & self.varying:
                    self.varying |= self.writes(stmt)
                if reads & self.tangent:
                    self.tangent |= self.writes(stmt)

    def context(self, context) -> set:
        """The names the tests and iterables around a statement read (and loops write)."""
        names = set()
        for outer in context:
            names |= self.reads(outer.iter if isinstance(outer, ast.For) else outer.test)
            names |= self.writes(outer) if isinstance(outer, ast.For) else set()
        return names

    def varies(self, expr) -> bool:
        return bool(self.reads(expr) & self.varying)

    def opaque(self, func) -> bool:
        """A call srcad's code makes to a Python function (a helper of its runtime, or
        one it did not inline), not to NumPy's or math's (whose tangent forms are
        structural unless they select: `SELECTIONS`)."""
        if isinstance(func, ast.Attribute):  # a module's function, or an array's method
            return False
        if not isinstance(func, ast.Name):
            return True
        target = self.namespace.get(func.id, getattr(builtins, func.id, None))
        return target is None or isinstance(target, types.FunctionType)
