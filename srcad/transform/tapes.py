"""How tapes are spelled in generated reverse code, per backend.

* `ListTapes` (python backend): `tape = []`, `tape.append(v)`, `v = tape.pop()`; reverse
  loops read `for i in reversed(range(n))`.
* `ArrayTapes` (numba backend): tapes of numbers are float64 / int64 NumPy arrays passed in
  by the caller (so a prepared call allocates nothing) with a size counter, grown when full
  and handed back when grown (else None); reverse loops count down explicitly (numba has no
  `reversed`). A
  `for` loop whose body is straight-line records the same values every iteration, so each gets
  a fixed slot in the iteration's record: `tape[tape_size + 1] = v` forward,
  `v = tape[tape_size + 1]` in the reverse, in any order (reverse/control_flow.py then may run
  independent iterations forward).

  Arrays (and the shapes of arrays) are taped by reference on local lists, one per rank
  and dtype (`array_tape_1d = []`, `int_array_tape_1d = []`, `shape_tape_2d = []`): numba
  types a list by its elements, and an array's rank and dtype and a shape's length are part
  of its type. A loop that tapes arrays is not slotted (its pushes and pops stay in stack
  order).

Both spell the same stack discipline: pops happen in the reverse order of pushes, and a loop
iteration's record is pushed and popped as a whole.
"""

from __future__ import annotations

import gast

from srcad.analysis.types import FLOAT, SHAPE, Array
from srcad.frontend import syntax as S
from srcad.transform.simplify import simplify

FLOAT_TAPE, INT_TAPE = "tape", "int_tape"
# python backend: arrays the reverse sweep reads after the primal rebinds their names, taped by
# reference (a rebinding makes a new array; the old one is never written again)
ARRAY_TAPE = "array_tape"
# numba: a float array for arrays of the function's own (hoisted precomputations and their
# adjoints), kept and grown like the tapes, so a call allocates none (`ArrayTapes.carve`)
WORK = "work"


class ListTapes:
    """Methods take a tape's kind (FLOAT_TAPE, INT_TAPE) and spell it by its bound name."""

    backend = "python"
    slots = False  # fixed places in a loop iteration's record (ArrayTapes)

    def __init__(self):
        self.names = {FLOAT_TAPE: FLOAT_TAPE, INT_TAPE: INT_TAPE, WORK: WORK,
                      ARRAY_TAPE: ARRAY_TAPE}

    def bind(self, namer) -> None:
        """Name the tapes (and their size counters) so that no variable of the function is
        named alike: `tape`, or `tape_1` in a function with a `tape` or `tape_size` of its
        own."""
        for kind in (FLOAT_TAPE, INT_TAPE, WORK, ARRAY_TAPE):
            name, k = kind, 0
            while {name, f"{name}_size", f"{name}_length"} & namer.taken:
                k += 1
                name = f"{kind}_{k}"
            namer.reserve(name)
            namer.reserve(f"{name}_size")
            namer.reserve(f"{name}_length")
            self.names[kind] = name
        self.namer = namer

    def tape_for(self, typ, ndim: int = 0) -> str:
        """The tape a value of srcad type `typ` goes on (`ndim`: the rank of the array whose
        shape a SHAPE value is)."""
        if isinstance(typ, Array):
            return ARRAY_TAPE
        return FLOAT_TAPE if typ == FLOAT else INT_TAPE

    def init(self, tape: str) -> list:
        return [S.assign(S.name(self.names[tape]), gast.List(elts=[], ctx=gast.Load()))]

    def push(self, tape: str, value, checked: bool = True) -> list:
        return [S.expr_stmt(S.call(f"{self.names[tape]}.append", S.as_load(value)))]

    def reserve(self, tape: str, count) -> list:
        """Make room for `count` more pushes (a list needs none)."""
        return []

    def pop(self, tape: str, target) -> list:
        pop = S.call(f"{self.names[tape]}.pop")
        if tape == FLOAT_TAPE:  # a Python float: the reverse sweep's arithmetic is faster
            return [S.assign(target, S.call("float", pop))]
        return [S.assign(target, pop)]

    def python_floats(self, stmt, types):
        """`stmt` reading float array elements as Python floats (same value; arithmetic on
        them is ~3x cheaper than on NumPy scalars)."""
        return _AsPythonFloat(types).visit(stmt)

    def reverse_range(self, index: str, args: list, trips, namer) -> tuple[list, gast.AST]:
        """(statements before the loop, iterator) visiting range(*args)[:trips] backwards."""
        span = gast.Call(func=S.name("range"), args=[S.as_load(a) for a in args], keywords=[])
        if trips is not None:
            span = gast.Subscript(value=span, slice=gast.Slice(lower=None, upper=S.name(trips),
                                                               step=None), ctx=gast.Load())
        return [], gast.Call(func=S.name("reversed"), args=[span], keywords=[])

    def parameters(self, used: list) -> list:
        return []

    def results(self, used: list) -> list:
        return []


class ArrayTapes(ListTapes):
    backend = "numba"
    slots = True

    def tape_for(self, typ, ndim: int = 0) -> str:
        if isinstance(typ, Array) or typ == SHAPE:
            # numba types a list by its elements: float and int arrays go on separate lists
            base = "shape_tape" if typ == SHAPE else ARRAY_TAPE if typ.is_float else \
                "int_array_tape"
            kind = f"{base}_{getattr(typ, 'ndim', ndim)}d"
            if kind not in self.names:
                self.names[kind] = self.namer.fresh(kind)
            return kind
        return super().tape_for(typ)

    def is_list(self, tape: str) -> bool:
        """Is `tape` a local list (arrays, shapes) rather than an array the caller passes?"""
        return tape not in (FLOAT_TAPE, INT_TAPE, WORK)

    def is_array_list(self, tape: str) -> bool:
        """Is `tape` a list of arrays of rank 1 or more? Those are pushed C-contiguous
        (`np.ascontiguousarray`, a copy of a transposed or strided view only): numba types a
        list by its elements, so a list holding a transpose (layout F) and C-ordered arrays
        types every popped array with layout A, and each operation the reverse sweep applies to
        them compiles once more for that layout (numba's solve, inv, srcad's product loops)."""
        return tape.startswith((ARRAY_TAPE, "int_array_tape")) and not tape.endswith("_0d")

    def size(self, tape: str) -> str:
        return f"{self.names[tape]}_size"

    def counters(self) -> frozenset:
        """The size counters of the tapes of numbers: never negative (a pop or a slot read
        comes after its push), so numba may index by them without Python's wraparound
        (srcad/transform/numba_indices.py)."""
        return frozenset(self.size(tape) for tape in (FLOAT_TAPE, INT_TAPE))

    def number_tapes(self) -> frozenset:
        """The names of the tapes of numbers (the arrays `counters` index)."""
        return frozenset(self.names[tape] for tape in (FLOAT_TAPE, INT_TAPE))

    def init(self, tape: str) -> list:
        if self.is_list(tape):
            return super().init(tape)
        name = self.names[tape]
        return [S.assign(S.name(self.size(tape)), S.const(0)),
                S.assign(S.name(f"{name}_length"), S.parse_expr(f"{name}.shape[0]"))]

    def push(self, tape: str, value, checked: bool = True) -> list:
        """Store and advance; `checked` grows a full tape first (inside a for loop the space
        was reserved before the loop instead, keeping the hot loop free of reallocation)."""
        if self.is_list(tape):
            if self.backend == "numba" and self.is_array_list(tape):
                value = S.call("np.ascontiguousarray", S.as_load(value))
            return super().push(tape, value)
        size, name = self.size(tape), self.names[tape]
        grow = S.parse_stmts(f"if {size} == {name}.shape[0]:\n"
                             f"    {name} = np.concatenate(({name}, np.empty_like({name})))\n")
        store = gast.Subscript(value=S.name(name), slice=S.name(size), ctx=gast.Store())
        return (grow if checked else []) + [S.assign(store, S.as_load(value)),
                                            S.aug_assign(S.name(size), gast.Add(), S.const(1))]

    def reserve(self, tape: str, count) -> list:
        """`tape = reserve_tape(tape, tape_size + count)` (srcad/runtime/numba_runtime.py)."""
        if self.is_list(tape):
            return []
        need = S.substitute("size + count", {"size": S.name(self.size(tape)), "count": count})
        name = self.names[tape]
        return [S.assign(S.name(name, store=True), S.call("reserve_tape", S.name(name), need))]

    def carve(self, tape: str, entries: list) -> list:
        """Arrays of the function's own in the workspace `work` (the `tape` WORK), without an
        allocation per call: for each (name, length, shape or None, zero) of `entries`,
        `name = work[start:start + length]` (reshaped to `shape`, zeroed if `zero`), the
        starts one after the other from `work_size`, then `work_size` advanced past them all.
        Every `length` must be >= 0 (a negative slice bound would count from the end). A later
        growth copies `work`; the arrays still refer to the old buffer, which stays alive as
        long as they do.

        The starts are written as sums of the lengths, `work_size + 2 * K`, not through a
        `work_size` advanced array by array: measured on the mixture (numba, K=4), the kernel
        then runs as fast as with np.empty arrays, and 2-3% slower when carved one by one or
        sized `len(range(K))` (LLVM no longer tells the arrays apart); carved from the float
        tape instead, ~2% slower."""
        size, name = self.size(tape), self.names[tape]
        out = self.reserve(tape, _sum([e[1] for e in entries]))
        for j, (array, length, shape, zero) in enumerate(entries):
            lengths = [e[1] for e in entries[:j]]
            start = _sum([S.name(size)] + lengths)
            view = S.substitute("work[start:end]", {
                "work": S.name(name), "start": start, "end": _sum([S.name(size)] + lengths
                                                                  + [length])})
            if shape is not None:
                view = gast.Call(func=gast.Attribute(value=view, attr="reshape", ctx=gast.Load()),
                                 args=[S.clone(shape)], keywords=[])
            out.append(S.assign(S.name(array, store=True), view))
            if zero:
                out += S.parse_stmts(f"{array}[:] = 0.0")
        return out + [self.advance(tape, _sum([e[1] for e in entries]))]

    def carve_group(self, norm, array, namer, derivative, stmt) -> list:
        """The workspace block of the hoisted arrays made with `array` (`Normalized.workspace`)
        and their derivatives, where the group's first array is made ([] for the others).
        `derivative(a, length)` gives (name, length, shape or None) of a's shadow or tangents,
        or None. The length is the inner loop's `stop`, clamped at 0 (a fresh `count`) unless
        provably >= 0: a negative slice bound would count from the end of the workspace."""
        group, stop, never_negative = norm.workspace[array]
        if array != group[0]:
            return []
        clamp = []
        if not never_negative:
            count = namer.fresh("count")
            clamp = [S.assign(S.name(count, store=True),
                              S.call("max", S.clone(stop), S.const(0)))]
            stop = S.name(count)
        entries = []
        for a in group:
            entries.append((a, S.clone(stop), None, False))
            shadow = derivative(a, stop)
            if shadow is not None:
                entries.append((*shadow, True))
        out = [S.comment(f"{', '.join(e[0] for e in entries)}: in `{self.names[WORK]}`, "
                         "kept across calls (no allocation)")]
        out += clamp + self.carve(WORK, entries)
        return [gast.copy_location(s, stmt) for s in out]

    def pop(self, tape: str, target) -> list:
        if self.is_list(tape):
            return [S.assign(target, S.call(f"{self.names[tape]}.pop"))]
        size = self.size(tape)
        read = gast.Subscript(value=S.name(self.names[tape]), slice=S.name(size), ctx=gast.Load())
        return [S.aug_assign(S.name(size), gast.Sub(), S.const(1)), S.assign(target, read)]

    def put(self, tape: str, value, slot: int) -> list:
        """Record `value` at place `slot` of this loop iteration's record (space reserved)."""
        return [S.assign(self._slot(tape, slot, gast.Store()), S.as_load(value))]

    def get(self, tape: str, target, slot: int) -> list:
        """Read place `slot` of the iteration's record (`tape_size` at the record's start)."""
        return [S.assign(target, self._slot(tape, slot, gast.Load()))]

    def advance(self, tape: str, count) -> gast.AST:
        """`tape_size += count`: past `count` records (an int or an expression)."""
        count = S.const(count) if isinstance(count, int) else count
        return S.aug_assign(S.name(self.size(tape)), gast.Add(), count)

    def back(self, tape: str, count) -> gast.AST:
        """`tape_size -= count`: back to the start of the last `count` records."""
        count = S.const(count) if isinstance(count, int) else count
        return S.aug_assign(S.name(self.size(tape)), gast.Sub(), count)

    def _slot(self, tape, slot, ctx):
        index = S.name(self.size(tape))
        if slot:
            index = gast.BinOp(left=index, op=gast.Add(), right=S.const(slot))
        return gast.Subscript(value=S.name(self.names[tape]), slice=index, ctx=ctx)

    def reverse_range(self, index: str, args: list, trips, namer):
        args = [S.as_load(a) for a in args]
        start, step = S.const(0), S.const(1)
        if len(args) >= 2:
            start = args[0]
        if len(args) == 3:
            step = args[2]
        count = namer.fresh(f"{index}_count")
        total = S.name(trips) if trips is not None else gast.Call(
            func=S.name("len"), args=[gast.Call(func=S.name("range"), args=args, keywords=[])],
            keywords=[])
        before = [S.assign(S.name(count), total)]
        last = simplify(S.substitute("start + (count - 1) * step",
                                     {"start": start, "count": S.name(count), "step": step}),
                        integers=True)
        stop = simplify(S.substitute("start - step", {"start": start, "step": step}),
                        integers=True)
        neg = simplify(S.substitute("-step", {"step": step}), integers=True)
        return before, gast.Call(func=S.name("range"), args=[last, stop, neg], keywords=[])

    def parameters(self, used: list) -> list:
        return [self.names[t] for t in used if not self.is_list(t)]

    def python_floats(self, stmt, types):
        return stmt  # numba: a float64 element is already a machine float

    def results(self, used: list) -> list:
        """Each tape, if the call grew it (the caller keeps it for the next call), else None
        (returning an array costs numba more than returning None)."""
        return [S.parse_expr(f"{n} if {n}.shape[0] > {n}_length else None")
                for n in (self.names[t] for t in used if not self.is_list(t))]


class PythonArrayTapes(ArrayTapes):
    """`ArrayTapes` run by CPython (the python backend's prepared reverse operators): the
    tapes are the caller's arrays, so a prepared call allocates no tape; elements read back
    become Python floats and ints (their arithmetic is ~3x cheaper than NumPy scalars')."""

    backend = "python"

    def pop(self, tape: str, target) -> list:
        *advance, read = super().pop(tape, target)
        if self.is_list(tape):  # an array (or a shape) taped by reference stays one
            return advance + [read]
        return advance + [_as_python(tape, read)]

    def get(self, tape: str, target, slot: int) -> list:
        return [_as_python(tape, stmt) for stmt in super().get(tape, target, slot)]

    def python_floats(self, stmt, types):
        return ListTapes.python_floats(self, stmt, types)


def _as_python(tape, assign):
    """`target = float(read)` (`int(read)` for the int tape)."""
    assign.value = S.call("int" if tape == INT_TAPE else "float", assign.value)
    return assign


class _AsPythonFloat(gast.NodeTransformer):
    def __init__(self, types):
        self.types = types

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.ctx, gast.Load) and self.types.of(node) == "float":
            return gast.Call(func=S.name("float"), args=[node], keywords=[])
        return node


def _sum(terms: list):
    """`a + 2 * b` for the terms [a, b, b]: equal terms counted, in their first order."""
    counted: dict = {}
    for term in terms:
        key = gast.dump(term)
        expr, count = counted.get(key, (term, 0))
        counted[key] = (expr, count + 1)
    total = None
    for expr, count in counted.values():
        part = S.clone(expr) if count == 1 else gast.BinOp(left=S.const(count), op=gast.Mult(),
                                                          right=S.clone(expr))
        total = part if total is None else gast.BinOp(left=total, op=gast.Add(), right=part)
    return total
