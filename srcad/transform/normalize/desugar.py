"""Rewrite sugar into the small core the analyses understand (idempotent).

* `for v in xs`, `for i, v in enumerate(xs, start)` and `for a, b in zip(xs, range(...))`
  become index loops over `range(len(...))` (the shortest, for zip; `reversed(xs)` reads
  `xs[len(xs) - 1 - k]`);
* `for i in reversed(range(a, b, c))` becomes a loop over a counting-down `range` (every later
  stage sees a plain range; numba has no `reversed`);
* `x[i][j]` becomes `x[i, j]`;
* tuple assignment and swaps become one assignment per target (through temporaries only when a
  target is read on the right-hand side); `n, m = x.shape` reads `x.shape[k]`;
* `a = b = e` becomes two assignments; annotated assignments lose their annotation;
* `min(a, b, c)` becomes `min(min(a, b), c)` (same for max);
* `s, ld = np.linalg.slogdet(A)` becomes `s = np.linalg.slogdet(A).sign` and
  `ld = np.linalg.slogdet(A).logabsdet` (the rule table knows the second as a primitive);
  `w, v = np.linalg.eigh(A)` and `U, S, Vh = np.linalg.svd(A)` the same, by their fields.
"""

from __future__ import annotations

import builtins
import types

import gast
import numpy as np

from srcad.frontend import syntax as S
from srcad.frontend.parse import ParsedFunction
from srcad.frontend.transformer import Transformer
from srcad.rules.spectral import FIELDS as TUPLE_FIELDS
from srcad.runtime.named_results import FIELDS as NAMED_FIELDS
from srcad.runtime.named_results import NAMED
from srcad.transform.names import Namer
from srcad.transform.normalize.broadcast_calls import broadcast_arrays_call, droppable
from srcad.transform.normalize.factor_calls import RUNTIME, factor_call
from srcad.transform.normalize.factor_calls import SPELLINGS as FACTOR_SPELLINGS
from srcad.transform.normalize.split_parts import hoisted_parts, split_assignments
from srcad.transform.simplify import simplify


class Desugar(Transformer):
    def __init__(self, parsed: ParsedFunction, namer: Namer, unpack_calls: bool):
        self.parsed = parsed
        self.namer = namer
        self.unpack_calls = unpack_calls

    def visit(self, node):
        if isinstance(node, (gast.Assign, gast.AugAssign, gast.Return, gast.Expr)):
            hoisted = hoisted_parts(node, self._resolved, self.namer)  # np.split(x, 2)[1]
            if hoisted is not None:
                done = [super(Desugar, self).visit(stmt) for stmt in hoisted]
                return [s for res in done if res is not None
                        for s in (res if isinstance(res, list) else [res])]
        return super().visit(node)

    def _is_builtin(self, node, obj) -> bool:
        if not isinstance(node, gast.Name):
            return False
        try:
            return self.parsed.resolve(node.id) is obj
        except KeyError:
            return False

    def _resolved(self, node):
        if isinstance(node, gast.Name):
            try:
                return self.parsed.resolve(node.id)
            except KeyError:
                return None
        if isinstance(node, gast.Attribute):
            base = self._resolved(node.value)
            if isinstance(base, types.ModuleType):
                return getattr(base, node.attr, None)
        return None

    def _tuple_fields(self, value) -> tuple:
        """The fields of the named tuple a decomposition's call returns, () for another
        value."""
        if not isinstance(value, gast.Call):
            return ()
        function = self._resolved(value.func)
        if function is np.linalg.slogdet:
            return ("sign", "logabsdet") if len(value.args) == 1 and not value.keywords else ()
        if any(k.arg == "compute_uv" for k in value.keywords):  # maybe no tuple
            return ()
        if not callable(function):
            return ()
        return TUPLE_FIELDS.get(function, ()) or NAMED_FIELDS.get(function, ())

    def visit_Subscript(self, node):
        self.generic_visit(node)
        inner = node.value
        if (isinstance(inner, gast.Subscript) and isinstance(inner.value, gast.Name)
                and not isinstance(inner.slice, (gast.Slice, gast.Tuple))
                and not isinstance(node.slice, (gast.Slice, gast.Tuple))):
            index = gast.Tuple(elts=[inner.slice, node.slice], ctx=gast.Load())
            index.chained = True  # x[idx][j] is not x[idx, j] for an index array: types.py
            return gast.Subscript(value=inner.value, slice=index, ctx=node.ctx)
        if isinstance(inner, gast.Tuple) and isinstance(node.slice, gast.Constant) \
                and type(node.slice.value) is int and -len(inner.elts) <= node.slice.value \
                < len(inner.elts) and all(isinstance(e, gast.Constant) or droppable(e)
                                          for k, e in enumerate(inner.elts)
                                          if k != node.slice.value % len(inner.elts)):
            return inner.elts[node.slice.value]  # cho_factor(a)[0]: (factor, False)[0]
        fields = self._tuple_fields(inner)  # np.linalg.eigh(A)[1] is its .eigenvectors
        if fields and isinstance(node.slice, gast.Constant) and type(node.slice.value) is int \
                and -len(fields) <= node.slice.value < len(fields):
            return gast.copy_location(gast.Attribute(value=inner, attr=fields[node.slice.value],
                                                     ctx=gast.Load()), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        written = factor_call(node, self._resolved(node.func))  # cho_factor's tuple
        if written is not None:
            for name_ in S.loaded_names(written) & RUNTIME.keys():
                self.parsed.namespace.setdefault(name_, RUNTIME[name_])
                self.parsed.spellings.setdefault(name_, FACTOR_SPELLINGS[name_])
            return written
        written = broadcast_arrays_call(node, self._resolved(node.func))
        if written is not None:  # np.broadcast_arrays(a, b): its parts written out
            self.parsed.namespace.setdefault("np", np)
            return written
        named, spelled = NAMED.get(self._resolved(node.func), (None, ""))
        if named is not None:  # np.divmod, np.linalg.lstsq: their parts named, as eigh's
            self.parsed.namespace.setdefault(named.__name__, named)
            self.parsed.spellings.setdefault(named.__name__, spelled)
            node.func = gast.copy_location(S.name(named.__name__), node.func)
            return node
        for fn in (builtins.min, builtins.max):
            if self._is_builtin(node.func, fn) and len(node.args) > 2:
                nested = gast.Call(func=S.as_load(node.func), args=node.args[:2], keywords=[])
                for arg in node.args[2:]:
                    nested = gast.Call(func=S.as_load(node.func), args=[nested, arg], keywords=[])
                return nested
        return node

    def visit_AnnAssign(self, node):
        if node.value is None:
            return None
        return self.visit(S.assign(node.target, node.value))

    def visit_Assign(self, node):
        self.generic_visit(node)
        out = []
        value = node.value
        targets = node.targets
        if len(targets) > 1:  # a = b = e
            first = targets[-1]
            out.extend(self._assign_one(first, value, node))
            for t in reversed(targets[:-1]):
                out.extend(self._assign_one(t, S.as_load(first), node))
            return out
        return self._assign_one(targets[0], value, node)

    def _assign_one(self, target, value, origin):
        if not isinstance(target, (gast.Tuple, gast.List)):
            return [gast.copy_location(S.assign(target, value), origin)]
        elts = target.elts
        if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(elts):
            written = set().union(*(S.stored_names(S.assign(t, S.const(0))) for t in elts))
            read = set().union(*(S.loaded_names(v) for v in value.elts))
            if not (written & read):
                return [gast.copy_location(S.assign(t, v), origin)
                        for t, v in zip(elts, value.elts)]
            temps = [self.namer.fresh(f"{S.target_name(t) or 'value'}_new") for t in elts]
            out = [gast.copy_location(S.assign(S.name(tmp), v), origin)
                   for tmp, v in zip(temps, value.elts)]
            out += [gast.copy_location(S.assign(t, S.name(tmp)), origin)
                    for t, tmp in zip(elts, temps)]
            return out
        parts = split_assignments(elts, value, self._resolved(value.func), self.namer, origin) \
            if isinstance(value, gast.Call) else None
        if parts is not None:  # a, b = np.split(x, 2): the slices the parts are
            return [s for stmt in parts for s in (
                self._assign_one(stmt.targets[0], stmt.value, origin)
                if isinstance(stmt, gast.Assign) else [stmt])]
        fields = self._tuple_fields(value)
        if fields and len(elts) == len(fields):
            written = set().union(*(S.stored_names(S.assign(t, S.const(0))) for t in elts))
            if not written & S.loaded_names(value):
                parts = [gast.Attribute(value=S.clone(value), attr=attr, ctx=gast.Load())
                         for attr in fields]
                return [s for t, part in zip(elts, parts)
                        for s in self._assign_one(t, part, origin)]
        if isinstance(value, gast.Attribute) and value.attr == "shape":
            source = value
            out = []
        elif isinstance(value, gast.Name) and value.id not in set().union(
                *(S.stored_names(S.assign(t, S.const(0))) for t in elts)):
            source = value  # `a, b = t` reads t[0], t[1] (no copy: t is not rebound here)
            out = []
        elif isinstance(value, gast.Call) and not self.unpack_calls:
            # a call to a helper becomes a tuple of its results once inlined
            return [gast.copy_location(S.assign(target, value), origin)]
        else:
            tmp = self.namer.fresh("unpacked")
            out = [gast.copy_location(S.assign(S.name(tmp), value), origin)]
            source = S.name(tmp)
        for k, t in enumerate(elts):
            item = gast.Subscript(value=S.as_load(source), slice=S.const(k), ctx=gast.Load())
            out.extend(self._assign_one(t, item, origin))
        return out

    def visit_For(self, node):
        self.generic_visit(node)
        it = node.iter
        if isinstance(it, gast.Call) and self._is_builtin(it.func, builtins.reversed) \
                and len(it.args) == 1 and _is_range(it.args[0], self):
            if isinstance(it.args[0], gast.Call):  # reversed(range(...)): a counting-down range
                node.iter, before = self._counting_down(it.args[0], node)
                return before + [node] if before else node
            return node  # reversed(range(...)[:n]) (srcad's generated reverse code) stays
        if isinstance(it, gast.Call) and self._is_builtin(it.func, builtins.range):
            if not isinstance(node.target, gast.Name):
                raise self.parsed.error(node, "for", "a range loop needs a single variable")
            return node
        if isinstance(it, gast.Call) and self._is_builtin(it.func, builtins.zip) \
                and it.args and not it.keywords and isinstance(node.target, gast.Tuple) \
                and len(node.target.elts) == len(it.args):
            return self._index_loop(node, list(zip(node.target.elts, it.args)), None)
        if (isinstance(it, gast.Call) and self._is_builtin(it.func, builtins.enumerate)
                and 1 <= len(it.args) + len(it.keywords) <= 2 and len(it.args) >= 1
                and all(k.arg == "start" for k in it.keywords)
                and isinstance(node.target, gast.Tuple) and len(node.target.elts) == 2):
            index, item = node.target.elts
            start = it.args[1] if len(it.args) > 1 else \
                it.keywords[0].value if it.keywords else None
            inner = it.args[0]
            if isinstance(inner, gast.Call) and self._is_builtin(inner.func, builtins.zip) \
                    and not inner.keywords and isinstance(item, gast.Tuple) \
                    and len(item.elts) == len(inner.args):  # enumerate(zip(x, y))
                return self._index_loop(node, list(zip(item.elts, inner.args)), (index, start))
            return self._index_loop(node, [(item, inner)], (index, start))
        if isinstance(it, gast.Call) and not self.unpack_calls:
            return node  # `for v in helper(x)`: a tuple literal once the helper is inlined
        return self._index_loop(node, [(node.target, it)], None)

    def _index_loop(self, node, pairs, counted):
        """`for k in range(<shortest length>)` assigning each target its sequence's k-th
        element (an array variable's `x[k]`, a range's `start + k * step`), and with
        `counted` = (target, start) the count `k + start` as enumerate gives it."""
        out: list = []
        reads, lengths = [], []
        base = S.target_name(pairs[0][0]) or "item"
        index = self.namer.fresh(f"{base}_index")
        for target, seq in pairs:
            if isinstance(seq, gast.Call) and self._is_builtin(seq.func, builtins.range) \
                    and not seq.keywords and 1 <= len(seq.args) <= 3:
                bounds = [self._once(a, "range_bound", out, node.body) for a in seq.args]
                start = bounds[0] if len(bounds) > 1 else S.const(0)
                step = bounds[2] if len(bounds) > 2 else S.const(1)
                span = gast.Call(func=S.as_load(seq.func), args=bounds, keywords=[])
                lengths.append(S.call("len", span))
                reads.append((target, S.substitute("start + k * step", {
                    "start": start, "k": S.name(index), "step": step})))
            elif isinstance(seq, gast.Name) or _constant_keys(seq):
                # `params["layers"]` of a container argument: unrolled by its length later
                lengths.append(S.call("len", S.as_load(seq)))
                reads.append((target, gast.Subscript(value=S.as_load(seq), slice=S.name(index),
                                                     ctx=gast.Load())))
            elif isinstance(seq, gast.Call) and self._is_builtin(seq.func, builtins.reversed) \
                    and len(seq.args) == 1 and isinstance(seq.args[0], gast.Name) \
                    and not seq.keywords:  # reversed(x): x[len(x) - 1 - k]
                lengths.append(S.call("len", S.as_load(seq.args[0])))
                reads.append((target, S.substitute("x[len(x) - 1 - k]", {
                    "x": S.as_load(seq.args[0]), "k": S.name(index)})))
            else:
                raise self.parsed.error(node, "for", "loops must run over range(...), an array "
                                        "variable, or zip/enumerate/reversed of those",
                                        hint="assign the sequence to a variable first, or loop "
                                        "over indices: for i in range(len(x))")
        length = lengths[0]
        for other in lengths[1:]:
            length = S.call("min", length, other)
        if counted is not None:
            target, start = counted
            if not isinstance(target, gast.Name):
                raise self.parsed.error(node, "for", "enumerate's count needs a single variable")
            count = S.name(index) if start is None else gast.BinOp(
                left=S.name(index), op=gast.Add(), right=self._once(start, "start", out, node.body))
            reads.insert(0, (target, count))
        body = [s for target, read in reads for s in self._assign_one(target, read, node)]
        loop = gast.For(target=S.name(index, store=True), iter=S.call("range", length),
                        body=body + node.body, orelse=[], type_comment=None)
        for stmt in out:
            gast.copy_location(stmt, node)
        return out + [gast.copy_location(loop, node)]

    def _once(self, expr, base, out, body):
        """`expr` evaluated once before the loop (a constant, or a name the loop does not
        rebind, as it is)."""
        if isinstance(expr, gast.Constant) or (isinstance(expr, gast.Name) and expr.id not in
                                               set().union(*map(S.bound_names, body), set())):
            return expr
        tmp = self.namer.fresh(base)
        out.append(S.assign(S.name(tmp), expr))
        return S.name(tmp)

    def _counting_down(self, span, loop):
        """(`range(...)` visiting the indices of `span` = range(...) last first, statements
        binding the bounds it reads more than once): reversed(range(n)) is
        range(n - 1, -1, -1); in general reversed(range(a, b, c)) is
        range(a + (len(range(a, b, c)) - 1) * c, a - c, -c)."""
        if not isinstance(loop.target, gast.Name):
            raise self.parsed.error(loop, "for", "a range loop needs a single variable")
        args = list(span.args)
        if len(args) == 1:
            down = [S.substitute("b - 1", {"b": args[0]}), S.const(-1), S.const(-1)]
            return _range(down), []
        if len(args) == 2:
            down = [S.substitute("b - 1", {"b": args[1]}), S.substitute("a - 1", {"a": args[0]}),
                    S.const(-1)]
            return _range(down), []
        before = []
        for k in (0, 2):  # start and step are read three times: evaluate them once
            args[k] = simplify(args[k], integers=True)  # -2 is a constant
            if not isinstance(args[k], (gast.Name, gast.Constant)):
                bound = self.namer.fresh(f"{loop.target.id}_{('start', '', 'step')[k]}")
                before.append(gast.copy_location(S.assign(S.name(bound), args[k]), loop))
                args[k] = S.name(bound)
        a, b, c = args
        mapping = {"a": a, "b": b, "c": c}
        down = [S.substitute("a + (len(range(a, b, c)) - 1) * c", mapping),
                S.substitute("a - c", mapping), S.substitute("-c", mapping)]
        return _range(down), before


def _constant_keys(seq) -> bool:
    """Is `seq` a name read at constant keys, `params["layers"]` or `params["layers"][0]`?"""
    if not isinstance(seq, gast.Subscript):
        return False
    while isinstance(seq, gast.Subscript):
        keys = seq.slice.elts if isinstance(seq.slice, gast.Tuple) else [seq.slice]
        if not all(isinstance(k, gast.Constant) and type(k.value) in (str, int) for k in keys):
            return False
        seq = seq.value
    return isinstance(seq, gast.Name)


def _range(args):
    return gast.Call(func=S.name("range"), args=[simplify(a, integers=True) for a in args],
                     keywords=[])


def _is_range(node, pass_) -> bool:
    if isinstance(node, gast.Subscript):
        node = node.value
    return isinstance(node, gast.Call) and pass_._is_builtin(node.func, builtins.range)


def desugar(parsed: ParsedFunction, body: list, namer: Namer, unpack_calls=True) -> list:
    """Desugar statements; with unpack_calls False, `a, b = f(...)` waits for inlining."""
    pass_ = Desugar(parsed, namer, unpack_calls)
    out = []
    for stmt in body:
        res = pass_.visit(stmt)
        if res is None:
            continue
        out.extend(res if isinstance(res, list) else [res])
    return out
