"""hvp and hessian with a container x by reverse over forward: the numba backend's second order
(srcad/operators/reverse_over_forward.py) over the leaves of the container.

srcad's forward code of f takes each leaf of x and its tangent as arguments of their own (the
leaves are parameters of the generated code, srcad/transform/normalize/containers.py; a float
leaf boxed as a one-element array, pytrees.BOXED). Rewritten to return only the tangent of f's
float result (`tangent_function`) it is leaves, directions -> grad f . v, plain Python with no
tapes, which srcad differentiates again in reverse mode on either backend: one pass with every
leaf `Duplicated` and every direction constant leaves (H v)_k in leaf k's shadow. One pass per
tangent (the Hessian: one per entry of a float leaf).

Guarantee: `ReverseOverForwardLanes.lanes` answers as the forward-over-reverse lanes of
container_second_order.py do (per-leaf boxed tangents in, per-leaf H v out), so hvp and
hessian assemble one layout whichever runs; a refusal while differentiating the forward code
names the user's file and line, never the generated module.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from srcad.annotations import Const, Duplicated, Forward, Reverse
from srcad.build.arguments import _Call
from srcad.build.differentiate import _compiled, autodiff
from srcad.errors import SrcadError
from srcad.operators.reverse_over_forward import located_in_user_code, tangent_function


class ReverseOverForwardLanes:
    """H v for per-leaf tangents by reverse passes over the tangent function of f's forward
    code. `flat`: f's arguments flattened (container_calls.flatten_arguments), x's float
    leaves boxed and `Duplicated`, at positions first, first + 1, ... (`count` leaves);
    `layout` the containers' structures."""

    def __init__(self, f, flat, layout, first, count, backend, with_gradient=False):
        # noqa: PLC0415 - they import this module's
        # importers
        self.flat = flat
        call = _Call(Forward, self.flat, None, "python")
        request = dataclasses.replace(call.request(Forward, "python"), containers=layout,
                                      lift_loops=False)
        self.forward = _compiled(f, request)  # one tangent, python: the code reverse reads
        self.origin = f.__code__.co_filename
        self.tangent = tangent_function(self.forward, self.origin)
        self.first, self.count, self.backend = first, count, backend
        # gradient_and_hvp: the directions active, their adjoints grad f (grad f . v is
        # linear in v); None once reverse mode refuses that (numba: whole-array operations
        # on the directions' tangents) and the directions stay constant
        self.with_gradient = with_gradient
        self.gradient = None

    def lanes(self, tangents):
        """For each tangent (per-leaf boxed arrays, None for the leaves that are not
        floats), H v as the same per-leaf list: one reverse pass each."""
        return [self._pass(t) for t in tangents]

    def _pass(self, tangent):
        try:
            return self._reverse_pass(tangent)
        except SrcadError as err:
            if not self.with_gradient:
                raise located_in_user_code(err, self.tangent, self.origin) from None
        self.with_gradient, self.gradient = False, None
        try:
            return self._reverse_pass(tangent)
        except SrcadError as err:
            raise located_in_user_code(err, self.tangent, self.origin) from None

    def _reverse_pass(self, tangent):
        args, shadows = [], [None] * self.count
        gradient = [None] * self.count
        for position, a in enumerate(self.flat):
            if not isinstance(a, Duplicated):
                args.append(a)
                continue
            k = position - self.first
            shadow = np.zeros_like(a.value)
            args.append(Duplicated(a.value, shadow))
            if 0 <= k < self.count:  # a leaf of x, then its direction
                shadows[k] = shadow
                if self.with_gradient:
                    gradient[k] = np.zeros_like(a.value)
                    args.append(Duplicated(tangent[k], gradient[k]))
                else:
                    args.append(Const(tangent[k]))
            else:  # a Cache, then its tangent: scratch, zero at each pass
                args.append(Duplicated(np.zeros_like(a.value), np.zeros_like(a.value)))
        autodiff(Reverse, self.tangent, *args, backend=self.backend)
        self.gradient = gradient if self.with_gradient else None
        return shadows
