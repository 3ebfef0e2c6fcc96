"""Operators with preparation, in the manner of DifferentiationInterface.jl.

`op(f, *args, prep=None, out=None, mode=None, chunk=None)`: exactly one argument is bare, the
input x we differentiate with respect to (a float or a float array); the others are
`Constant(c)`, `Cache(c)` or `Output(y)`. `prepare_op(f, *args, ...)` transforms, compiles,
chooses mode and chunk and allocates every seed, shadow and result buffer once; the prepared
call then refills those buffers in place. x and Constant contexts are never modified (when f
writes x, it runs on a copy the preparation holds).

`out=` aliasing: with `out=`, the result returned IS `out`, and the next call with the same
`out` overwrites it. A caller that keeps the arrays it is given (scipy's BFGS keeps the
previous gradient) must get a fresh array: call without `out=` (examples/scipy_minimize.py).

Choices when not forced:
* jacobian: forward vector mode when len(x) <= len(y), else one reverse pass per row;
* chunk (jacobian, forward gradient): python backend: a forward gradient's lanes up to 16
  unrolled into plain floats (no array allocated per call), more, and a jacobian's at every
  width, in ONE call of stacked NumPy lanes (measured: about the raw BatchDuplicated call;
  `preparation.default_width`); numba backend: lanes in arrays, looped over, equal chunks of
  at most 256. A prepared forward jacobian with lanes in arrays runs as one generated entry
  (`plans.jacobian_entry`: J.T is a 1-D Output's tangent, no copy; tangents the code
  overwrites first are not zeroed);
* calls without prep= reuse a kept preparation (srcad/operators/prep_cache.py);
* hvp and hessian: forward-over-reverse (srcad's forward mode run over its own reverse code).

The operators live by family in srcad/operators/gradient_operators.py,
srcad/operators/jacobian_operators.py
and srcad/operators/directional_operators.py; this module keeps `srcad.operators.first_order`
importable. """

from srcad.operators.directional_operators import derivative as derivative
from srcad.operators.directional_operators import prepare_derivative as prepare_derivative
from srcad.operators.directional_operators import prepare_pullback as prepare_pullback
from srcad.operators.directional_operators import prepare_pushforward as prepare_pushforward
from srcad.operators.directional_operators import pullback as pullback
from srcad.operators.directional_operators import pushforward as pushforward
from srcad.operators.gradient_operators import gradient as gradient
from srcad.operators.gradient_operators import prepare_gradient as prepare_gradient
from srcad.operators.gradient_operators import (
    prepare_value_and_gradient as prepare_value_and_gradient,
)
from srcad.operators.gradient_operators import value_and_gradient as value_and_gradient
from srcad.operators.jacobian_operators import jacobian as jacobian
from srcad.operators.jacobian_operators import prepare_jacobian as prepare_jacobian
from srcad.operators.jacobian_operators import (
    prepare_value_and_jacobian as prepare_value_and_jacobian,
)
from srcad.operators.jacobian_operators import value_and_jacobian as value_and_jacobian
