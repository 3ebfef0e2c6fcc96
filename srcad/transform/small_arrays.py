"""Numba backend: arrays of a few elements whose length is a constant become scalars.

NumPy arithmetic on a 2-element array allocates its result (about 25 ns in numba, more than
the arithmetic); an Euler step `x = x + dt * v` on a position and a velocity allocates two
arrays, and its tangent two more. Where every value a variable takes is such an array of one
constant length n (at most `MAX_LENGTH`), the variable becomes n numbers, one per element,
and the arithmetic is done element by element on them:

    x = np.array([0.0, 8.0])            x_0, x_1 = 0.0, 8.0
    x = x + dt * v                 ->   x_0, x_1 = x_0 + dt * v_0, x_1 + dt * v_1
    if x[1] > 0.0:                      if x_1 > 0.0:

What makes a variable's values such arrays (`_length`): a literal `np.array([c, ...])` of
float numbers written out, `np.zeros(n)` and `np.ones(n)` of an int literal, `np.zeros_like`,
`np.ones_like`, `.copy()` and `array_copy` of one, `+`, `-` and `*` of such arrays of one
length and numbers, unary minus, `broadcast_view(e, shape)` of one (the same array), and the
result of a nested gradient's kernel (srcad/operators/nested_numba.py), shaped like the
kernel's first operand, the differentiated argument (also through `pair[k]` of a kernel that
returns the gradient with its tangent). Division is left alone: NumPy's `a / 0` is inf where
numba's float division raises.

What its uses may be (any other use keeps the array): an element `x[k]` with a constant k, an
operand of such arithmetic assigned to another such variable, `x.shape` (the constant
`(n,)`), and an argument of a nested kernel, which gets a buffer allocated once at the
function's start and filled before the call (the kernels read their operands and return new
arrays or views of their workspace, never an operand). A variable written in place
(`x[0] = ...`, `x += ...`), a parameter, or one bound any other way keeps its array: the
variables rewritten are never aliased, so copying an element reads what the array held.

The tuple assignments evaluate every element's expression before binding any (`x = x * x[0]`
reads the old x[0] in both). Numbers are names typed float, int or bool (`numbers`), names
only ever bound to number expressions, constants, elements and arithmetic and `math` calls
of numbers.

>>> from srcad.build.codegen import to_source
>>> from srcad.transform.names import Namer
>>> tree = gast.parse('''
... def f(v):
...     dt = 0.1
...     x = np.array([0.0, 8.0])
...     y = x + dt * x
...     return y[1]
... ''')
>>> sorted(scalar_small_arrays(tree, Namer({"f", "v", "dt", "x", "y"}), set()))
['x', 'y']
>>> print(to_source(tree).strip().splitlines()[-1])
    return y_1
"""

from __future__ import annotations

import re

import gast

from srcad.frontend import syntax as S

MAX_LENGTH = 4
_OPERATORS = (gast.Add, gast.Sub, gast.Mult)
# nested kernels (srcad/operators/nested_numba.py and its merged forms): one array shaped like
# the first operand, or a pair (the gradient and its tangent) of such arrays
_ARRAY_KERNEL = re.compile(r"srcad_nested_(gradient_\d+|tangents?_\d+(_\d+)*)(_scratch)?$")
_PAIR_KERNEL = re.compile(r"srcad_nested_gradient_tangents_\d+(_\d+)*(_scratch)?$")
_WORKSPACE = ("srcad_space", "srcad_int_space")
_PENDING = "pending"


def scalar_small_arrays(tree, namer, numbers: set) -> set:
    """Rewrite every function of `tree` in place; the names made scalars."""
    done = set()
    for fn in [n for n in gast.walk(tree) if isinstance(n, gast.FunctionDef)]:
        done |= _SmallArrays(fn, namer, numbers).rewrite()
    return done


def _kernel(node):
    """"array" or "pair" for a call of a nested kernel, else None."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
        if _PAIR_KERNEL.match(node.func.id):
            return "pair"
        if _ARRAY_KERNEL.match(node.func.id):
            return "array"
    return None


def _first_operand(call):
    operands = [a for a in call.args if not (isinstance(a, gast.Name) and a.id in _WORKSPACE)]
    return operands[0] if operands and not call.keywords else None


def _int_literal(node):
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    return None


class _SmallArrays:
    def __init__(self, fn, namer, numbers):
        self.fn, self.namer = fn, namer
        self.values: dict = {}  # name -> the expressions assigned to it
        self.other: set = {a.id for a in fn.args.args}  # bound or written some other way
        plain = set()  # ids of the targets of `name = value`
        for node in gast.walk(fn):
            if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], gast.Name):
                self.values.setdefault(node.targets[0].id, []).append(node.value)
                plain.add(id(node.targets[0]))
        for node in gast.walk(fn):
            if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load) \
                    and id(node) not in plain:
                self.other.add(node.id)
            written = node.target if isinstance(node, gast.AugAssign) else \
                node.value if isinstance(node, gast.Subscript) \
                and not isinstance(node.ctx, gast.Load) else None
            while isinstance(written, (gast.Subscript, gast.Attribute)):
                written = written.value
            if isinstance(written, gast.Name):
                self.other.add(written.id)
        self.typed = set(numbers)
        self.pairs: dict = {}
        # bound to a kernel's pair of arrays: neither a small array nor a number itself
        self.other |= {n for n, values in self.values.items()
                       if any(_kernel(v) == "pair" for v in values)}

    # what the values are

    def _numbers(self, lengths):
        """The names only ever bound to numbers (elements of the arrays in `lengths`)."""
        numbers = self.typed | {n for n in self.values if n not in self.other}
        while True:
            kept = {n for n in numbers if n in self.typed
                    or all(self._number(v, numbers, lengths) for v in self.values.get(n, ()))}
            if kept == numbers:
                return numbers
            numbers = kept

    def _number(self, node, numbers, lengths=None):
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, float, bool)
        if isinstance(node, gast.Name):
            return node.id in numbers
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return self._number(node.operand, numbers, lengths)
        if isinstance(node, gast.BinOp) and isinstance(node.op, (*_OPERATORS, gast.Div,
                                                                 gast.Pow)):
            return self._number(node.left, numbers, lengths) \
                and self._number(node.right, numbers, lengths)
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and isinstance(node.func.value, gast.Name) and node.func.value.id == "math" \
                and not node.keywords:
            return all(self._number(a, numbers, lengths) for a in node.args)
        if isinstance(node, gast.Subscript) and lengths is not None:
            return self._element(node, lengths) is not None
        return False

    def _element(self, node, lengths):
        """(name, k) for `v[k]` of a small array v with a constant k in range."""
        if isinstance(node.value, gast.Name) and node.value.id in lengths:
            k, n = _int_literal(node.slice), lengths[node.value.id]
            if n == _PENDING:
                return (node.value.id, k) if k is not None else None
            if k is not None and -n <= k < n:
                return node.value.id, k % n
        return None

    def _length(self, node, lengths):
        """The constant length of the array `node` is, _PENDING (it depends on names not
        settled yet) or None (not such an array, or a number)."""
        if isinstance(node, gast.Name):
            return lengths.get(node.id)
        kind = _kernel(node)
        if kind == "array":
            first = _first_operand(node)
            return None if first is None else self._length(first, lengths)
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                and node.value.id in self.pairs and _int_literal(node.slice) in (0, 1):
            return self.pairs[node.value.id]
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            return self._length(node.operand, lengths)
        if isinstance(node, gast.BinOp) and isinstance(node.op, _OPERATORS):
            sides = [self._length(s, lengths) for s in (node.left, node.right)]
            numbers = [s is None and self._number(e, self.numbers, lengths)
                       for s, e in zip(sides, (node.left, node.right))]
            arrays = [s for s in sides if s is not None]
            if not arrays or any(s is None and not k for s, k in zip(sides, numbers)):
                return None
            concrete = {s for s in arrays if s != _PENDING}
            if len(concrete) > 1:
                return None
            return concrete.pop() if concrete else _PENDING
        if not isinstance(node, gast.Call) or node.keywords:
            return None
        func = node.func
        if isinstance(func, gast.Name) and func.id == "broadcast_view" and len(node.args) == 2:
            return self._length(node.args[0], lengths)
        if isinstance(func, gast.Name) and func.id == "array_copy" and len(node.args) == 1:
            return self._length(node.args[0], lengths)
        if isinstance(func, gast.Name) and func.id == "array_stack" and len(node.args) == 1:
            return _literal_length(node.args[0])  # numba_compat.py's np.array([-1.0, 2.0])
        if isinstance(func, gast.Attribute) and func.attr == "copy" and not node.args:
            return self._length(func.value, lengths)
        if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
                and func.value.id == "np" and len(node.args) == 1):
            return None
        arg = node.args[0]
        if func.attr in ("zeros", "ones"):
            n = _int_literal(arg)
            return n if n is not None and 1 <= n <= MAX_LENGTH else None
        if func.attr in ("zeros_like", "ones_like", "copy"):
            return self._length(arg, lengths)
        if func.attr == "array":
            return _literal_length(arg)
        return None

    def _settle(self, forbidden):
        """{name: length} of the variables that can be scalars, none of `forbidden`."""
        candidates = {n for n in self.values if n not in self.other and n not in forbidden}
        assumed = {n: _PENDING for n in candidates}
        while True:
            self.numbers = self._numbers(assumed)
            candidates -= self.numbers
            lengths = {n: _PENDING for n in candidates}
            for _ in range(len(candidates) + 2):
                self.pairs = self._pair_lengths(lengths)
                new = {}
                for name in candidates:
                    found = {self._length(v, lengths) for v in self.values[name]}
                    concrete = found - {_PENDING}
                    if None in found or len(concrete) > 1:
                        continue
                    new[name] = concrete.pop() if concrete else _PENDING
                if new == lengths:
                    break
                lengths = new
            kept = {n for n, k in lengths.items() if isinstance(k, int)}
            settled = {n: lengths[n] for n in kept}
            if kept == candidates and self._numbers(settled) == self.numbers:
                self.pairs = self._pair_lengths(settled)
                return settled
            candidates, assumed = kept, settled

    def _pair_lengths(self, lengths):
        pairs = {}
        for name, values in self.values.items():
            if len(values) != 1 or _kernel(values[0]) != "pair":
                continue
            first = _first_operand(values[0])
            n = None if first is None else self._length(first, lengths)
            if n is not None:
                pairs[name] = n
        return pairs

    # where they are used

    def _refused_uses(self, lengths):
        """The small arrays read anywhere but in the forms the rewrite knows."""
        refused = set()
        allowed: set = set()  # ids of Name nodes in a known form
        for node in gast.walk(self.fn):
            if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], gast.Name) \
                    and node.targets[0].id in lengths:
                self._mark_operands(node.value, lengths, allowed)
            elif isinstance(node, gast.Subscript) and self._element(node, lengths):
                allowed.add(id(node.value))
            elif isinstance(node, gast.Attribute) and node.attr == "shape" \
                    and isinstance(node.value, gast.Name):
                allowed.add(id(node.value))
            elif _kernel(node) and isinstance(node, gast.Call):
                for a in node.args:
                    if isinstance(a, gast.Name):
                        allowed.add(id(a))
        kernel_statements = {id(n) for n in gast.walk(self.fn)
                             if isinstance(n, gast.Assign)
                             and any(_kernel(c) for c in gast.walk(n.value))}
        for statement in (n for n in gast.walk(self.fn) if isinstance(n, gast.stmt)):
            if id(statement) in kernel_statements:
                continue
            for node in _own_nodes(statement):
                if _kernel(node):  # a kernel call in an `if` test, a return, ...
                    refused |= {a.id for a in node.args if isinstance(a, gast.Name)}
        for node in gast.walk(self.fn):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) \
                    and node.id in lengths and id(node) not in allowed:
                refused.add(node.id)
        return refused

    def _mark_operands(self, node, lengths, allowed):
        if isinstance(node, gast.Name):
            allowed.add(id(node))
        elif isinstance(node, gast.UnaryOp):
            self._mark_operands(node.operand, lengths, allowed)
        elif isinstance(node, gast.BinOp):
            self._mark_operands(node.left, lengths, allowed)
            self._mark_operands(node.right, lengths, allowed)
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                and node.func.id in ("broadcast_view", "array_copy"):
            self._mark_operands(node.args[0], lengths, allowed)
            for shape in node.args[1:]:
                for n in gast.walk(shape):
                    if isinstance(n, gast.Name):
                        allowed.add(id(n))
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in ("copy", "zeros_like", "ones_like"):
            for n in [node.func.value, *node.args]:
                self._mark_operands(n, lengths, allowed)

    # the rewrite

    def rewrite(self) -> set:
        forbidden: set = set()
        while True:
            lengths = self._settle(forbidden)
            refused = self._refused_uses(lengths)
            if not refused:
                break
            forbidden |= refused
        if not lengths:
            return set()
        self.lengths = lengths
        self.parts = {name: [self.namer.fresh(f"{name}_{k}") for k in range(n)]
                      for name, n in lengths.items()}
        self.buffers: dict = {}
        self.results: dict = {}  # names bound to a kernel's array -> its length
        self.fn.body = self._block(self.fn.body)
        start = [S.assign(S.name(buffer, store=True),
                          S.parse_expr(f"np.empty({lengths[name]})"))
                 for name, buffer in self.buffers.items()]
        docstring = self.fn.body[:1] if self.fn.body and isinstance(self.fn.body[0], gast.Expr) \
            and isinstance(self.fn.body[0].value, gast.Constant) else []
        self.fn.body = docstring + start + self.fn.body[len(docstring):]
        return set(lengths)

    def _block(self, body):
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                if isinstance(getattr(stmt, field, None), list) \
                        and not isinstance(stmt, gast.FunctionDef):
                    setattr(stmt, field, self._block(getattr(stmt, field)))
            out.extend(self._statement(stmt))
        return out

    def _statement(self, stmt):
        before = []
        if isinstance(stmt, gast.Assign) and any(_kernel(c) for c in gast.walk(stmt.value)):
            before = self._fill_buffers(stmt.value)
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in self.lengths:
            name = stmt.targets[0].id
            value = self._hoisted(stmt.value, before, stmt)
            elements = [self._element_of(value, k) for k in range(self.lengths[name])]
            target = gast.Tuple([S.name(p, store=True) for p in self.parts[name]], gast.Store())
            new = gast.copy_location(gast.Assign([target], gast.Tuple(elements, gast.Load()),
                                                 None), stmt)
            return [*before, new]
        self._replace_reads(stmt)
        return [*before, stmt]

    def _hoisted(self, value, before, stmt):
        """`value` with each kernel call in it bound to a name first (one call, its
        elements read after it)."""
        if _kernel(value) == "array":
            result = self.namer.fresh("srcad_small_result")
            before.append(gast.copy_location(S.assign(S.name(result, store=True), value), stmt))
            self.results[result] = self._length(value, self.lengths)
            return S.name(result)
        for field, child in gast.iter_fields(value):
            if isinstance(child, gast.AST) and not isinstance(child, gast.expr_context):
                setattr(value, field, self._hoisted(child, before, stmt))
            elif isinstance(child, list):
                setattr(value, field, [self._hoisted(c, before, stmt) for c in child])
        return value

    def _fill_buffers(self, value):
        fills = []
        for call in (c for c in gast.walk(value) if _kernel(c)):
            for i, a in enumerate(call.args):
                if isinstance(a, gast.Name) and a.id in self.lengths:
                    buffer = self.buffers.setdefault(
                        a.id, self.namer.fresh(f"srcad_small_{a.id}"))
                    fills.extend(S.assign(S.parse_expr(f"{buffer}[{k}]"), S.name(part))
                                 for k, part in enumerate(self.parts[a.id]))
                    for target in fills:
                        S.set_store(target.targets[0])
                    call.args[i] = S.name(buffer)
        return fills

    def _element_of(self, node, k):
        """Element k of the array expression `node` (a number stays itself)."""
        if isinstance(node, gast.Name) and node.id in self.results:
            return gast.Subscript(S.name(node.id), S.const(k), gast.Load())
        if isinstance(node, gast.Name):
            return S.name(self.parts[node.id][k]) if node.id in self.lengths else S.clone(node)
        if isinstance(node, gast.UnaryOp) and self._is_array(node.operand):
            return gast.UnaryOp(node.op, self._element_of(node.operand, k))
        if isinstance(node, gast.BinOp) and (self._is_array(node.left)
                                             or self._is_array(node.right)):
            return gast.BinOp(self._element_of(node.left, k), node.op,
                              self._element_of(node.right, k))
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                and node.value.id in self.pairs:  # pair[j]: a kernel's array, read as it is
            return gast.Subscript(S.clone(node), S.const(k), gast.Load())
        if isinstance(node, gast.Call) and self._is_array(node):
            func = node.func
            if isinstance(func, gast.Name) and func.id in ("broadcast_view", "array_copy"):
                return self._element_of(node.args[0], k)
            if isinstance(func, gast.Attribute) and func.attr == "copy" and not node.args:
                return self._element_of(func.value, k)
            attr = getattr(func, "attr", None)
            if attr in ("zeros", "zeros_like"):
                return S.const(0.0)
            if attr in ("ones", "ones_like"):
                return S.const(1.0)
            if attr == "copy":
                return self._element_of(node.args[0], k)
            if getattr(func, "attr", getattr(func, "id", None)) in ("array", "array_stack"):
                return S.const(float(_float(node.args[0].elts[k])))
        return self._replace_reads(S.clone(node))  # a number: the same for each element

    def _is_array(self, node):
        if isinstance(node, gast.Name) and node.id in self.results:
            return True
        return self._length(node, self.lengths) is not None

    def _replace_reads(self, tree):
        """`v[k]` and `v.shape` of the small arrays v read in `tree` (in place)."""
        lengths = self.lengths

        class Reads(gast.NodeTransformer):
            def visit_Subscript(inner, node):
                inner.generic_visit(node)
                found = self._element(node, lengths) if isinstance(node.ctx, gast.Load) \
                    else None
                if found:
                    return gast.copy_location(S.name(self.parts[found[0]][found[1]]), node)
                return node

            def visit_Attribute(inner, node):
                inner.generic_visit(node)
                if node.attr == "shape" and isinstance(node.value, gast.Name) \
                        and node.value.id in lengths:
                    return gast.copy_location(S.parse_expr(f"({lengths[node.value.id]},)"),
                                              node)
                return node

        return Reads().visit(tree)


def _literal_length(node):
    """n for a list or tuple of n numbers written out, one a float at least (a float64
    array), n at most MAX_LENGTH; else None."""
    if isinstance(node, (gast.List, gast.Tuple)) and 1 <= len(node.elts) <= MAX_LENGTH \
            and all(_float(e) is not None for e in node.elts) \
            and any(isinstance(_float(e), float) for e in node.elts):
        return len(node.elts)
    return None


def _float(node):
    """The number a literal element is (a float or int written out, maybe negated)."""
    negate = isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub)
    if negate:
        node = node.operand
    if isinstance(node, gast.Constant) and type(node.value) in (int, float):
        return -node.value if negate else node.value
    return None


def _own_nodes(statement):
    """The expression nodes of `statement` outside the statements nested in it."""
    stack = [c for c in gast.iter_child_nodes(statement) if not isinstance(c, gast.stmt)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in gast.iter_child_nodes(node) if not isinstance(c, gast.stmt))
