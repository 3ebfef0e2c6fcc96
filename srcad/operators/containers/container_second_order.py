"""hvp, gradient_and_hvp and hessian with a container x (a dict, list or tuple of float arrays
and floats, nested), as for an array x (srcad/operators/second_order.py): forward over reverse on
the python backend, reverse over forward on numba
(srcad/operators/containers/container_reverse_over_forward.py).

Forward over reverse: the reverse code of f with x as `Duplicated(x, shadow)` takes each leaf
and its shadow as arguments of their own (srcad/transform/normalize/containers.py); it is plain
Python, so srcad's forward (vector) mode runs over it: leaf k's value carries the tangent lane,
its shadow's tangent ends as (H v) for leaf k. Either way a float leaf rides in a one-element
array, read as `leaf[0]` (pytrees.BOXED), so every float leaf has a shadow array.

Layout (JAX's `jax.hessian` of a pytree): `hvp` returns a container like x; `hessian` a
container like x whose entry for leaf i is a container like x whose entry for leaf j has
shape `shape_i + shape_j` (a float for two float leaves): `H["w"]["b"][p, q]` is
d^2 f / d w[p] d b[q]. Non-float leaves (ints, bools, None) are copied from x.
"""

from __future__ import annotations

import dataclasses
import weakref

import numpy as np

from srcad.analysis.value_types import FLOAT
from srcad.annotations import (
    BatchDuplicated,
    Cache,
    Constant,
    Duplicated,
    Forward,
    Output,
    Reverse,
)
from srcad.build.arguments import _Call
from srcad.build.differentiate import _compiled, autodiff
from srcad.errors import ArgumentError, SecondOrderRefusal, SrcadError
from srcad.frontend import pytrees
from srcad.operators.containers.container_calls import flatten_arguments
from srcad.operators.containers.container_reverse_over_forward import ReverseOverForwardLanes
from srcad.operators.reverse_over_forward import in_user_code, refuses_forward_mode_of_f


def is_float_leaf(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    return isinstance(value, (float, np.floating))


def _is_float_number(value) -> bool:
    return isinstance(value, (float, np.floating))


def _as_arrays(x):
    """x with every float leaf a one-element array (so it has a shadow in reverse mode; the
    code reads it as `leaf[0]`)."""
    values = [np.array([float(v)]) if _is_float_number(v) else v for v in pytrees.leaves(x)]
    return pytrees.unflatten(pytrees.treedef(x), values)


def _leaf_count(arg) -> int:
    value = arg.value if isinstance(arg, Duplicated) else arg
    return len(pytrees.leaves(value)) if pytrees.is_container(value) else 1


class ContainerSecondOrder:
    """hvp, gradient_and_hvp and hessian of f at a container x: forward over reverse (python)
    or reverse over forward (numba, or mode='reverse-over-forward'), in JAX's layout."""

    def __init__(self, f, args, x_position, backend, reverse_over_forward,
                 with_gradient=False, fall_back=True):
        if any(isinstance(a, Output) for a in args):
            raise ArgumentError("hvp, gradient_and_hvp and hessian need a float-valued f (no "
                                "Output argument)")
        original = args[x_position]
        numbers = [_is_float_number(v) for v in pytrees.leaves(original)]
        x = _as_arrays(original)
        self.tree = pytrees.treedef(x)
        self.given = pytrees.leaves(x)
        annotated = []
        for i, a in enumerate(args):
            if i == x_position:
                annotated.append(Duplicated(x, pytrees.tree_zeros_like(x)))
            elif isinstance(a, Cache):
                annotated.append(Duplicated(a.value, np.zeros_like(a.value)))
            else:
                annotated.append(a.value if isinstance(a, Constant) else a)
        # every float leaf of x boxed: its leaves flatten alike in either mode
        flat, layout, _ = flatten_arguments(Reverse, annotated)
        layout = tuple((p, pytrees.boxed(t, numbers)) if p == x_position else (p, t)
                       for p, t in layout)
        # leaf k of x sits at flat position first + k
        first = sum(_leaf_count(a) for a in annotated[:x_position])
        # forward over reverse refusing a construct of srcad's reverse code: reverse over
        # forward instead, unless a mode was asked for (as srcad/operators/second_order_setup.py)
        self.fall_back = fall_back and not reverse_over_forward
        self._reverse_over_forward = (f, flat, layout, first, len(self.given), backend,
                                      with_gradient)
        self.origin = getattr(getattr(f, "__code__", None), "co_filename", "")
        if reverse_over_forward:
            self.engine = ReverseOverForwardLanes(*self._reverse_over_forward)
        else:
            self.engine = _ForwardOverReverseLanes(f, flat, layout, first, len(self.given))
        compiled = self.engine.forward if reverse_over_forward else self.engine.reverse
        _check_float_valued(f, compiled, args)

    def hvp(self, tangent, original_x):
        """H v, a container like x."""
        return self.gradient_and_hvp(tangent, original_x)[1]

    def gradient_and_hvp(self, tangent, original_x):
        """(grad f, H v) from one pass, containers like x; the gradient is None where the
        engine does not find it on the way (`engine.gradient`)."""
        pytrees.check_congruent(original_x, tangent, "the tangent")
        t = []
        for v, g, path in zip(pytrees.leaves(tangent), pytrees.leaves(original_x),
                              pytrees.paths(self.tree)):
            if not is_float_leaf(g):
                t.append(None)
                continue
            if np.shape(v) != np.shape(g):
                raise ArgumentError(f"the tangent's {pytrees.describe(path)} has shape "
                                    f"{np.shape(v)}, expected {np.shape(g)}",
                                    construct="tangent")
            t.append(np.array(v, dtype=float).reshape(np.shape(g) or (1,)))
        (result,) = self._lanes([t])
        gradient = self.engine.gradient
        return (None if gradient is None else self._like_x(gradient, original_x),
                self._like_x(result, original_x))

    def _lanes(self, tangents):
        """The engine's lanes; a refusal of srcad's own reverse code by forward mode runs
        reverse over forward instead (when no mode was asked for), else names f's lines."""
        try:
            return self.engine.lanes(tangents)
        except SrcadError as err:
            if not all((p.filename or "").startswith("<srcad")
                       or isinstance(p, SecondOrderRefusal) for p in err.problems):
                raise
            if not self.fall_back:
                raise in_user_code(err, self.origin, "reverse") from None
            try:
                self.engine = ReverseOverForwardLanes(*self._reverse_over_forward)
            except SrcadError as second:
                if refuses_forward_mode_of_f(second):
                    raise
                raise in_user_code(err, self.origin, "reverse") from None
            self.fall_back = False
            return self.engine.lanes(tangents)

    def _like_x(self, values, original_x):
        """Per-leaf boxed results as a container like x (non-float leaves copied)."""
        given = pytrees.leaves(original_x)
        return pytrees.unflatten(self.tree, [g if v is None else self._shaped(v, g)
                                             for v, g in zip(values, given)])

    def hessian(self, original_x, chunk):
        """JAX's layout: H[leaf i][leaf k] of shape shape_i + shape_k, d^2 f / dx_i dx_k."""
        given = pytrees.leaves(original_x)
        floats = [k for k, g in enumerate(given) if is_float_leaf(g)]
        units = [(k, e) for k in floats for e in range(self.given[k].size)]
        blocks = {(i, k): np.zeros(np.shape(given[i]) + np.shape(given[k]))
                  for i in floats for k in floats}
        width = max(1, min(chunk or 16, len(units) or 1))
        for start in range(0, len(units), width):
            group = units[start:start + width]
            tangents = []
            for k, e in group:
                t = [np.zeros_like(g) if is_float_leaf(g) else None for g in self.given]
                t[k].reshape(-1)[e] = 1.0
                tangents.append(t)
            for (k, e), column in zip(group, self._lanes(tangents)):
                for i in floats:
                    block = blocks[i, k].reshape(np.shape(given[i]) + (-1,))
                    block[..., e] = column[i].reshape(np.shape(given[i]))
        rows = []
        for i, g in enumerate(given):
            if i not in floats:
                rows.append(g)
                continue
            row = [blocks[i, k] if k in floats else given[k] for k in range(len(given))]
            row = [float(b) if isinstance(b, np.ndarray) and b.shape == () else b for b in row]
            rows.append(pytrees.unflatten(self.tree, row))
        return pytrees.unflatten(self.tree, rows)

    @staticmethod
    def _shaped(value, given):
        """A result for leaf `given` from its boxed lane: a float for a float leaf."""
        if isinstance(given, np.ndarray):
            return value.reshape(given.shape)
        return float(value[0])


_FLOAT_VALUED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # generated functions


def _check_float_valued(f, compiled, args) -> None:
    """f returns one float: not nothing nor a tuple (read from its code), nor an array (the
    type srcad inferred for its returned value; else f run once, on copies, per generated
    code: the argument types it was built for fix that)."""
    if not compiled.returns_value or compiled.tuple_return:
        raise ArgumentError("hvp, gradient_and_hvp and hessian need f to return a float",
                            hint="use jacobian for functions returning arrays or tuples")
    if compiled.function in _FLOAT_VALUED or compiled.returned == FLOAT:
        return
    result = f(*[_fresh(a.value if isinstance(a, (Constant, Cache)) else a) for a in args])
    if not isinstance(result, (float, int, np.floating, np.integer)):
        raise ArgumentError(f"hvp, gradient_and_hvp and hessian need f to return a float, got "
                            f"{type(result).__name__}"
                            + (f" of shape {result.shape}" if isinstance(result, np.ndarray)
                               else ""),
                            hint="use jacobian for functions returning arrays")
    _FLOAT_VALUED[compiled.function] = True


def _fresh(value):
    """`value` with its arrays copied (f may write them)."""
    if pytrees.is_container(value):
        return pytrees.unflatten(pytrees.treedef(value),
                                 [_fresh(v) for v in pytrees.leaves(value)])
    return value.copy() if isinstance(value, np.ndarray) else value


class _ForwardOverReverseLanes:
    """H v for per-leaf tangents by srcad's forward (vector) mode over the python reverse code
    of f over x's leaves: leaf k's value carries the tangent lane, the tangent of its shadow
    ends as (H v)_k."""

    def __init__(self, f, flat, layout, first, count):
        # noqa: PLC0415 - they import this module's
        # importers
        self.flat = flat
        call = _Call(Reverse, self.flat, None, "python")
        request = dataclasses.replace(call.request(Reverse, "python", 0), containers=layout)
        self.reverse = _compiled(f, request)  # list tapes, loops taped whole (memory=0)
        self.first, self.count = first, count
        self.gradient = None

    def lanes(self, tangents):
        """For each tangent (a list of per-leaf arrays, one per float leaf of x, None for
        the others), H v as the same per-leaf list."""
        width = len(tangents)
        leaf_shadows = {}  # leaf index -> its shadow lanes (tangent of the adjoint)
        self.gradient = [None] * self.count  # the shadows' values: grad f, on the way
        args = []
        for position, a in enumerate(self.flat):
            value = a.value if isinstance(a, Duplicated) else a
            if not isinstance(a, Duplicated):
                args.append(value)
                continue
            k = position - self.first
            is_x = 0 <= k < self.count
            value_lanes = [t[k] for t in tangents] if is_x else \
                [np.zeros_like(value) for _ in range(width)]
            shadow_lanes = [np.zeros_like(value) for _ in range(width)]
            shadow = np.zeros_like(value)
            if is_x:
                leaf_shadows[k] = shadow_lanes
                self.gradient[k] = shadow
            args.append(BatchDuplicated(value, value_lanes) if width > 1
                        else Duplicated(value, value_lanes[0]))
            args.append(BatchDuplicated(shadow, shadow_lanes) if width > 1
                        else Duplicated(shadow, shadow_lanes[0]))
        args.append(1.0)
        autodiff(Forward, self.reverse.function, *args,
                 batch="unrolled" if width > 1 else None)
        return [[leaf_shadows[k][lane] if k in leaf_shadows else None
                 for k in range(self.count)] for lane in range(width)]
