"""JAX-style function transforms: `grad`, `value_and_grad`, `jacfwd`, `jacrev`, `hessian`.

Each takes a function and returns a function with the same positional arguments. `argnums`
says which arguments are differentiated (an int, or a tuple of ints for a tuple of results,
as in JAX); every other argument is a constant. Keyword arguments are passed to the function
and never differentiated. So a transformed function drops into code that expects a plain
callable, such as `scipy.optimize.minimize(f, x0, jac=srcad.grad(f))`.

The transforms only compose the public API: `grad`, `value_and_grad` and `jacrev` are
reverse-mode `autodiff` calls (one pass for a float output, one pass per output element
otherwise, every argnum at once), `jacfwd` is one batched forward-mode `autodiff` call over
the unit vectors of every argnum, and `hessian` is the forward-over-reverse `hessian`
operator. What they guarantee:

* a differentiated argument must be a float or a float NumPy array (an int is refused with
  `ArgumentError`, like JAX refuses integer inputs);
* the derivative with respect to a float is a float, with respect to an array an array
  shaped like it; a Jacobian has shape `output.shape + input.shape` (JAX's convention);
* `grad` refuses a function that does not return a float rather than differentiate the sum
  of its outputs;
* a transformed function is refused if differentiated again (srcad/frontend/parse.py), rather than
  differentiated as the function it wraps;
* with `has_aux=True` (srcad/api/auxiliary.py) only the value of `(value, aux)` is differentiated.

`srcad.hessian` is both the operator and the transform: `hessian(f, x, *contexts)` is the
Hessian at x (the operator form), `hessian(f)` or `hessian(f, argnums=...)` a function (the
transform form).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from srcad.annotations import (
    Active,
    BatchDuplicated,
    Constant,
    Duplicated,
    Forward,
    ReverseWithPrimal,
)
from srcad.api.argnums import (
    annotate_for_reverse,
    bind_keywords,
    check_argnums,
    differentiable,
    looks_like_argnums,
    resolve_argnums,
    signature,
    unit_lanes,
)
from srcad.api.auxiliary import ValueOnly
from srcad.build.arguments import bind_arguments
from srcad.build.differentiate import autodiff
from srcad.build.progress import Progress
from srcad.build.transform_outputs import (
    checked_output,
    derivative_of,
    dtype_of,
    float_output,
    in_input_dtype,
    result,
    shaped,
)
from srcad.errors import ActivityError, ArgumentError
from srcad.operators.second_order import hessian as hessian_operator
from srcad.operators.second_order import prepare_hessian

Argnums = int | Sequence[int]

_SHAPE_MEMO_SIZE = 32  # jacrev: output shapes remembered per argument signature


def grad(fun: Callable[..., float], argnums: Argnums = 0, has_aux: bool = False, *,
         backend: str = "python") -> Callable[..., Any]:
    """A function computing the gradient of the float-valued `fun` (reverse mode).

    Args:
        fun: a plain Python function srcad can differentiate, returning a float.
        argnums: the position of the argument to differentiate, or a tuple of positions (the
            gradient is then a tuple, one entry per position).
        has_aux: `fun` returns a pair `(value, aux)`; only the value is differentiated and
            the transformed function returns `(gradient, aux)` (aux from one more plain
            call of `fun`).
        backend: "python" or "numba", as for `srcad.autodiff`.

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
    value_and_gradients = _reverse_gradients(fun, "grad", argnums, has_aux, backend)
    single = isinstance(argnums, int)

    @functools.wraps(fun)
    def gradient_of_fun(*args, **kwargs):
        _, gradients, aux = value_and_gradients(args, kwargs)
        gradients = gradients[0] if single else gradients
        return (gradients, aux) if has_aux else gradients

    gradient_of_fun.__srcad_transform__ = "grad"
    return gradient_of_fun


def value_and_grad(fun: Callable[..., float], argnums: Argnums = 0, has_aux: bool = False, *,
                   backend: str = "python") -> Callable[..., Any]:
    """A function computing `(fun(*args), grad(fun, argnums)(*args))` in one reverse pass.

    Args:
        fun: a plain Python function srcad can differentiate, returning a float.
        argnums: the position of the argument to differentiate, or a tuple of positions
            (the result is then a tuple, one entry per position).
        has_aux: `fun` returns a pair `(value, aux)`; only the value is differentiated.
        backend: "python" or "numba", as for `srcad.autodiff`.

    Returns:
        A function of the same arguments as `fun` returning `(value, gradient)`: the value
        a float, the gradient as `grad` gives it; with `has_aux=True`
        `((value, aux), gradient)`, as in JAX.

    >>> def f(x, y):
    ...     return x * x * y
    >>> value_and_grad(f)(3.0, 2.0)
    (18.0, 12.0)
    """
    value_and_gradients = _reverse_gradients(fun, "value_and_grad", argnums, has_aux, backend)
    single = isinstance(argnums, int)

    @functools.wraps(fun)
    def value_and_gradient_of_fun(*args, **kwargs):
        value, gradients, aux = value_and_gradients(args, kwargs)
        return (value, aux) if has_aux else value, gradients[0] if single else gradients

    value_and_gradient_of_fun.__srcad_transform__ = "value_and_grad"
    return value_and_gradient_of_fun


def _reverse_gradients(fun, transform, argnums, has_aux, backend):
    """(args, kwargs) -> (fun's value, the gradients of every argnum, aux or None): one
    reverse pass."""
    positions = check_argnums(transform, argnums)
    lowest, highest = min(positions), max(positions)
    value_only = ValueOnly(fun, transform) if has_aux else None

    def run(args, kwargs):
        if kwargs:
            args = bind_keywords(fun, transform, argnums, args, kwargs)
        target, args, aux = _target(fun, value_only, args)
        wrt = positions if lowest >= 0 and highest < len(args) \
            else resolve_argnums(argnums, positions, len(args))
        annotated = annotate_for_reverse(args, wrt, transform)
        derivatives, value = _run(transform, ReverseWithPrimal, target, annotated, 1.0, backend)
        value = float_output(value, transform, fun)
        gradients = tuple(derivative_of(annotated[i], derivatives[i]) for i in wrt)
        return value, gradients, aux

    return run


def jacfwd(fun: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False, *,
           backend: str = "python") -> Callable[..., Any]:
    """A function computing the Jacobian of `fun` in forward mode: one batched forward call
    propagates a tangent lane per input element (of every argnum at once).

    Args:
        fun: a plain Python function srcad can differentiate, returning a float or a float array.
        argnums: the position of the argument to differentiate, or a tuple of positions
            (the result is then a tuple, one entry per position).
        has_aux: `fun` returns a pair `(value, aux)`; only the value is differentiated.
        backend: "python" or "numba", as for `srcad.autodiff`.

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
    positions = check_argnums("jacfwd", argnums)
    value_only = ValueOnly(fun, "jacfwd") if has_aux else None

    @functools.wraps(fun)
    def jacobian_of_fun(*args, **kwargs):
        target, args, aux, wrt, values = _bound(fun, "jacfwd", argnums, positions, value_only,
                                                args, kwargs)
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
        tangents = checked_output(_run("jacfwd", Forward, target, annotated, None, backend),
                                   "jacfwd", fun)
        out_shape = np.shape(tangents)[1:]
        blocks, start = [], 0
        for value, size in zip(values, sizes):
            block = np.moveaxis(tangents[start:start + size], 0, -1)  # out.shape + (size,)
            blocks.append(shaped(block.reshape(out_shape + np.shape(value)), value, out_shape))
            start += size
        return result(blocks, argnums, value_only, aux)

    jacobian_of_fun.__srcad_transform__ = "jacfwd"
    return jacobian_of_fun


def jacrev(fun: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False, *,
           backend: str = "python") -> Callable[..., Any]:
    """A function computing the Jacobian of `fun` in reverse mode: one reverse pass per
    output element (every argnum at once), one pass in all for a float output.

    Args:
        fun: a plain Python function srcad can differentiate, returning a float or a float array.
        argnums: the position of the argument to differentiate, or a tuple of positions
            (the result is then a tuple, one entry per position).
        has_aux: `fun` returns a pair `(value, aux)`; only the value is differentiated.
        backend: "python" or "numba", as for `srcad.autodiff`.

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
    positions = check_argnums("jacrev", argnums)
    value_only = ValueOnly(fun, "jacrev") if has_aux else None
    output_shapes = {}  # argument signature -> the shape of an array output

    @functools.wraps(fun)
    def jacobian_of_fun(*args, **kwargs):
        target, args, aux, wrt, values = _bound(fun, "jacrev", argnums, positions, value_only,
                                                args, kwargs)
        key = signature(args)
        out_shape = output_shapes.get(key)
        if out_shape is None:
            # one pass with a scalar seed: the gradient for a float output, else the output's
            # shape (no plain call of fun: under numba the primal in Python may cost more than
            # the whole Jacobian)
            annotated = annotate_for_reverse(args, wrt, "jacrev")
            derivatives, value = _run("jacrev", ReverseWithPrimal, target, annotated, 1.0,
                                      backend)
            if np.ndim(checked_output(value, "jacrev", fun)) == 0:
                blocks = [derivative_of(annotated[i], derivatives[i]) for i in wrt]
                return result(blocks, argnums, value_only, aux)
            if len(output_shapes) >= _SHAPE_MEMO_SIZE:
                output_shapes.clear()
            out_shape = output_shapes[key] = np.shape(value)
        blocks = _reverse_rows(target, args, wrt, values, out_shape, backend)
        if blocks is None:  # the output's shape changed for the same signature: learn it again
            del output_shapes[key]
            return jacobian_of_fun(*args)
        blocks = [shaped(b, v, out_shape) for b, v in zip(blocks, values)]
        return result(blocks, argnums, value_only, aux)

    jacobian_of_fun.__srcad_transform__ = "jacrev"
    return jacobian_of_fun


def _reverse_rows(target, args, wrt, values, out_shape, backend):
    """The Jacobian blocks (out_shape + argument shape), one reverse pass per output element
    seeded with its unit vector; None if an output of another shape came back."""
    m = int(np.prod(out_shape))
    blocks = [np.zeros(out_shape + np.shape(v), dtype=dtype_of(v)) for v in values]
    rows = [b.reshape((m,) + np.shape(v)) for b, v in zip(blocks, values)]
    seed = np.zeros(out_shape)
    flat_seed = seed.reshape(-1)
    annotated = list(args)
    with Progress(m, "jacrev rows") as progress:
        for k in range(m):
            flat_seed[k] = 1.0
            for i, value, row in zip(wrt, values, rows):
                # an array argument's gradient accumulates straight into its row of the block
                annotated[i] = Duplicated(value, row[k]) if isinstance(value, np.ndarray) \
                    else Active(value)
            derivatives, output = _run("jacrev", ReverseWithPrimal, target, annotated, seed,
                                       backend)
            if np.shape(output) != out_shape:
                return None
            for i, value, row in zip(wrt, values, rows):
                if not isinstance(value, np.ndarray):
                    row[k] = derivatives[i]
            flat_seed[k] = 0.0
            progress.step()
    return blocks


def _hessian_transform(fun: Callable[..., float], argnums: Argnums = 0, has_aux: bool = False,
                       *, backend: str = "python") -> Callable[..., Any]:
    positions = check_argnums("hessian", argnums)
    if len(positions) != 1:
        raise ArgumentError(f"hessian with argnums={argnums!r}: the blocks between two "
                            "different arguments are not available",
                            hint="differentiate with respect to one argument (pack several "
                            "inputs into one array)")
    value_only = ValueOnly(fun, "hessian") if has_aux else None
    preparations = {}  # argument signature -> the operator's preparation

    @functools.wraps(fun)
    def hessian_of_fun(*args, **kwargs):
        target, args, aux, (i,), _ = _bound(fun, "hessian", argnums, positions, value_only,
                                            args, kwargs)
        operands = [a if j == i else Constant(a) for j, a in enumerate(args)]
        key = signature(args)
        if key not in preparations:
            if len(preparations) >= _SHAPE_MEMO_SIZE:
                preparations.clear()
            preparations[key] = prepare_hessian(target, *operands, backend=backend)
        H = hessian_operator(target, *operands, prep=preparations[key], backend=backend)
        if not isinstance(args[i], np.ndarray):
            H = float(np.reshape(H, -1)[0])
        else:
            H = H.reshape(np.shape(args[i]) * 2)
        H = in_input_dtype(H, args[i])
        H = H if isinstance(argnums, int) else ((H,),)
        return (H, aux) if value_only else H

    hessian_of_fun.__srcad_transform__ = "hessian"
    return hessian_of_fun


def hessian(fun: Callable[..., Any], *args: Any, **options: Any) -> Any:
    """The Hessian of a float-valued function: as an operator or as a transform.

    * `hessian(f, x, *contexts, prep=None, out=None, chunk=None, backend="python")`, the
      operator form (one bare argument, the others `Constant`/`Cache`), is the Hessian at x:
      an `(n, n)` array over x's C-ordered flattening.
    * `hessian(f, argnums=0, has_aux=False, backend="python")`, the transform form (JAX's
      `jax.hessian`), returns a function of f's arguments; the Hessian with respect to an
      array argument has shape `x.shape + x.shape`, with respect to a float it is a float.
      One argnum only (`argnums=(i,)` gives `((H,),)` as in JAX); with `has_aux=True` the
      result is `(H, aux)`.

    Both run srcad's forward mode over its own reverse code on the python backend, and
    srcad's numba reverse mode over its own forward code on numba (reverse over forward).

    Args:
        fun: a plain Python function srcad can differentiate, returning a float.
        *args: the operator form: the point x, then `Constant`/`Cache` contexts; the
            transform form: nothing, or `argnums`.
        **options: the operator form: `prep`, `out`, `chunk`, `backend`; the transform
            form: `argnums`, `has_aux`, `backend`.

    Returns:
        The operator form: the `(n, n)` Hessian at x. The transform form: a function of
        `fun`'s arguments returning the Hessian.

    >>> import numpy as np
    >>> def f(x):
    ...     return x[0] ** 2 * x[1]
    >>> hessian(f)(np.array([1.0, 3.0]))
    array([[6., 2.],
           [2., 0.]])
    >>> hessian(f, np.array([1.0, 3.0]))
    array([[6., 2.],
           [2., 0.]])
    """
    if not args or (len(args) == 1 and looks_like_argnums(args[0])):
        # no point given (an int or a tuple of ints is never an operator's input)
        return _hessian_transform(fun, *args, **options)
    return hessian_operator(fun, *args, **options)


# -- the results -------------------------------------------------------------------------------
def _bound(fun, transform, argnums, positions, value_only, args, kwargs):
    """(target, args, aux, wrt, values) of one call of a transformed function: keywords bound,
    has_aux's value-only target and aux, the argnums resolved and their values checked."""
    args = bind_keywords(fun, transform, argnums, args, kwargs)
    target, args, aux = _target(fun, value_only, args)
    wrt = resolve_argnums(argnums, positions, len(args))
    values = [differentiable(args[i], i, transform) for i in wrt]
    return target, args, aux, wrt, values


def _target(fun, value_only, args):
    """(the function to differentiate, its arguments, aux): fun, args and None, or with
    has_aux fun's value-only function, args completed with fun's defaults, and the aux."""
    if value_only is None:
        return fun, args, None
    args = bind_arguments(getattr(fun, "__srcad_wrapped__", fun), args)
    # the aux first: a plain call refuses a function that returns no pair as such (the
    # value-only wrapper would be refused for an unpacking the user never wrote)
    aux = value_only.aux(args)
    return value_only.function(len(args)), args, aux


def _run(transform, mode, fun, annotated, seed, backend):
    """One autodiff call; a Const-array refusal gets the fix that fits a transform."""
    try:
        return autodiff(mode, fun, *annotated, seed=seed, backend=backend)
    except ActivityError as err:
        hint = (f"{transform} treats the arguments not in argnums as constants: allocate "
                "scratch storage inside the function, or pass it as srcad.Cache(c) to an "
                "operator such as srcad.gradient")
        problems = [ActivityError(p.message, filename=p.filename, line=p.line,
                                  construct=p.construct, hint=hint) for p in err.problems]
        raise ActivityError.combine(problems, function=getattr(fun, "__name__", None),
                                    filename=err.filename) from None
