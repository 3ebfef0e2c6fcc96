"""hvp and hessian with a container x (a dict, list or tuple of float arrays and floats, nested):
forward over reverse, as for an array x (srcad/second_order.py), over the flat reverse code
of the container's leaves.

The reverse code of f with x as `Duplicated(x, shadow)` takes each leaf and its shadow as
arguments of their own (srcad/transform/containers.py); it is plain Python, so srcad's forward
(vector) mode runs over it: leaf k's value carries the tangent lane, its shadow's tangent
ends as (H v) for leaf k. A float leaf rides in a one-element array, read as `leaf[0]`
(pytrees.BOXED), so every float leaf has a shadow array.

Layout (JAX's `jax.hessian` of a pytree): `hvp` returns a container like x; `hessian` a
container like x whose entry for leaf i is a container like x whose entry for leaf j has
shape `shape_i + shape_j` (a float for two float leaves): `H["w"]["b"][p, q]` is
d^2 f / d w[p] d b[q]. Non-float leaves (ints, bools, None) are copied from x.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from srcad import pytrees
from srcad.annotations import BatchDuplicated, Cache, Constant, Duplicated, Forward, Output
from srcad.errors import ArgumentError

_REVERSE = {}  # (f, code, tree, context kinds) -> compiled reverse code over the leaves


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
    return len(pytrees.leaves(value)) if type(value) in pytrees.CONTAINERS else 1


class ContainerSecondOrder:
    """Forward over the reverse code of f at a container x (python backend)."""

    def __init__(self, f, args, x_position, backend):
        from srcad.arguments import _Call  # noqa: PLC0415 - they import this module's importers
        from srcad.container_calls import flatten_arguments  # noqa: PLC0415
        from srcad.differentiate import _compiled  # noqa: PLC0415
        if backend not in (None, "python"):
            raise ArgumentError("hvp and hessian of a parameter container run forward over "
                                "srcad's generated reverse code, which the numba backend "
                                "compiles to machine code",
                                construct=f"backend={backend!r}",
                                hint="use backend='python', or pass x as one array (the numba "
                                "backend runs hvp and hessian of an array as reverse over "
                                "forward)")
        if any(isinstance(a, Output) for a in args):
            raise ArgumentError("hvp and hessian need a float-valued f (no Output argument)")
        original = args[x_position]
        self.numbers = [_is_float_number(v) for v in pytrees.leaves(original)]
        x = _as_arrays(original)
        self.x, self.tree = x, pytrees.treedef(x)
        self.given = pytrees.leaves(x)
        annotated = []
        for i, a in enumerate(args):
            if i == x_position:
                annotated.append(Duplicated(x, pytrees.tree_zeros_like(x)))
            elif isinstance(a, Cache):
                annotated.append(Duplicated(a.value, np.zeros_like(a.value)))
            else:
                annotated.append(a.value if isinstance(a, Constant) else a)
        from srcad.annotations import Reverse  # noqa: PLC0415
        flat, layout, _ = flatten_arguments(Reverse, annotated)
        layout = tuple((p, pytrees.boxed(t, self.numbers)) if p == x_position else (p, t)
                       for p, t in layout)
        call = _Call(Reverse, flat, None, "python")
        request = dataclasses.replace(call.request(Reverse, "python", 0), containers=layout)
        compiled = _compiled(f, request)  # list tapes, loops taped whole (memory=0)
        if not compiled.returns_value or compiled.tuple_return:
            raise ArgumentError("hvp and hessian need f to return a float",
                                hint="use jacobian for functions returning arrays or tuples")
        self.function = compiled.function
        self.flat = flat
        # leaf k of x sits at flat position first + k
        self.first = sum(_leaf_count(a) for a in annotated[:x_position])

    def lanes(self, tangents):
        """For each tangent (a list of per-leaf arrays, one per float leaf of x, None for
        the others), H v as the same per-leaf list."""
        width = len(tangents)
        leaf_shadows = {}  # leaf index -> its shadow lanes (tangent of the adjoint)
        args = []
        for position, a in enumerate(self.flat):
            value = a.value if isinstance(a, Duplicated) else a
            if not isinstance(a, Duplicated):
                args.append(value)
                continue
            k = position - self.first
            is_x = 0 <= k < len(self.given)
            value_lanes = [t[k] for t in tangents] if is_x else \
                [np.zeros_like(value) for _ in range(width)]
            shadow_lanes = [np.zeros_like(value) for _ in range(width)]
            if is_x:
                leaf_shadows[k] = shadow_lanes
            args.append(BatchDuplicated(value, value_lanes) if width > 1
                        else Duplicated(value, value_lanes[0]))
            args.append(BatchDuplicated(np.zeros_like(value), shadow_lanes) if width > 1
                        else Duplicated(np.zeros_like(value), shadow_lanes[0]))
        args.append(1.0)
        from srcad.differentiate import autodiff  # noqa: PLC0415
        autodiff(Forward, self.function, *args, batch="unrolled" if width > 1 else None)
        return [[leaf_shadows[k][lane] if k in leaf_shadows else None
                 for k in range(len(self.given))] for lane in range(width)]

    def hvp(self, tangent, original_x):
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
        (result,) = self.lanes([t])
        given = pytrees.leaves(original_x)
        return pytrees.unflatten(self.tree, [g if v is None else self._shaped(v, g)
                                             for v, g in zip(result, given)])

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
            for (k, e), column in zip(group, self.lanes(tangents)):
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
