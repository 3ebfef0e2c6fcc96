"""JAX-style function transforms: `grad`, `value_and_grad`, `jacfwd`, `jacrev` (and `hessian`,
srcad/api/hessian_transform.py; `jvp`, `vjp`, srcad/api/jvp_vjp.py).

Each takes a function and returns a function with the same positional arguments. `argnums`
says which arguments are differentiated (an int, or a tuple of ints for a tuple of results,
as in JAX); every other argument is a constant. Keyword arguments are passed to the function
and never differentiated. So a transformed function drops into code that expects a plain
callable, such as `scipy.optimize.minimize(f, x0, jac=srcad.grad(f))`.

The transforms only compose the public API: `grad`, `value_and_grad` and `jacrev` are
reverse-mode `autodiff` calls (one pass for a float output; for an array output W output
rows per pass on the python backend, srcad/api/reverse_rows.py), `jacfwd` is one batched
forward-mode `autodiff` call over the unit vectors of every argnum. What they guarantee:

* a differentiated argument is a float, a float NumPy array, or a dict, list or tuple of them
  nested (a pytree of parameters); an int is refused with `ArgumentError`, as JAX refuses
  integer inputs;
* the derivative with respect to a float is a float, with respect to an array an array
  shaped like it, with respect to a pytree a pytree of the same structure (tuples kept); a
  Jacobian has shape `output.shape + input.shape` (JAX's convention), and over a pytree of
  parameters it is the pytree with those blocks as leaves, as `jax.jacrev` gives it
  (srcad/api/packing.py: the container operators of srcad/operators/containers/);
* `grad` refuses a function that does not return a float rather than differentiate the sum
  of its outputs;
* a transformed function is refused if differentiated again (srcad/frontend/parse.py), rather than
  differentiated as the function it wraps;
* with `has_aux=True` (srcad/api/auxiliary.py) only the value of `(value, aux)` is
  differentiated; aux is any Python value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from srcad.annotations import (
    BatchDuplicated,
    Constant,
    Forward,
    Reverse,
    ReverseWithPrimal,
)
from srcad.api.argnums import (
    bind_keywords,
    check_argnums,
    numpy_floats,
    resolve_argnums,
    signature,
    unit_lanes,
)
from srcad.api.auxiliary import ValueOnly
from srcad.api.composed import composed, is_composed, mark
from srcad.api.nested_results import tuple_results
from srcad.api.packing import unpacked
from srcad.api.primals import as_lists, reverse_annotation, reverse_derivative, tree_copy
from srcad.api.reverse_rows import reverse_rows
from srcad.api.transform_calls import bound, has_containers, run, target_of
from srcad.api.wrapping import wraps
from srcad.build.transform_outputs import (
    checked_output,
    dtype_of,
    float_output,
    result,
    shaped,
)
from srcad.operators.background_operators import background_function
from srcad.operators.first_order import jacobian as jacobian_operator
from srcad.operators.reverse_lane_count import call_peak

Argnums = int | Sequence[int]

_SHAPE_MEMO_SIZE = 32  # jacrev: output shapes remembered per argument signature


def grad(fun: Callable[..., float], argnums: Argnums = 0, has_aux: bool = False, *,
         backend: str = "python", compile: str = "wait") -> Callable[..., Any]:
    """A function computing the gradient of the float-valued `fun` (reverse mode).

    Args:
        fun: a plain Python function srcad can differentiate, returning a float.
        argnums: the position of the argument to differentiate, or a tuple of positions (the
            gradient is then a tuple, one entry per position).
        has_aux: `fun` returns a pair `(value, aux)`; only the value is differentiated and
            the transformed function returns `(gradient, aux)` (aux from one more plain
            call of `fun`).
        backend: "python" or "numba", as for `srcad.autodiff`.
        compile: numba backend: "wait" or "background" (the python backend answers
            while numba compiles), as for `srcad.autodiff`.

    Returns:
        A function of the same arguments as `fun` returning the gradient: a float for a
        float argument, an array shaped like the argument for an array.

    >>> def f(x, y):
    ...     return x * x * y
    >>> grad(f)(3.0, 2.0)
    12.0
    >>> grad(f, argnums=(0, 1))(3.0, 2.0)
    (12.0, 9.0)
    """
    if compile != "wait":
        return _in_background(grad, fun, argnums, has_aux, backend, compile)
    if is_composed(fun):
        return composed("grad", fun, argnums, has_aux, backend)
    value_and_gradients = _reverse_gradients(fun, "grad", argnums, has_aux, backend)
    single = isinstance(argnums, int)

    @wraps(fun)
    def gradient_of_fun(*args, **kwargs):
        _, gradients, aux = value_and_gradients(args, kwargs)
        gradients = gradients[0] if single else gradients
        return (gradients, aux) if has_aux else gradients

    if not has_aux:  # vmap batches the reverse code of fun (srcad/api/vmap.py)
        gradient_of_fun.__srcad_gradient__ = (fun, check_argnums("grad", argnums), single,
                                              backend)
    return mark(gradient_of_fun, "grad", fun, argnums, has_aux)


def value_and_grad(fun: Callable[..., float], argnums: Argnums = 0, has_aux: bool = False, *,
                   backend: str = "python", compile: str = "wait") -> Callable[..., Any]:
    """A function computing `(fun(*args), grad(fun, argnums)(*args))` in one reverse pass.

    Args:
        fun: a plain Python function srcad can differentiate, returning a float.
        argnums: the position of the argument to differentiate, or a tuple of positions
            (the result is then a tuple, one entry per position).
        has_aux: `fun` returns a pair `(value, aux)`; only the value is differentiated.
        backend: "python" or "numba", as for `srcad.autodiff`.
        compile: numba backend: "wait" or "background" (the python backend answers
            while numba compiles), as for `srcad.autodiff`.

    Returns:
        A function of the same arguments as `fun` returning `(value, gradient)`: the value
        a float, the gradient as `grad` gives it; with `has_aux=True`
        `((value, aux), gradient)`, as in JAX.

    >>> def f(x, y):
    ...     return x * x * y
    >>> value_and_grad(f)(3.0, 2.0)
    (18.0, 12.0)
    """
    if compile != "wait":
        return _in_background(value_and_grad, fun, argnums, has_aux, backend, compile)
    if is_composed(fun):
        return composed("value_and_grad", fun, argnums, has_aux, backend)
    value_and_gradients = _reverse_gradients(fun, "value_and_grad", argnums, has_aux, backend)
    single = isinstance(argnums, int)

    @wraps(fun)
    def value_and_gradient_of_fun(*args, **kwargs):
        value, gradients, aux = value_and_gradients(args, kwargs)
        return (value, aux) if has_aux else value, gradients[0] if single else gradients

    return mark(value_and_gradient_of_fun, "value_and_grad", fun, argnums, has_aux)


def _in_background(transform, fun, argnums, has_aux, backend, compile_):
    """`transform` of `fun` with compile="background": the python backend answers a call
    until numba has compiled the code for its argument types on a thread
    (srcad/operators/background_operators.py)."""
    name = transform.__name__
    numba, python = (transform(fun, argnums, has_aux, backend=b) for b in ("numba", "python"))
    return mark(background_function(name, fun, compile_, backend, numba, python), name, fun,
                argnums, has_aux)


def _reverse_gradients(fun, transform, argnums, has_aux, backend):
    """(args, kwargs) -> (fun's value, the gradients of every argnum, aux or None): one
    reverse pass."""
    positions = check_argnums(transform, argnums)
    lowest, highest = min(positions), max(positions)
    value_only = ValueOnly(fun, transform) if has_aux else None

    def at(args, kwargs):
        if kwargs:
            args = bind_keywords(fun, transform, argnums, args, kwargs)
        target, args, aux = target_of(fun, value_only, args)
        wrt = positions if lowest >= 0 and highest < len(args) \
            else resolve_argnums(argnums, positions, len(args))
        args = numpy_floats(args, wrt)
        annotated = list(args)
        for i in wrt:
            annotated[i] = reverse_annotation(args[i], i, transform)
        derivatives, value = run(transform, ReverseWithPrimal, target, annotated, 1.0, backend)
        value = float_output(value, transform, fun)
        gradients = tuple(reverse_derivative(args[i], annotated[i], derivatives[i])
                          for i in wrt)
        return value, gradients, aux

    return at


def jacfwd(fun: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False, *,
           backend: str = "python", compile: str = "wait") -> Callable[..., Any]:
    """A function computing the Jacobian of `fun` in forward mode: one batched forward call
    propagates a tangent lane per input element (of every argnum at once).

    Args:
        fun: a plain Python function srcad can differentiate, returning a float or a float array.
        argnums: the position of the argument to differentiate, or a tuple of positions
            (the result is then a tuple, one entry per position).
        has_aux: `fun` returns a pair `(value, aux)`; only the value is differentiated.
        backend: "python" or "numba", as for `srcad.autodiff`.
        compile: numba backend: "wait" or "background" (the python backend answers
            while numba compiles), as for `srcad.autodiff`.

    Returns:
        A function of the same arguments as `fun` returning the Jacobian: with respect to an
        argument it has shape `output.shape + argument.shape` (the gradient for a float
        output, the derivative for a float argument, a float when both are floats); a
        tuple `argnums` gives a tuple; with `has_aux=True` the result is `(jacobian, aux)`.

    >>> import numpy as np
    >>> def f(x):
    ...     y = np.zeros(2)
    ...     y[0] = x[0] * x[1]
    ...     y[1] = 3.0 * x[1]
    ...     return y
    >>> jacfwd(f)(np.array([2.0, 5.0]))
    array([[5., 2.],
           [0., 3.]])
    """
    if compile != "wait":
        return _in_background(jacfwd, fun, argnums, has_aux, backend, compile)
    if is_composed(fun):
        return composed("jacfwd", fun, argnums, has_aux, backend)
    positions = check_argnums("jacfwd", argnums)
    value_only = ValueOnly(fun, "jacfwd") if has_aux else None

    @wraps(fun)
    def jacobian_of_fun(*args, **kwargs):
        target, args, aux, wrt, values = bound(fun, "jacfwd", argnums, positions, value_only,
                                               args, kwargs)
        results = None if has_aux else tuple_results(fun)
        if results is not None:  # tuples written out: one Jacobian per value, nested
            return results.nest(_tree_jacobian("forward", results.copy, args, wrt, argnums,
                                               None, None, backend))
        if has_containers(values):
            return _tree_jacobian("forward", target, args, wrt, argnums, value_only,
                                  aux, backend)
        sizes = [int(np.size(v)) for v in values]
        width = sum(sizes)
        if width == 0:  # no tangent lane to run: the Jacobians are empty
            out_shape = np.shape(checked_output(target(*args), "jacfwd", fun))
            blocks = [np.zeros(out_shape + np.shape(v), dtype=dtype_of(v)) for v in values]
            return result(blocks, argnums, value_only, aux)
        annotated = list(args)
        start = 0
        for i, value, size in zip(wrt, values, sizes):
            annotated[i] = BatchDuplicated(value, unit_lanes(value, start, size, width))
            start += size
        tangents = checked_output(run("jacfwd", Forward, target, annotated, None, backend),
                                   "jacfwd", fun)
        out_shape = np.shape(tangents)[1:]
        blocks, start = [], 0
        for value, size in zip(values, sizes):
            block = np.moveaxis(tangents[start:start + size], 0, -1)  # out.shape + (size,)
            blocks.append(shaped(block.reshape(out_shape + np.shape(value)), value, out_shape))
            start += size
        return result(blocks, argnums, value_only, aux)

    return mark(jacobian_of_fun, "jacfwd", fun, argnums, has_aux)


def jacrev(fun: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False, *,
           backend: str = "python", compile: str = "wait") -> Callable[..., Any]:
    """A function computing the Jacobian of `fun` in reverse mode: on the python backend up
    to 2048 output elements per reverse pass (fewer where their seeds and adjoints would pass
    64 MB) where the reverse code carries lanes (element code), else one pass per output
    element (every argnum at once); one pass in all for a float output.

    Args:
        fun: a plain Python function srcad can differentiate, returning a float or a float array.
        argnums: the position of the argument to differentiate, or a tuple of positions
            (the result is then a tuple, one entry per position).
        has_aux: `fun` returns a pair `(value, aux)`; only the value is differentiated.
        backend: "python" or "numba", as for `srcad.autodiff`.
        compile: numba backend: "wait" or "background" (the python backend answers
            while numba compiles), as for `srcad.autodiff`.

    Returns:
        A function of the same arguments as `fun` returning the Jacobian, shaped as for
        `jacfwd` (whose example gives the same Jacobian with `jacrev`).

    Prefer `jacrev` when the output has fewer elements than the inputs, as for a float
    output:

    >>> import numpy as np
    >>> def f(x):
    ...     return x[0] * x[1]
    >>> jacrev(f)(np.array([2.0, 5.0]))
    array([5., 2.])
    """
    if compile != "wait":
        return _in_background(jacrev, fun, argnums, has_aux, backend, compile)
    if is_composed(fun):
        return composed("jacrev", fun, argnums, has_aux, backend)
    positions = check_argnums("jacrev", argnums)
    value_only = ValueOnly(fun, "jacrev") if has_aux else None
    output_shapes = {}  # argument signature -> (the shape of an array output, floats f holds)

    @wraps(fun)
    def jacobian_of_fun(*args, **kwargs):
        target, args, aux, wrt, values = bound(fun, "jacrev", argnums, positions, value_only,
                                               args, kwargs)
        results = None if has_aux else tuple_results(fun)
        if results is not None:  # tuples written out: one Jacobian per value, nested
            return results.nest(_tree_jacobian("reverse", results.copy, args, wrt, argnums,
                                               None, None, backend))
        if has_containers(values):
            return _tree_jacobian("reverse", target, args, wrt, argnums, value_only,
                                  aux, backend)
        key = signature(args)
        out_shape, allocated = output_shapes.get(key, (None, 0))
        if out_shape is None:
            # one pass with a scalar seed: the gradient for a float output, else the output's
            # shape (no plain call of fun: under numba the primal in Python may cost more than
            # the whole Jacobian)
            annotated = list(args)
            for i in wrt:
                annotated[i] = reverse_annotation(args[i], i, "jacrev")
            derivatives, value = run("jacrev", ReverseWithPrimal, target, annotated, 1.0,
                                      backend)
            if np.ndim(checked_output(value, "jacrev", fun)) == 0:
                blocks = [reverse_derivative(args[i], annotated[i], derivatives[i])
                          for i in wrt]
                return result(blocks, argnums, value_only, aux)
            if len(output_shapes) >= _SHAPE_MEMO_SIZE:
                output_shapes.clear()
            # python backend: the floats a call of f holds, which bound the lanes of the sweeps
            # (the adjoints of f's own arrays widen with them)
            allocated = call_peak(target, args) if backend == "python" else 0
            out_shape = np.shape(value)
            output_shapes[key] = out_shape, allocated
        blocks = reverse_rows(target, args, wrt, values, out_shape, backend, key, allocated)
        if blocks is None:  # the output's shape changed for the same signature: learn it again
            del output_shapes[key]
            return jacobian_of_fun(*args)
        blocks = [shaped(b, v, out_shape) for b, v in zip(blocks, values)]
        return result(blocks, argnums, value_only, aux)

    return mark(jacobian_of_fun, "jacrev", fun, argnums, has_aux)


def _tree_jacobian(mode, target, args, wrt, argnums, value_only, aux, backend):
    """jacfwd/jacrev with a dict, list or tuple among the differentiated arguments: the
    container jacobian with respect to each argument in argnums (the others constants), each
    block in its argument's structure (tuples kept). A tuple output gives a tuple with one
    entry per output value, as in JAX."""
    value = target(*tree_copy(args))  # f may write its input
    if type(value) is not tuple and np.ndim(value) == 0:
        # a float output: the jacobian is the gradient, one reverse pass for every argnum
        annotated = list(args)
        for i in wrt:
            annotated[i] = reverse_annotation(args[i], i, "jacrev")
        derivatives = run("jacrev", Reverse, target, annotated, 1.0, backend)
        blocks = [reverse_derivative(args[i], annotated[i], derivatives[i]) for i in wrt]
        return result(blocks, argnums, value_only, aux)
    jacobians = []
    for i in wrt:
        operands = [as_lists(a) if j == i else Constant(a) for j, a in enumerate(args)]
        jacobian = jacobian_operator(target, *operands, mode=mode, backend=backend)
        jacobians.append(tuple(unpacked(j, args[i]) for j in jacobian)
                         if type(jacobian) is tuple else unpacked(jacobian, args[i]))
    if type(jacobians[0]) is tuple:  # a tuple output: outputs outside, argnums inside
        combined = tuple(result([j[k] for j in jacobians], argnums, None, None)
                         for k in range(len(jacobians[0])))
        return (combined, aux) if value_only else combined
    return result(jacobians, argnums, value_only, aux)
