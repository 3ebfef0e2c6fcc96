"""The sparsity pattern of a Jacobian read from the source, where its index structure allows.

`static_pattern(f, slots)` proves which elements of x each element of the output depends on
without running f's arithmetic: a dependency analysis of f's source gives, for every write
`y[row] = expr`, the reads `x[k]` that flow into `expr` (through active locals, arithmetic,
`math` and helper calls, whose results depend on all their arguments), and an *index slice*
of f, the loops, branches on index values and integer assignments only, evaluates every
`row` and `k` on the preparation's constants (`obs[i, 0]` in bundle adjustment). So the
index maps may be affine (`x[3 * i + 1]`), read from constant arrays, or anything else the
integer code computes; the dependencies between values are fixed by the source. A value
carried from one iteration of a loop to the next (`s += x[k]`) is the one thing followed at
run time: the slice gathers the reads of its iterations in a list.

Guarantee: the pattern never misses a nonzero wherever f runs the loops and index branches
it runs at the preparation's constants. A branch on an active value (`if x[i] > 0.0:`)
counts both sides, so unlike the traced pattern (`srcad/operators/sparse/sparsity.py`) it holds
whatever branch f takes; a write `y[r] = e` is counted with the earlier writes to y[r] (a superset
where it overwrites them).

It declines (returns None, the caller traces instead) whatever it cannot prove: a function
that returns its result instead of writing an Output, local arrays, an active value first
assigned in a loop and read after it (or before its assignment in an iteration), `while`,
`break`, `continue`, comprehensions, slices, a call given the output or x's whole value, a
read of the output, an index computed from an active value, or an index out of range.
"""

from __future__ import annotations

import ast
import inspect
import textwrap

import numpy as np

from srcad.operators.sparse.sparsity_recorder import Recorder, Unprovable

_SHAPE_ATTRIBUTES = {"shape", "size", "ndim", "dtype"}
_ALL = "*"  # in a dependency set: every element of x


def static_pattern(f, slots) -> tuple[np.ndarray, np.ndarray, int] | None:
    """(indptr, indices, number of rows) of the CSR pattern of d output / d x, or None when
    the source's index structure is beyond this analysis (see the module doc)."""
    try:
        function = _function_def(f)
        names = [a.arg for a in function.args.args]
        if (len(names) != len(slots) or function.args.vararg or function.args.kwarg
                or function.args.kwonlyargs or function.args.posonlyargs):
            raise Unprovable
        roles = dict(zip(names, (s.role for s in slots)))
        x_name = next(n for n, r in roles.items() if r == "x")
        outputs = [n for n, r in roles.items() if r == "output"]
        if len(outputs) != 1 or any(r == "cache" for r in roles.values()):
            raise Unprovable
        values = dict(zip(names, (s.value for s in slots)))
        return _Slicer(function, x_name, outputs[0], values, f).pattern()
    except Exception:  # noqa: BLE001 - anything unproven (or failing in the slice) is traced
        return None


def _function_def(f) -> ast.FunctionDef:
    tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        raise Unprovable
    return tree.body[0]


class _Slicer:
    """Builds the index slice of f: its loops, index assignments and index branches, with
    each read of x bound to a temporary (`_srcad_read_K = <index>`) and each write of the
    output replaced by `_srcad_record(<row>, (<temporaries it depends on>), <all of x>)`."""

    def __init__(self, function, x_name, out_name, values, f):
        self.function, self.x, self.out, self.values, self.f = function, x_name, out_name, values, f
        self._check_output_uses()
        self.active = self._active_names()
        # arrays a call could write: the arguments that are arrays, and local allocations
        self.arrays = {name for name, value in values.items() if isinstance(value, np.ndarray)}
        self.arrays |= {t.id for node in ast.walk(function) if isinstance(node, ast.Assign)
                        and isinstance(node.value, ast.Call) for t in node.targets
                        if isinstance(t, ast.Name)
                        and isinstance(node.value.func, ast.Attribute)
                        and isinstance(node.value.func.value, ast.Name)
                        and node.value.func.value.id in ("np", "numpy")}
        self.reads = self.carried = 0

    # -- which names hold values that depend on x ----------------------------------------------
    def _active_names(self) -> set:
        assignments = []
        for node in ast.walk(self.function):
            if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                                 ast.GeneratorExp, ast.FunctionDef, ast.AsyncFunctionDef,
                                 ast.ClassDef, ast.While, ast.Break, ast.Continue, ast.Try,
                                 ast.With, ast.Global, ast.Nonlocal, ast.NamedExpr,
                                 ast.Delete, ast.Starred)) and node is not self.function:
                raise Unprovable
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [n.id for t in targets for n in ast.walk(t)
                         if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
                assignments.append((names, node.value))
        active, changed = set(), True
        while changed:
            changed = False
            for names, value in assignments:
                if value is not None and self._mentions_active(value, active):
                    for name in names:
                        if name not in active:
                            active.add(name)
                            changed = True
        if self.x in active or self.out in active:
            raise Unprovable
        return active

    def _mentions_active(self, expr, active) -> bool:
        return bool(self._value_names(expr) & (active | {self.x}))

    def _value_names(self, expr) -> set:
        """The names whose values expr reads (`len(x)` and `x.shape` read no value of x)."""
        if self._shape_of_argument(expr):
            return set()
        if isinstance(expr, ast.Name):
            return {expr.id}
        names = set()
        for child in ast.iter_child_nodes(expr):
            names |= self._value_names(child)
        return names

    def _shape_of_argument(self, expr) -> bool:
        arrays = {self.x, self.out}
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
                and expr.func.id == "len" and len(expr.args) == 1 and not expr.keywords:
            return isinstance(expr.args[0], ast.Name) and expr.args[0].id in arrays
        return (isinstance(expr, ast.Attribute) and expr.attr in _SHAPE_ATTRIBUTES
                and isinstance(expr.value, ast.Name) and expr.value.id in arrays)

    def _check_output_uses(self) -> None:
        """The output is only written by element (or asked its shape): a read of its values
        would carry dependencies this analysis does not follow."""
        allowed = set()
        for node in ast.walk(self.function):
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
                allowed.add(id(node.value))
            elif self._shape_of_argument(node):
                allowed.update(id(n) for n in ast.walk(node))
        for node in ast.walk(self.function):
            if isinstance(node, ast.Name) and node.id == self.out and id(node) not in allowed:
                raise Unprovable

    def _is_active(self, expr) -> bool:
        return self._mentions_active(expr, self.active)

    # -- dependencies of an expression ----------------------------------------------------------
    def _deps(self, expr, env, reads) -> frozenset:
        """The read temporaries (or _ALL) expr depends on; appends `(temp, index)` to reads."""
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) \
                and expr.value.id == self.x:
            index = expr.slice
            if any(isinstance(n, ast.Slice) for n in ast.walk(index)) or self._is_active(index):
                raise Unprovable
            temp = f"_srcad_read_{self.reads}"
            self.reads += 1
            reads.append((temp, index))
            return frozenset((temp,))
        if isinstance(expr, ast.Name):
            if expr.id == self.x:
                return frozenset((_ALL,))
            if expr.id == self.out:
                raise Unprovable
            if expr.id in self.active:
                if expr.id not in env:  # carried across a loop boundary, or unset
                    raise Unprovable
                return env[expr.id]
            return frozenset()
        if self._shape_of_argument(expr):
            return frozenset()
        if isinstance(expr, ast.Call):
            if self._is_active(expr.func) or any(
                    isinstance(a, ast.Name) and a.id in self.arrays for a in expr.args):
                raise Unprovable  # a call given a whole array might write it
            children = list(expr.args) + [k.value for k in expr.keywords]
        else:
            children = list(ast.iter_child_nodes(expr))
        deps = frozenset()
        for child in children:
            if isinstance(child, ast.expr):
                deps |= self._deps(child, env, reads)
        return deps

    # -- statements -----------------------------------------------------------------------------
    def _block(self, body, env, flatten=False) -> list:
        """The slice of a block; env maps each active name to its dependencies here."""
        out = []
        for stmt in body:
            out.extend(self._statement(stmt, env, flatten))
        return out

    def _statement(self, stmt, env, flatten) -> list:
        if isinstance(stmt, ast.Expr):
            if isinstance(stmt.value, ast.Constant):
                return []  # a docstring
            raise Unprovable
        if isinstance(stmt, ast.Pass):
            return []
        if isinstance(stmt, ast.Return):
            if stmt is self.function.body[-1] and (
                    stmt.value is None or (isinstance(stmt.value, ast.Constant)
                                           and stmt.value.value is None)):
                return []
            raise Unprovable
        if isinstance(stmt, (ast.Assign, ast.AugAssign)):
            return self._assignment(stmt, env, flatten)
        if isinstance(stmt, ast.If):
            return self._if(stmt, env, flatten)
        if isinstance(stmt, ast.For):
            return self._for(stmt, env, flatten)
        raise Unprovable

    def _assignment(self, stmt, env, flatten) -> list:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if len(targets) != 1:
            raise Unprovable
        target = targets[0]
        if isinstance(target, ast.Subscript):
            if not (isinstance(target.value, ast.Name) and target.value.id == self.out):
                raise Unprovable  # x, a constant or a local array written
            row = target.slice
            if any(isinstance(n, ast.Slice) for n in ast.walk(row)) or self._is_active(row):
                raise Unprovable
            reads = []
            deps = self._deps(stmt.value, env, reads)
            return _bind(reads) + [_record_call(row, deps)]
        names = [target] if isinstance(target, ast.Name) else (
            list(target.elts) if isinstance(target, ast.Tuple) else None)
        if names is None or not all(isinstance(n, ast.Name) for n in names):
            raise Unprovable
        if not any(n.id in self.active for n in names):
            if flatten:
                raise Unprovable  # an index assigned under a branch on an active value
            if self._is_active(stmt.value):
                raise Unprovable
            return [stmt]
        reads = []
        if (isinstance(stmt, ast.Assign) and isinstance(target, ast.Tuple)
                and isinstance(stmt.value, ast.Tuple) and len(stmt.value.elts) == len(names)):
            parts = [self._deps(v, env, reads) for v in stmt.value.elts]
        else:
            parts = [self._deps(stmt.value, env, reads)] * len(names)
        for name, deps in zip(names, parts):
            if isinstance(stmt, ast.AugAssign):
                if name.id not in env:
                    raise Unprovable
                deps = deps | env[name.id]
            env[name.id] = deps
        return _bind(reads)

    def _if(self, stmt, env, flatten) -> list:
        on_active = self._is_active(stmt.test)
        reads = []
        if on_active:
            self._deps(stmt.test, env, reads)  # checks the names it reads are available
        branches = []
        for body in (stmt.body, stmt.orelse):
            branch_env = dict(env)
            branches.append((self._block(body, branch_env, flatten or on_active), branch_env))
        for name in set(branches[0][1]) | set(branches[1][1]):
            merged = env.get(name, frozenset())
            for _, branch_env in branches:
                merged = merged | branch_env.get(name, frozenset())
            env[name] = merged
        if on_active:  # both sides run in the slice: their writes are both recorded
            return branches[0][0] + branches[1][0]
        return [ast.If(test=stmt.test, body=branches[0][0] or [ast.Pass()],
                       orelse=branches[1][0])]

    def _for(self, stmt, env, flatten) -> list:
        if stmt.orelse or self._is_active(stmt.iter) or _names([stmt.target]) & self.active:
            raise Unprovable
        if flatten:
            raise Unprovable  # the loop's index would be assigned under an active branch
        assigned = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)
                    and isinstance(n.ctx, ast.Store)}
        inner = {k: v for k, v in env.items() if k not in assigned}
        # an active value carried from one iteration to the next (`s += x[k]`): a list made
        # before the loop gathers its dependencies at the end of every iteration
        before, carriers = [], {}
        for name in sorted(assigned & self.active & set(env)):
            carriers[name] = f"_srcad_carried_{self.carried}"
            self.carried += 1
            before.append(_assign(carriers[name], _dependency_list(env[name])))
            inner[name] = frozenset((carriers[name],))
        first = self.reads
        body = self._block(stmt.body, inner)
        # a read of an iteration is never seen by a later one: reset at each iteration's start
        resets = [_assign(f"_srcad_read_{k}", ast.Constant(None))
                  for k in range(first, self.reads)]
        gathers = [ast.Expr(ast.Call(
            func=ast.Attribute(ast.Name(carrier, ast.Load()), "append", ast.Load()),
            args=[_dependency_list(inner[name] - {carrier})], keywords=[]))
            for name, carrier in carriers.items()]
        for name in assigned & self.active:
            env.pop(name, None)  # assigned in the loop: its last value is not proven after it
        env.update({name: frozenset((carrier,)) for name, carrier in carriers.items()})
        return before + [ast.For(target=stmt.target, iter=stmt.iter,
                                 body=resets + body + gathers, orelse=[])]

    # -- running the slice ----------------------------------------------------------------------
    def pattern(self):
        env = {}
        body = self._block(self.function.body, env)
        resets = [_assign(f"_srcad_read_{k}", ast.Constant(None)) for k in range(self.reads)]
        function = ast.FunctionDef(name="_srcad_index_slice", args=self.function.args,
                                   body=resets + body + [ast.Pass()], decorator_list=[],
                                   returns=None)
        module = ast.fix_missing_locations(ast.Module(body=[function], type_ignores=[]))
        namespace = dict(self.f.__globals__)
        closure = inspect.getclosurevars(self.f)
        namespace.update(closure.nonlocals)
        x, out = np.asarray(self.values[self.x]), np.asarray(self.values[self.out])
        recorder = Recorder(x.shape, out.shape)
        namespace["_srcad_record"] = recorder.record
        exec(compile(module, "<srcad index slice>", "exec"), namespace)
        namespace["_srcad_index_slice"](*self.values.values())
        return recorder.csr()


def _names(nodes) -> set:
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)}


def _assign(name, value) -> ast.Assign:
    return ast.Assign(targets=[ast.Name(name, ast.Store())], value=value)


def _bind(reads) -> list:
    return [_assign(temp, index) for temp, index in reads]


def _dependency_list(deps) -> ast.List:
    """The runtime form of a dependency set: its reads' indices, its carried lists, and "*"
    for all of x."""
    return ast.List([ast.Constant(_ALL) if d == _ALL else ast.Name(d, ast.Load())
                     for d in sorted(deps)], ast.Load())


def _record_call(row, deps) -> ast.Expr:
    return ast.Expr(ast.Call(func=ast.Name("_srcad_record", ast.Load()),
                             args=[row, _dependency_list(deps)], keywords=[]))
