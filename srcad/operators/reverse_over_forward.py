"""Second order by reverse over forward: srcad's reverse mode run over srcad's forward code.

The forward code of f (python backend, one tangent) is plain Python with no tapes; rewritten
to return only the tangent of f's float result (`tangent_function`), it is
x, v -> grad f(x) . v, a function srcad differentiates again in reverse mode, on either
backend. Its gradient in x is H v. This is how the numba backend computes second order: the
numba reverse code of f takes and returns tape arrays the forward transform cannot
differentiate, while the forward code of f is an ordinary function for the numba reverse
transform (forward over reverse, `engines.HessianEngine`, stays the python backend's choice).

Guarantee: `ReverseOverForwardEngine` speaks the lane protocol of the forward engine that
`second_order.py` drives (one lane: `x_lanes`, `output_lanes`, `seed`, `seed_basis`, `run`),
and a refusal while differentiating the forward code names the user's file and line (the
`# line N:` comment the forward code carries), never the generated module.
"""

from __future__ import annotations

import ast
import math
import re
import weakref

import numpy as np

from srcad.build.differentiate import _compiled
from srcad.build.engines import ReverseEngine, Slot, _spec, input_copied
from srcad.build.pipeline import Request
from srcad.errors import ArgumentError, SecondOrderRefusal, SrcadError
from srcad.frontend.source_functions import compile_source

# forward code's function -> its tangent-only rewrite (one per forward code, so srcad's cache,
# keyed by the function object, builds the reverse code of it once)
_TANGENTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def tangent_function(forward, origin: str):
    """The forward code `forward` (a `Compiled`) of a float-valued f (`return value,
    (tangent,)`) rewritten to `return tangent`, compiled as a plain function with source in
    srcad's line cache. The rewrite edits the text (the last statement and the name), so the
    `# line N:` comments that lead back to f stay."""
    forward_function = forward.function
    tangent = _TANGENTS.get(forward_function)
    if tangent is not None:
        return tangent
    text = str(forward.source)
    function = ast.parse(text).body[0]
    last = function.body[-1]
    returned = last.value if isinstance(last, ast.Return) else None
    if not (isinstance(returned, ast.Tuple) and len(returned.elts) == 2
            and isinstance(returned.elts[1], ast.Tuple) and len(returned.elts[1].elts) == 1):
        raise SrcadError("second order needs f to return one float", filename=origin,
                         construct="return", hint="return a single float from f")
    lines = text.splitlines()
    indent = lines[last.lineno - 1][:last.col_offset]
    lines[last.lineno - 1:last.end_lineno] = [
        f"{indent}return {ast.unparse(returned.elts[1].elts[0])}"]
    name = f"{function.name}_tangent"
    lines[function.lineno - 1] = lines[function.lineno - 1].replace(
        f"def {function.name}(", f"def {name}(", 1)
    source = _modules_by_their_names("\n".join(lines) + "\n", function,
                                     forward_function.__globals__)
    tangent = compile_source(source, name, forward_function.__globals__, origin)
    _TANGENTS[forward_function] = tangent
    return tangent


def _modules_by_their_names(text: str, function, namespace) -> str:
    """`text` with the names the forward code binds to `math` or `numpy` (an inlined
    function's module alias, `math_quartic`) written `math` and `np`: the numba backend
    embeds only those modules."""
    aliases = {node.id: name for node in ast.walk(function) if isinstance(node, ast.Name)
               and node.id not in _MODULES
               for name, module in _MODULES.items() if namespace.get(node.id) is module}
    for alias, name in aliases.items():
        text = re.sub(rf"\b{alias}\b", name, text)
    return text


_MODULES = {"math": math, "np": np}


def located_in_user_code(err: SrcadError, tangent, origin: str) -> SrcadError:
    """`err`, raised inside the forward code `tangent`, at the user's line it came from."""
    return in_user_code(err, origin, "forward")


def in_user_code(err: SrcadError, origin: str, kind: str, hint: str | None = None):
    """`err` as the user's code meets it: each problem raised inside srcad's generated
    `kind` code (forward or reverse), which second order differentiates again, is put at
    the user's line that code came from (the nearest `# line N:` comment above it) and
    told in the user's words: its message spells srcad's generated code (`y_dot`,
    `np.broadcast_to(...)`, `raise LoopShapeError`), which the user never wrote."""
    import linecache
    problems = []
    for p in err.problems:
        if not (p.filename or "").startswith("<srcad") or p.line is None:
            problems.append(p)
            continue
        lines = linecache.getlines(p.filename)
        user_line = None
        for k in range(min(p.line, len(lines)) - 1, -1, -1):
            comment = re.match(r"\s*# line (\d+):", lines[k])
            if comment:
                user_line = int(comment.group(1))
                break
        told = p.message if isinstance(p, SecondOrderRefusal) else (
            f"second order (hessian, hvp) of this line is not supported: srcad "
            f"differentiates its own {kind} code of f again, and cannot here")
        problem = type(p)(told, filename=origin, line=user_line,
                          construct=p.construct or "second order", hint=hint)
        if not any(str(q) == str(problem) for q in problems):  # one line's several steps
            problems.append(problem)
    return SrcadError.combine(problems, filename=origin)


class ReverseOverForwardEngine:
    """H v by one reverse pass over the tangent function of f: x duplicated (its adjoint is
    H v), the direction v and the other arguments constant. One lane (`width` 1): the
    Hessian takes one pass per column.

    `with_gradient` (`gradient_and_hvp`): the direction is duplicated too, and the same pass
    leaves the gradient of f in its adjoint (`gradient`): grad f . v is linear in v, so its
    gradient in v is grad f, exactly. Where srcad's reverse mode refuses the tangent function
    with an active direction (numba: whole-array operations on the direction's tangents), the
    gradient takes a reverse pass of f of its own instead (`gradient_pass`)."""

    width = 1

    def __init__(self, f, slots: list, backend: str, with_gradient: bool = False):
        self.backend = backend
        origin = getattr(getattr(f, "__code__", None), "co_filename", "")
        specs = tuple(_spec(s, True) for s in slots)
        try:
            self.forward = _compiled(f, Request("forward", specs, backend="python",
                                                           lift_loops=False))
        except SrcadError as err:  # f's own forward mode: its refusal, without a mode hint
            raise forward_mode_refused(err) from None
        written = [k for k, s in enumerate(slots) if s.role == "x" and k in self.forward.written]
        if written:  # f writes elements of x: differentiate f of a copy of x
            f = input_copied(f, len(slots), written[0])
            origin = f.__code__.co_filename
            try:
                self.forward = _compiled(f, Request("forward", specs, backend="python",
                                                    lift_loops=False))
            except SrcadError as err:
                raise forward_mode_refused(err) from None
            refuse_written_input(self.forward, slots, f)
        tangent = tangent_function(self.forward, origin)
        self.direction = np.zeros_like(next(s.value for s in slots if s.role == "x"))
        self.gradient_pass, self.gradient = None, None
        try:
            inner = self._inner_slots(slots, with_gradient)
            self.reverse = ReverseEngine(tangent, inner, backend, value_unused=True)
        except SrcadError as err:
            if not with_gradient:
                raise located_in_user_code(err, tangent, origin) from None
            self.gradient_pass = ReverseEngine(f, slots, backend)
            self.gradient = np.zeros_like(self.direction)
            inner = self._inner_slots(slots, False)
            try:
                self.reverse = ReverseEngine(tangent, inner, backend, value_unused=True)
            except SrcadError as err:
                raise located_in_user_code(err, tangent, origin) from None
        self.values = [s.value for s in inner]
        self.x_bar = np.zeros_like(self.direction)
        if with_gradient and self.gradient_pass is None:
            # the direction's adjoint (a Cache's shadow, zeroed by each run): grad f
            shadow = self.reverse.value_index[self.direction_position] + 1
            self.gradient = self.reverse.flat[shadow]
        self.engine = self  # the lane protocol second_order.py drives
        self.x_lanes, self.output_lanes = [self.direction], [self.x_bar]

    def _inner_slots(self, slots, active_direction: bool) -> list:
        """The tangent function's arguments: each of f's, x followed by the direction
        (constant, or a Cache whose shadow is grad f), a Cache followed by its tangent."""
        inner, self.user_positions, self.scratch = [], [], []
        for slot in slots:
            self.user_positions.append(len(inner))
            if slot.role == "x":
                self.direction_position = len(inner) + 1
                inner += [Slot("x", slot.value),
                          Slot("cache" if active_direction else "constant", self.direction)]
            elif slot.role == "cache":  # its tangent is scratch too, zeroed per pass
                self.scratch.append(np.zeros_like(slot.value))
                inner += [Slot("cache", slot.value), Slot("cache", self.scratch[-1])]
            else:
                inner.append(Slot("constant", slot.value))
        return inner

    def set_values(self, values, positions=None):
        for position, value in zip(self.user_positions, values):
            self.values[position] = value
        self.reverse.set_values(self.values)
        if self.gradient_pass is not None:
            self.gradient_pass.set_values(values)

    def is_current(self) -> bool:
        return self.forward.is_current()

    def seed(self, tangents):
        self.direction[...] = tangents[0]

    def seed_basis(self, start: int, size: int):
        self.direction.fill(0.0)
        if start < size:
            self.direction.reshape(-1)[start] = 1.0

    def run(self):
        if self.gradient_pass is not None:
            self.gradient_pass.run(self.gradient)
        for buffer in self.scratch:
            buffer.fill(0.0)
        return self.reverse.run(self.x_bar)


# the hint forward mode's refusal of a rule gives (srcad/analysis/rule_backends.py): reverse
# mode is no way to a second derivative
_REVERSE_MODE_HINT = "use reverse mode (gradient, grad, jacrev, pullback)"


def forward_mode_refused(err: SrcadError) -> SrcadError:
    """`err`, srcad's forward mode refusing f itself, as second order reports it: marked
    (`refuses_forward_mode_of_f`), without the hint to use reverse mode."""
    problems = []
    for p in err.problems:
        hint = None if p.hint == _REVERSE_MODE_HINT else p.hint
        told = type(p)(p.message, filename=p.filename, line=p.line, construct=p.construct,
                       hint=hint, column=p.column, context=p.context)
        problems.append(told)
    told = SrcadError.combine(problems, filename=err.filename)
    told.forward_mode_of_f = True
    return told


def refuses_forward_mode_of_f(err: SrcadError) -> bool:
    """Is `err` srcad's forward mode refusing f itself (not srcad's own code)?"""
    return getattr(err, "forward_mode_of_f", False)


def refuse_written_input(compiled, slots, f) -> None:
    """Second order of an f that writes elements of its input x is refused, naming f: its
    forward code writes x's tangent, which the reverse pass over it would take for a
    Constant written (once reported as "f writes into argument 1" of the generated code)."""
    for position, slot in enumerate(slots):
        if slot.role == "x" and position in compiled.written:
            code = getattr(f, "__code__", None)
            raise ArgumentError(
                f"f writes elements of its input (argument {position}); second order by "
                "reverse over forward (the numba backend's, and mode='reverse-over-forward') "
                "does not take such an f, and forward over reverse (the python backend's) "
                "did not apply or was not asked for",
                construct="input written", filename=getattr(code, "co_filename", None),
                line=getattr(code, "co_firstlineno", None),
                hint="copy it first in f (`x = x.copy()`) and write the copy")
