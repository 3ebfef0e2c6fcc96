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

import gast

from srcad.frontend import syntax as S
from srcad.transform.small_array_kernels import (
    MAX_LENGTH,
    OPERATORS,
    adjoint_operand,
    first_operand,
    int_literal,
    kernel_kind,
)
from srcad.transform.small_array_tapes import is_pop, list_tapes, recorded
from srcad.transform.small_array_uses import refused_uses

__all__ = ["MAX_LENGTH", "SmallArrays", "kernel_kind", "literal_value", "placeholder"]
_OPERATORS = OPERATORS
_int_literal = int_literal
_PENDING = "pending"

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
        # written in place (`v += e`, `v[0] = e`, `v[1] -= e`): held as numbers only where
        # no other name or tape shares its array (small_array_uses.py)
        self.mutated: set = set()
        self.tapes = list_tapes(fn)  # small_array_tapes.py
        plain = set()  # ids of the targets of `name = value` and `name += value`
        in_place = set()  # ids of the Subscript targets `v[k]` of a constant k
        for node in gast.walk(fn):
            if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], gast.Name):
                self.values.setdefault(node.targets[0].id, []).append(node.value)
                plain.add(id(node.targets[0]))
            elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) \
                    and isinstance(node.op, _OPERATORS):
                name = node.target.id
                self.values.setdefault(name, []).append(
                    gast.BinOp(S.name(name), node.op, node.value))
                plain.add(id(node.target))
                self.mutated.add(name)
            for target in node.targets if isinstance(node, gast.Assign) else \
                    [node.target] if isinstance(node, gast.AugAssign) else []:
                if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) \
                        and _int_literal(target.slice) is not None:
                    in_place.add(id(target))
                    self.mutated.add(target.value.id)
        for node in gast.walk(fn):
            if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load) \
                    and id(node) not in plain:
                self.other.add(node.id)
            written = node.target if isinstance(node, gast.AugAssign) \
                and id(node.target) not in plain and id(node.target) not in in_place else \
                node.value if isinstance(node, gast.Subscript) \
                and not isinstance(node.ctx, gast.Load) and id(node) not in in_place else None
            while isinstance(written, (gast.Subscript, gast.Attribute)):
                written = written.value
            if isinstance(written, gast.Name):
                self.other.add(written.id)
        self.typed = set(numbers)
        self.numbers = set(numbers)  # the names held as numbers (settled with the lengths)
        self.pairs: dict = {}
        # bound to a kernel's pair or tuple of arrays: neither a small array nor a number
        self.other |= {n for n, values in self.values.items()
                       if any(kernel_kind(v) in ("pair", "tuple") for v in values)}
        self.tuples = {n: values[0] for n, values in self.values.items()
                       if len(values) == 1 and kernel_kind(values[0]) == "tuple"}

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
        if lengths is not None and self.small_sum(node, lengths):
            return True
        if isinstance(node, gast.Subscript) and lengths is not None:
            return self._element(node, lengths) is not None \
                or self._element(node, self.given) is not None  # of a parameter
        return False

    def small_sum(self, node, lengths) -> bool:
        """Is `node` `np.sum(e)` of an array expression e of a constant small length?"""
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
            and node.func.attr == "sum" and isinstance(node.func.value, gast.Name) \
            and node.func.value.id == "np" and len(node.args) == 1 and not node.keywords \
            and isinstance(self._length(node.args[0], lengths), int)

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
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                and node.value.id in self.tuples and _int_literal(node.slice) is not None:
            operand = adjoint_operand(self.tuples[node.value.id], _int_literal(node.slice))
            return None if operand is None else self._length(operand, lengths)
        if is_pop(node, self.tapes) and not self.tapes[node.func.value.id].is_shape:
            return self._tape_length(self.tapes[node.func.value.id], lengths)
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
        if isinstance(func, gast.Name) and func.id == "unshared" and len(node.args) == 2:
            return self._length(node.args[1], lengths)  # its second operand (copied if shared)
        if isinstance(func, gast.Name) and func.id == "unbroadcast" and len(node.args) == 2:
            n, m = self._length(node.args[0], lengths), self._shape_length(node.args[1], lengths)
            return n if n is not None and (m == n or _PENDING in (m, n)) else None
        if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
                and func.value.id == "np" and len(node.args) == 1):
            return None
        arg = node.args[0]
        if func.attr in ("zeros", "ones"):
            n = _int_literal(arg)
            if n is None and not isinstance(arg, gast.Constant):
                n = self._shape_length(arg, lengths)
            return n if n == _PENDING or (n is not None and 1 <= n <= MAX_LENGTH) else None
        if func.attr in ("zeros_like", "ones_like", "copy"):
            return self._length(arg, lengths)
        if func.attr == "array":
            return _literal_length(arg)
        return None

    def _tape_length(self, tape, lengths):
        """The one length of the arrays an array tape records (_PENDING, None)."""
        found = {self._length(recorded(p), lengths) for p in tape.pushes}
        concrete = found - {_PENDING}
        if None in found or len(concrete) > 1:
            return None
        return concrete.pop() if concrete else _PENDING

    def _shape_length(self, node, lengths):
        """n for the shape `(n,)` written out, `v.shape` of an array of length n, or a name
        read back from a shape tape of such shapes (_PENDING, None)."""
        if isinstance(node, gast.Tuple) and len(node.elts) == 1:
            return _int_literal(node.elts[0])
        if isinstance(node, gast.Attribute) and node.attr == "shape":
            return self._length(node.value, lengths)
        if isinstance(node, gast.Name) and node.id not in self.other:
            values = self.values.get(node.id, ())
            tapes = {v.func.value.id for v in values if is_pop(v, self.tapes)}
            if len(values) == 1 and len(tapes) == 1:
                tape = self.tapes[tapes.pop()]
                return self._tape_length(tape, lengths) if tape.is_shape else None
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
                    found = {_PENDING if placeholder(v) else self._length(v, lengths)
                             for v in self.values[name]}
                    concrete = found - {_PENDING}
                    if None in found or len(concrete) > 1 or (concrete == {1} and any(
                            placeholder(v) for v in self.values[name])):
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
            refused = refused_uses(self, lengths)
            if not refused:
                return lengths
            forbidden |= refused

def placeholder(node) -> bool:
    """`np.zeros((0,))`: the value srcad binds a name to before code that may read it unbound
    (srcad/transform/defined.py); read as zeros of the name's other values' length, which
    differs only where the code would read past the empty array's end (its elements) or
    combine it with a longer array (a broadcast error), except for length 1, left alone."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and node.func.attr == "zeros" and isinstance(node.func.value, gast.Name) \
        and node.func.value.id == "np" and len(node.args) == 1 and not node.keywords \
        and isinstance(node.args[0], gast.Tuple) and len(node.args[0].elts) == 1 \
        and _int_literal(node.args[0].elts[0]) == 0


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
