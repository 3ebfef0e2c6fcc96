"""Nested differentiation at run time: the gradient of an inner function g, called from a
function srcad differentiates, as a primitive with a derivative rule.

`transform/normalize/nested_calls.py` rewrites `srcad.grad(g)(a0, ..., an)` and
`srcad.gradient(g, x, Constant(p), ...)` in the differentiated source into
`srcad_nested_gradient(token, a0, ..., an)`, where `token` names one `NestedGradient` (g and
the position of the differentiated argument). Its rule (`nested_rule`) is, per operand a_k,

* tangent: d(grad_x g)/d a_k . t, the tangent of the gradient of g for a direction t on a_k;
* adjoint: (d(grad_x g)/d a_k)^T . s = the block (a_k, x) of g's Hessian applied to s, which,
  the Hessian being symmetric, is the tangent of grad_(a_k) g for the direction s on x.

Both are forward over reverse: srcad's forward mode run over srcad's reverse code of g (the
code `hvp` differentiates), with every float argument of g differentiated. So an outer reverse
pass differentiates the inner gradient by a Hessian-vector product of g, and an outer forward
pass by the same product with the outer tangents as directions. All of it is generated Python
(python backend); numba code cannot call back into it, so on the numba backend the calls are
renamed to numba kernels of their own, compiled into the outer code's module
(srcad/operators/nested_numba.py). Third derivatives are refused (the tangent and adjoint calls are
registered with a rule that refuses).
"""

from __future__ import annotations

import sys
import threading

import numpy as np

from srcad.analysis.types import FLOAT, Array, type_of_value
from srcad.build.differentiate import _compiled
from srcad.build.engines import scalar_as_array
from srcad.build.pipeline import NESTED, ArgSpec, Request
from srcad.errors import ArgumentError, SecondOrderRefusal
from srcad.operators.nested_numba import NumbaNested
from srcad.operators.nested_registry import LOCK as _LOCK
from srcad.operators.nested_registry import REGISTRY as _REGISTRY
from srcad.operators.nested_registry import TOKENS as _TOKENS
from srcad.operators.nested_registry import in_call_order as _in_call_order
from srcad.operators.nested_registry import position as _position
from srcad.rules import linear
from srcad.rules.table import CallInfo, register
from srcad.transform.normalize.nested_calls import PRIMITIVE

NESTED_NAME = "srcad_nested_gradient"


class _Code:
    """srcad's reverse code of g for one signature of arguments, every float argument boxed as
    a one-element array and every float array differentiated; and srcad's forward code of
    that reverse code (built on first use)."""

    def __init__(self, g, args):

        self.floats = tuple(i for i, a in enumerate(args) if type_of_value(a) == FLOAT)
        target = scalar_as_array(g, len(args), self.floats) if self.floats else g
        boxed = self.boxed(args)
        self.differentiated = tuple(i for i, a in enumerate(boxed)
                                    if isinstance(type_of_value(a), Array) and a.dtype.kind == "f")
        types = [type_of_value(a) for a in boxed]
        specs = tuple(ArgSpec("duplicated" if i in self.differentiated else "const", t)
                      for i, t in enumerate(types))
        # no run-time shape checks (transform/reverse/shape_guards.py): this code is run
        # directly and differentiated again
        self.reverse = _compiled(target, Request("reverse", specs, backend="python",
                                                 shapes_recorded=True))
        forward_specs = []
        for i, t in enumerate(types):
            forward_specs += [ArgSpec("duplicated", t)] * 2 if i in self.differentiated \
                else [ArgSpec("const", t)]
        self._forward_request = Request("forward", tuple(forward_specs) + (
            ArgSpec("const", FLOAT),), backend="python")
        self._forward = None

    def boxed(self, args):
        return [np.array([float(a)]) if i in self.floats else a for i, a in enumerate(args)]

    def forward(self):
        if self._forward is None or not self._forward.is_current():
            self._forward = _compiled(self.reverse.function, self._forward_request)
        return self._forward.function

    def gradients(self, args, g) -> dict:
        """position -> the gradient of g in that differentiated argument, at args."""
        flat, bars = [], {}
        for i, a in enumerate(self.boxed(args)):
            flat.append(a)
            if i in self.differentiated:
                bars[i] = np.zeros(a.shape)
                flat.append(bars[i])
        value = self.reverse.function(*flat, 1.0)[0]
        if np.ndim(value) != 0:  # srcad.grad of it is refused, as JAX refuses it
            raise ArgumentError(f"the nested gradient of {g.__name__}: it returns an "
                                f"array of shape {np.shape(value)}, and a gradient needs a "
                                "float output", construct="nested gradient",
                                filename=g.__code__.co_filename,
                                line=g.__code__.co_firstlineno,
                                hint="differentiate a float function of it, such as np.sum "
                                "of the array times a weight")
        return {i: _unboxed(b, i in self.floats) for i, b in bars.items()}

    def second(self, args, directions) -> dict:
        """position k -> the tangent of grad_k g for the directions given (position ->
        tangent; the others are zero): forward over reverse."""
        forward = self.forward()
        flat, bar_dots = [], {}
        for i, a in enumerate(self.boxed(args)):
            flat.append(a)
            if i not in self.differentiated:
                continue
            direction = directions.get(i)
            flat.append(np.zeros(a.shape) if direction is None else
                        np.reshape(np.asarray(direction, dtype=float), a.shape).copy())
            bar_dots[i] = np.zeros(a.shape)
            flat += [np.zeros(a.shape), bar_dots[i]]
        forward(*flat, 1.0)
        return {i: _unboxed(d, i in self.floats) for i, d in bar_dots.items()}


class NestedGradient:
    """The gradient of `g` with respect to its argument `argnum`, with the second-order
    products its rule needs."""

    def __init__(self, g, argnum: int):
        self.g, self.argnum = g, argnum
        self.codes: dict[tuple, _Code] = {}  # by the srcad types of the arguments

    def _code(self, args) -> _Code:
        key = tuple(type_of_value(a) for a in args)
        code = self.codes.get(key)
        if code is None or not code.reverse.is_current():
            code = self.codes[key] = _Code(self.g, args)
        if self.argnum not in code.differentiated:
            raise TypeError(f"srcad.grad: argument {self.argnum} of {self.g.__name__} is not "
                            "a float or a float array")
        return code

    def gradient(self, args):
        """grad_(argnum) g at args (a float for a float argument)."""
        return self._code(args).gradients(args, self.g)[self.argnum]

    def second(self, args, directions):
        """The tangents of grad_(a_k) g for every argument k, for the directions given
        (position -> tangent; the others are zero): forward over reverse."""
        return self._code(args).second(args, directions)


def _unboxed(value, was_float):
    return float(value[0]) if was_float else value


def token_for(g, argnum: int) -> int:
    """The token of grad_(argnum) g (one per function and position, kept for the process)."""
    key = (g, argnum)
    with _LOCK:
        token = _TOKENS.get(key)
        if token is None:
            token = len(_REGISTRY) + 1
            _TOKENS[key] = token
            _REGISTRY[token] = NestedGradient(g, argnum)
        return token


def srcad_nested_gradient(token, *operands):
    """grad_x g: what `srcad.grad(g, argnums=i)(*args)` computes, called as
    `srcad_nested_gradient(token, args[i], <the other args in order>)`."""
    nested = _REGISTRY[token]
    return nested.gradient(_in_call_order(nested, list(operands)))


def srcad_nested_tangent(token, k, *operands_and_direction):
    """The tangent of grad_x g for the direction t on operand k (t the last argument)."""
    *operands, direction = operands_and_direction
    nested = _REGISTRY[token]
    args = _in_call_order(nested, operands)
    return nested.second(args, {_position(nested, k): direction})[nested.argnum]


def srcad_nested_adjoint(token, k, *operands_and_seed):
    """The adjoint the seed s of grad_x g sends to operand k: H[k, x] s. The reverse sweep asks
    for every operand in a row with the same operands and seed, and one forward-over-reverse
    pass gives them all: the last pass is kept (per thread), with copies of what it read and
    the frame of the generated code that asked (a later sweep, when g may read a global
    changed in place since, computes it again)."""
    *operands, seed = operands_and_seed
    nested = _REGISTRY[token]
    caller = sys._getframe(1)
    last = getattr(_LAST, "adjoints", None)
    if last is None or last[0] != token or last[3] is not caller \
            or not _same(last[1], operands_and_seed):
        args = _in_call_order(nested, operands)
        last = _LAST.adjoints = (token, [np.copy(v) if isinstance(v, np.ndarray) else v
                                         for v in operands_and_seed],
                                 nested.second(args, {nested.argnum: seed}), caller)
    adjoint = last[2][_position(nested, k)]
    # a copy: the generated code may bind the adjoint and add into it in place
    return np.copy(adjoint) if isinstance(adjoint, np.ndarray) else adjoint


_LAST = threading.local()


def _same(kept, values) -> bool:
    """Are `values` equal, element by element and type by type, to the copies `kept`?"""
    if len(kept) != len(values):
        return False
    for a, b in zip(kept, values):
        if isinstance(a, np.ndarray) != isinstance(b, np.ndarray) or type(a) is not type(b):
            return False
        if isinstance(a, np.ndarray):
            if a.shape != b.shape or a.dtype != b.dtype or not np.array_equal(a, b):
                return False
        elif a != b:
            return False
    return True


def nested_rule(ranks, keywords):
    """The rule of `srcad_nested_gradient(token, x, a1, ..., an)`: shaped like x."""
    count = len(ranks) - 1
    operands = " ".join(["t"] + [f"a{k}" for k in range(count)])
    listed = ", ".join(f"a{k}" for k in range(count))
    pairs = [(None, None)] + [(f"srcad_nested_tangent(t, {k}, {listed}, g)",
                               f"srcad_nested_adjoint(t, {k}, {listed}, g)") for k in range(count)]
    shape = "a0_shape" if ranks[1] else "()"
    return linear("nested_gradient", operands, *pairs, shape=shape, rank=ranks[1])


register(srcad_nested_gradient, CallInfo(NESTED_NAME, None, "float", select=nested_rule))

NESTED["numba"] = NumbaNested  # the kernels of its calls on the numba backend

# names the generated code calls (pipeline.py adds them to its namespace)
NESTED_RUNTIME = {f.__name__: f for f in (srcad_nested_gradient, srcad_nested_tangent,
                                          srcad_nested_adjoint)}
NESTED["runtime"] = NESTED_RUNTIME
# what srcad.grad(g)(...) inside a differentiated function is rewritten into
PRIMITIVE.update(function=srcad_nested_gradient, token_for=token_for)


def _third_order(ranks, keywords):
    raise SecondOrderRefusal("differentiating the derivative of a nested srcad.grad/srcad.gradient "
                     "call (a third derivative) is not supported", construct="nested gradient",
                     hint="differentiate the function with the nested call once (reverse or "
                     "forward mode); hvp, hessian and second_derivative of it are third "
                     "derivatives of the inner function")


for _runtime in (srcad_nested_tangent, srcad_nested_adjoint):
    register(_runtime, CallInfo(_runtime.__name__, None, "float", select=_third_order))
