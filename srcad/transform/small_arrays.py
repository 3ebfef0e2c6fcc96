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

import gast

from srcad.frontend import syntax as S
from srcad.transform.small_array_lengths import (
    MAX_LENGTH,
    SmallArrays,
    kernel_kind,
    literal_value,
    placeholder,
)
from srcad.transform.small_array_tapes import append_of, is_pop, recorded

__all__ = ["MAX_LENGTH", "scalar_small_arrays"]


def scalar_small_arrays(tree, namer, numbers: set, given=None, specialize=None) -> set:
    """Rewrite every function of `tree` in place; the names made scalars. `given`: the
    lengths of array parameters the code is specialized for (module docstring);
    `specialize(kernel, lengths)`: the name of a nested kernel made for its operands'
    lengths, or None (srcad/operators/nested_number_kernels.py)."""
    done = set()
    # every name of the code taken (names the transforms made without the namer too)
    namer.taken.update(n.id for n in gast.walk(tree) if isinstance(n, gast.Name))
    for fn in [n for n in gast.walk(tree) if isinstance(n, gast.FunctionDef)]:
        done |= _Rewrite(fn, namer, numbers, given, specialize).rewrite()
    return done


class _Rewrite(SmallArrays):
    """The small arrays of one function rewritten as numbers."""

    def __init__(self, fn, namer, numbers, given=None, specialize=None):
        super().__init__(fn, numbers, given)
        self.namer = namer
        self.specialize = specialize
        # the parameters' lengths, also those that change no small array, and their shadows'
        # (`p_dot`, `p_bar`: the shape of `p`; the kernels check the lengths on entry)
        self.param_lengths = dict(self.given)
        params = {a.id for a in fn.args.args} - {n.id for n in gast.walk(fn) if isinstance(
            n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))}  # never bound again
        for p, n in self.given.items():  # also the unrolled lanes' (`p_dot_0`, ...)
            self.param_lengths.update({s: n for s in params if s in (f"{p}_dot", f"{p}_bar")
                                       or _is_lane(s, f"{p}_dot_")})
        self.buffer_lengths: dict = {}  # a kernel's operand, once its buffer: its length
        self.results: dict = {}  # names bound to a kernel's array -> its length

    def rewrite(self) -> set:
        if self.given:  # the lengths that change what is held as numbers (else: general code)
            specialized, given = self.settled(), dict(self.given)
            for name in sorted(given):
                self.given = {p: n for p, n in given.items() if p != name}
                if self.settled() == specialized:
                    given = self.given
            self.given = given
        lengths = self.settled()
        if not lengths:
            return set()
        self.lengths = lengths
        self.array_tapes, self.shape_tapes = {}, {}  # recording numbers / no longer recorded
        for name, tape in self.tapes.items():
            n = self._tape_length(tape, lengths)
            if isinstance(n, int) and tape.is_shape:
                self.shape_tapes[name] = n
            elif isinstance(n, int) and all(p in lengths for p in tape.pops):
                self.array_tapes[name] = n
        self.parts = {name: [self.namer.fresh(f"{name}_{k}") for k in range(n)]
                      for name, n in lengths.items()}
        self.buffers: dict = {}
        self.fn.body = self._block(self.fn.body)
        start = [S.assign(S.name(buffer, store=True),
                          S.parse_expr(f"np.empty({lengths[name]})"))
                 for name, buffer in self.buffers.items()]
        docstring = self.fn.body[:1] if self.fn.body and isinstance(self.fn.body[0], gast.Expr) \
            and isinstance(self.fn.body[0].value, gast.Constant) else []
        self.fn.body = docstring + _length_guards(self.given) + start \
            + self.fn.body[len(docstring):]
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
        rewritten = self._tape_statement(stmt)
        if rewritten is not None:
            return rewritten
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) \
                and stmt.target.id in self.lengths:  # v += e: v = v + e, element by element
            stmt = gast.copy_location(gast.Assign(
                [S.name(stmt.target.id, store=True)],
                gast.BinOp(S.name(stmt.target.id), stmt.op, stmt.value), None), stmt)
        targets = stmt.targets if isinstance(stmt, gast.Assign) else \
            [stmt.target] if isinstance(stmt, gast.AugAssign) else []
        if len(targets) == 1 and isinstance(targets[0], gast.Subscript) \
                and self._element(targets[0], self.lengths):  # v[k] = e: v_k = e
            name, k = self._element(targets[0], self.lengths)
            self._replace_reads(stmt)
            part = S.name(self.parts[name][k], store=True)
            if isinstance(stmt, gast.Assign):
                stmt.targets = [part]
            else:
                stmt.target = part
            return [stmt]
        before = []
        if isinstance(stmt, gast.Assign) and any(kernel_kind(c) for c in gast.walk(stmt.value)):
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

    def _tape_statement(self, stmt):
        """A statement of a list tape rewritten (small_array_tapes.py), or None."""
        found = append_of(stmt)
        if found and found[0] in self.shape_tapes:
            return []  # the shape is the constant (n,)
        if found and found[0] in self.array_tapes:
            array = recorded(found[1])
            stmt.value.args = [gast.Tuple([self._element_of(array, k)
                                           for k in range(self.array_tapes[found[0]])],
                                          gast.Load())]
            return [stmt]
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name)):
            return None
        name, value = stmt.targets[0].id, stmt.value
        if name in self.shape_tapes:
            return []  # `tape = []`: no longer recorded
        if is_pop(value, self.shape_tapes):
            stmt.value = S.parse_expr(f"({self.shape_tapes[value.func.value.id]},)")
            return [stmt]
        if is_pop(value, self.array_tapes):
            stmt.targets = [gast.Tuple([S.name(p, store=True) for p in self.parts[name]],
                                       gast.Store())]
            return [stmt]
        return None

    def _hoisted(self, value, before, stmt):
        """`value` with each kernel call in it bound to a name first (one call, its
        elements read after it)."""
        if kernel_kind(value) == "array":
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
        for call in (c for c in gast.walk(value) if kernel_kind(c)):
            self._for_lengths(call)
            for i, a in enumerate(call.args):
                if isinstance(a, gast.Name) and a.id in self.lengths:
                    buffer = self.buffers.setdefault(
                        a.id, self.namer.fresh(f"srcad_small_{a.id}"))
                    self.buffer_lengths[buffer] = self.lengths[a.id]
                    fills.extend(S.assign(S.parse_expr(f"{buffer}[{k}]"), S.name(part))
                                 for k, part in enumerate(self.parts[a.id]))
                    for target in fills:
                        S.set_store(target.targets[0])
                    call.args[i] = S.name(buffer)
        return fills

    def _for_lengths(self, call):
        """The kernel `call` calls made for its operands' lengths where every operand's is
        known (a small array's, a parameter's the code is made for, "s": a number)."""
        workspace = [a.id for a in call.args[:2] if isinstance(a, gast.Name)]
        if self.specialize is None or workspace != ["srcad_space", "srcad_int_space"] \
                or call.keywords:
            return
        lengths = []
        for a in call.args[2:]:
            if isinstance(a, gast.Name) and a.id in self.lengths:
                lengths.append(self.lengths[a.id])
            elif isinstance(a, gast.Name) and a.id in self.param_lengths:
                lengths.append(self.param_lengths[a.id])
            elif isinstance(a, gast.Name) and a.id in self.numbers:
                lengths.append("s")
            else:
                return
        special = self.specialize(call.func.id, lengths)
        if special is not None:
            call.func.id = special

    def _length(self, node, lengths):
        """As the analysis's, and the names the rewrite made: a kernel's operand once its
        buffer, a kernel's array once bound to a name (`_hoisted`)."""
        if isinstance(node, gast.Name) and node.id in self.buffer_lengths:
            return self.buffer_lengths[node.id]
        if isinstance(node, gast.Name) and node.id in self.results:
            return self.results[node.id]
        return super()._length(node, lengths)

    def _element_of(self, node, k):
        """Element k of the array expression `node` (a number stays itself)."""
        if placeholder(node):
            return S.const(0.0)
        if isinstance(node, gast.Name) and node.id in self.results:
            return gast.Subscript(S.name(node.id), S.const(k), gast.Load())
        if isinstance(node, gast.Name) and node.id in self.given and node.id not in self.lengths:
            return gast.Subscript(S.name(node.id), S.const(k), gast.Load())  # a parameter
        if isinstance(node, gast.Name):
            return S.name(self.parts[node.id][k]) if node.id in self.lengths else S.clone(node)
        if isinstance(node, gast.UnaryOp) and self._is_array(node.operand):
            return gast.UnaryOp(node.op, self._element_of(node.operand, k))
        if isinstance(node, gast.BinOp) and (self._is_array(node.left)
                                             or self._is_array(node.right)):
            return gast.BinOp(self._element_of(node.left, k), node.op,
                              self._element_of(node.right, k))
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                and (node.value.id in self.pairs or node.value.id in self.tuples):
            return gast.Subscript(S.clone(node), S.const(k), gast.Load())  # a kernel's array
        if isinstance(node, gast.Call) and self._is_array(node):
            func = node.func
            if isinstance(func, gast.Name) and func.id in ("broadcast_view", "array_copy",
                                                           "unbroadcast"):
                return self._element_of(node.args[0], k)
            if isinstance(func, gast.Name) and func.id == "unshared":
                return self._element_of(node.args[1], k)
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
                return S.const(float(literal_value(node.args[0].elts[k])))
        return self._replace_reads(S.clone(node))  # a number: the same for each element

    def _is_array(self, node):
        if isinstance(node, gast.Name) and node.id in self.results:
            return True
        return self._length(node, self.lengths) is not None

    def _replace_reads(self, tree):
        """`v[k]` and `v.shape` of the small arrays v read in `tree` (in place)."""
        lengths = self.lengths

        class Reads(gast.NodeTransformer):
            def visit_Call(inner, node):
                if self.small_sum(node, lengths):  # np.sum(e): its elements added in order
                    n = self._length(node.args[0], lengths)
                    total = self._element_of(node.args[0], 0)
                    for k in range(1, n):
                        total = gast.BinOp(total, gast.Add(), self._element_of(node.args[0], k))
                    return gast.copy_location(total, node)
                inner.generic_visit(node)
                return node

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
                        and (node.value.id in lengths or node.value.id in self.given):
                    n = lengths.get(node.value.id, self.given.get(node.value.id))
                    return gast.copy_location(S.parse_expr(f"({n},)"), node)
                return node

        return Reads().visit(tree)


def _is_lane(name: str, prefix: str) -> bool:
    """`name` is `prefix` and a lane number (`p_dot_0`: lane 0 of unrolled vector mode)."""
    return name.startswith(prefix) and name[len(prefix):].isdigit()


def _length_guards(given: dict) -> list:
    """`if p.shape[0] != n: raise ValueError(...)` for each parameter of a length the code
    is specialized for: the callers never pass another (srcad/build/length_specialization.py),
    and code that reads the elements as constants must not run on one."""
    return [S.parse_stmts(f"if {p}.shape[0] != {n}:\n"
                         f"    raise ValueError('srcad: code specialized for {n} elements of "
                         f"{p} called with another length')")[0]
            for p, n in sorted(given.items())]
