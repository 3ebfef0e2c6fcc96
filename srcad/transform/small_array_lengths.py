"""Which arrays of numba code have a constant small length and may be held as numbers, one
per element (srcad/transform/small_arrays.py rewrites them): the analysis.

A variable qualifies when every value it is bound to (`name = value`, never another way, never
written in place, not a parameter) is an array of one constant length n <= MAX_LENGTH, and
every read of it is an element with a constant index, `.shape`, an operand of such a value or
an argument of a nested gradient's kernel. The lengths are found by an optimistic fixed point
(a loop-carried `x = x_new` is settled by `x`'s other values); a variable that fails a test is
removed, and so are the variables that depended on it, until nothing changes.

>>> import gast
>>> fn = gast.parse("def f(a):\\n    x = np.zeros(2)\\n    y = x * 2.0 + a\\n"
...                 "    z = x - 1.0\\n    return z[0] + y[1]").body[0]
>>> sorted(SmallArrays(fn, {"a"}).settled().items())  # a is a number
[('x', 2), ('y', 2), ('z', 2)]
>>> SmallArrays(fn, set()).settled()  # a may be an array: y, then x and z, stay arrays
{}
"""

from __future__ import annotations

import re

import gast

from srcad.frontend import syntax as S

MAX_LENGTH = 4
_OPERATORS = (gast.Add, gast.Sub, gast.Mult)
# nested kernels (srcad/operators/nested_numba.py and its merged forms): one array shaped like
# the first operand, or a pair (the gradient and its tangent) of such arrays
# (the `_into` variants write into their last operands: nested_result_reuse.py)
_ARRAY_KERNEL = re.compile(r"srcad_nested_(gradient_\d+|tangents?_\d+(_\d+)*)(_scratch|_into)?$")
_PAIR_KERNEL = re.compile(r"srcad_nested_gradient_tangents_\d+(_\d+)*(_scratch|_into)?$")
_WORKSPACE = ("srcad_space", "srcad_int_space")
_PENDING = "pending"

def kernel_kind(node):
    """"array" or "pair" for a call of a nested kernel, else None."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
        if _PAIR_KERNEL.match(node.func.id):
            return "pair"
        if _ARRAY_KERNEL.match(node.func.id):
            return "array"
    return None


def first_operand(call):
    operands = [a for a in call.args if not (isinstance(a, gast.Name) and a.id in _WORKSPACE)]
    return operands[0] if operands and not call.keywords else None


def _int_literal(node):
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    return None



class SmallArrays:
    """Which variables of the function `fn` are small arrays (`settled`), given the names
    typed as numbers and `given`, the lengths of array parameters the code is specialized for
    (srcad/build/length_specialization.py; a parameter bound again in `fn` is left out)."""

    def __init__(self, fn, numbers, given=None):
        self.fn = fn
        stored = {n.id for n in gast.walk(fn) if isinstance(n, gast.Name)
                  and isinstance(n.ctx, (gast.Store, gast.Del))}
        params = {a.id for a in fn.args.args}
        self.given = {p: n for p, n in (given or {}).items() if p in params and p not in stored}
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
                       if any(kernel_kind(v) == "pair" for v in values)}

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
            return lengths.get(node.id, self.given.get(node.id))
        kind = kernel_kind(node)
        if kind == "array":
            first = first_operand(node)
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
            if len(values) != 1 or kernel_kind(values[0]) != "pair":
                continue
            first = first_operand(values[0])
            n = None if first is None else self._length(first, lengths)
            if n is not None:
                pairs[name] = n
        return pairs

    def settled(self) -> dict:
        """{name: length} of the variables that can be numbers, one per element: a
        variable read in a form the rewrite does not know is left out, and so is every
        variable whose values it made."""
        forbidden: set = set()
        while True:
            lengths = self._settle(forbidden)
            refused = self._refused_uses(lengths)
            if not refused:
                return lengths
            forbidden |= refused

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
            elif kernel_kind(node) and isinstance(node, gast.Call):
                for a in node.args:
                    if isinstance(a, gast.Name):
                        allowed.add(id(a))
        kernel_statements = {id(n) for n in gast.walk(self.fn)
                             if isinstance(n, gast.Assign)
                             and any(kernel_kind(c) for c in gast.walk(n.value))}
        for statement in (n for n in gast.walk(self.fn) if isinstance(n, gast.stmt)):
            if id(statement) in kernel_statements:
                continue
            for node in S.statement_expressions(statement):
                if kernel_kind(node):  # a kernel call in an `if` test, a return, ...
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


def _literal_length(node):
    """n for a list or tuple of n numbers written out, one a float at least (a float64
    array), n at most MAX_LENGTH; else None."""
    if isinstance(node, (gast.List, gast.Tuple)) and 1 <= len(node.elts) <= MAX_LENGTH \
            and all(literal_value(e) is not None for e in node.elts) \
            and any(isinstance(literal_value(e), float) for e in node.elts):
        return len(node.elts)
    return None


def literal_value(node):
    """The number a literal element is (a float or int written out, maybe negated)."""
    negate = isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub)
    if negate:
        node = node.operand
    if isinstance(node, gast.Constant) and type(node.value) in (int, float):
        return -node.value if negate else node.value
    return None
