"""JAX's `vmap`: a function mapped over a batch axis of its arguments, as generated code.

`vmap(f, in_axes, out_axes)(*args)` is `f` applied to every example of a batch, the results
stacked along `out_axes`, as `jax.vmap` defines it:

* `in_axes` is an int, None, or a tuple with one entry per positional argument, each an int,
  None, or a pytree prefix of its argument (a dict of axes for a dict of parameters...);
  None leaves an argument unmapped (the same for every example). Keyword arguments are
  mapped over their axis 0, as in JAX.
* `out_axes` likewise for the result (an int, None, or a prefix of the result's structure);
  None requires that result be the same for every example.
* `axis_size` gives the batch size when no argument is mapped.

What runs is code srcad generates for the batch, shown by `srcad.source(vmap(f), *args)`
(srcad/build/batched_calls.py, batched_reverse.py): f's body lifted into whole-array
operations where it allows, else one loop over the batch inside the generated function.
`vmap(grad(loss), ...)` batches the reverse code srcad generated for `loss` (per-example
gradients without a Python call of `grad` per example); on the numba backend that loop is
compiled by numba, the products of a shared matrix and each example's vector made for the
whole batch before it (one BLAS GEMM).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from srcad.api.vmap_axes import batch_size_of, leaf_axes, placed, tree_axes
from srcad.api.wrapping import wraps
from srcad.build import batched_calls
from srcad.build.batched_reverse import GradientCall, reverse_program
from srcad.build.transform_outputs import in_input_dtype
from srcad.errors import ArgumentError, SrcadError
from srcad.frontend import pytrees
from srcad.transform.batching import NotLiftable

_PROGRAMS_PER_FUNCTION = 32


def vmap(fun: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0,
         axis_name: Any = None, axis_size: int | None = None, *,
         backend: str = "python") -> Callable[..., Any]:
    """A function mapping `fun` over axis `in_axes` of its arguments (JAX's `jax.vmap`).

    Args:
        fun: a plain Python function, or `srcad.grad` of one (its generated reverse code
            is batched), or any other callable (called once per example inside the
            generated loop).
        in_axes: an int, None, or a tuple with one entry (int, None or a pytree prefix of
            the argument) per positional argument.
        out_axes: an int, None, or a pytree prefix of the result: where the batch axis goes.
        axis_name: not supported (srcad has no collective operations); must be None.
        axis_size: the batch size, needed when no argument is mapped.
        backend: "python" or "numba" for a plain `fun` (numba compiles the loop of a
            body that is not lifted); `srcad.grad(..., backend=...)` brings its own.

    Returns:
        The batched function, taking the arguments of `fun` with the batch axis added.

    >>> import numpy as np
    >>> def f(x, w):
    ...     return np.sum(x * w)
    >>> vmap(f, in_axes=(0, None))(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 10.0]))
    array([21., 43.])
    """
    if axis_name is not None:
        raise ArgumentError("vmap: axis_name names the batch axis for collective operations "
                            "(psum, ...), which srcad does not have", construct="axis_name",
                            hint="leave axis_name out")
    if type(in_axes) is list:
        raise ArgumentError("vmap: in_axes must be an int, None, or a tuple with one entry per "
                            f"positional argument, not a list ({in_axes!r})",
                            construct="in_axes", hint="write the list as a tuple")
    tree_axes(in_axes, "in_axes")
    tree_axes(out_axes, "out_axes")
    if backend not in ("python", "numba"):
        raise ArgumentError(f"unknown backend {backend!r}", construct="backend",
                            hint="use 'python' or 'numba'")
    programs = {}
    parameters = functools.cache(functools.partial(_parameters, fun))  # read once

    @wraps(fun)
    def batched(*args, **kwargs):
        program, leaves, size = _program(fun, in_axes, axis_size, backend, programs,
                                         args, kwargs, parameters)
        try:
            result, flags = program.run(leaves, size)
        except Exception:
            if program.kind != "lifted":
                raise
            # the example's own code says what went wrong, at the user's line
            program = programs[program.key] = program.unlifted()
            result, flags = program.run(leaves, size)
        try:
            result = placed(result, flags, out_axes, size)
        except ArgumentError as err:
            raise err.at(*program.return_line) from None
        return _in_argument_dtypes(fun, result, leaves) if len(leaves) == len(args) else result

    def source(*args, **kwargs):
        program, _, _ = _program(fun, in_axes, axis_size, backend, programs, args, kwargs,
                                 parameters)
        return program.source

    def form(*args, **kwargs):
        program, _, _ = _program(fun, in_axes, axis_size, backend, programs, args, kwargs,
                                 parameters)
        return program.kind, program.reason

    batched.source = source
    batched.__srcad_vmap__ = source
    if out_axes == 0 and axis_size is None and backend == "python":
        loop = batched_calls.differentiable_loop(fun, in_axes)
        if loop is not None:  # what srcad differentiates for grad(vmap(f)), jacfwd(vmap(f))
            batched.__srcad_wrapped__ = loop
    if getattr(batched, "__srcad_wrapped__", None) is None:
        batched.__srcad_transform__ = "vmap"  # differentiating it is refused naming f
    batched.__srcad_vmap_form__ = form  # (kind, why not lifted): for tests and the fuzzer
    return batched


def _program(fun, in_axes, axis_size, backend, programs, args, kwargs, parameters):
    """(the program for arguments like these, their leaves with the batch in front, the
    batch size)."""
    args, in_axes = _bound(fun, args, kwargs, in_axes, parameters())
    trees = [pytrees.treedef(a, f"argument {i}") for i, a in enumerate(args)]
    leaves, axes = [], []
    for i, (arg, tree) in enumerate(zip(args, trees)):
        spec = in_axes[i] if type(in_axes) is tuple else in_axes
        for leaf, axis in zip(pytrees.leaves(arg), leaf_axes(spec, tree, f"argument {i}")):
            leaves.append(leaf)
            axes.append(None if leaf is None else axis)
    size = batch_size_of(leaves, axes, axis_size)
    moved = [leaf if axis is None else _batch_first(np.asarray(leaf), axis)
             for leaf, axis in zip(leaves, axes)]
    mapped = [a is not None for a in axes]
    key = (tuple(trees), tuple(mapped),
           tuple((np.shape(m)[1:] if b else np.shape(m), np.asarray(m).dtype.str
                  if m is not None else None) for m, b in zip(moved, mapped)))
    program = programs.get(key)
    if program is None or (program.compiled is not None and not program.compiled.is_current()):
        if len(programs) >= _PROGRAMS_PER_FUNCTION:
            programs.clear()
        examples = [_example(m, b) for m, b in zip(moved, mapped)]
        program = programs[key] = _built(fun, trees, mapped, examples, backend)
        program.key = key
    return program, moved, size


def _built(fun, trees, mapped, examples, backend):
    """The lifted program where it lifts, else the loop over generated reverse code (grad),
    else the loop over calls of `fun`."""
    axes = [0 if b else None for b in mapped]
    ranks = [np.ndim(e) if isinstance(e, np.ndarray) else 0 for e in examples]
    program = _first_form(fun, trees, axes, examples, backend, ranks)
    if program.kind == "lifted":
        program.unlifted = functools.partial(batched_calls.loop_program, fun, trees, axes,
                                             "the whole-array code failed", backend, ranks)
    code = getattr(getattr(fun, "__srcad_gradient__", (fun,))[0], "__code__", None)
    if code is not None:
        program.return_line = (code.co_filename, program.notes.get("return_line",
                                                                    code.co_firstlineno))
    return program


def _first_form(fun, trees, axes, examples, backend, ranks):
    plain = all(t == pytrees.LEAF for t in trees)
    grad = getattr(fun, "__srcad_gradient__", None)
    reason = "its arguments are containers" if not plain else ""
    if plain and grad is not None:
        call = GradientCall(*grad)
        try:
            return reverse_program(call, axes, examples)
        except NotLiftable as err:
            reason = err.reason
    elif plain and getattr(fun, "__srcad_vmap__", None) is not None:
        reason = "it is srcad.vmap of a function"
    elif plain and getattr(fun, "__srcad_transform__", None) is None:
        try:
            return batched_calls.lifted_program(fun, axes, examples)
        except NotLiftable as err:
            reason = err.reason + (f" (line {err.line})" if err.line else "")
        except SrcadError:  # no source to read (a builtin, a NumPy function, a C function)
            reason = "its source is not available"
    elif plain:
        reason = f"it is srcad.{fun.__srcad_transform__} of a function"
    return batched_calls.loop_program(fun, trees, axes, reason, backend, ranks)


def _in_argument_dtypes(fun, result, leaves):
    """Per-example gradients (vmap of grad) in their arguments' float types, as grad gives
    each one (JAX's rule: float32 in, float32 out); the batched reverse code sums in float64."""
    grad = getattr(fun, "__srcad_gradient__", None)
    if grad is None:
        return result
    positions = [p % len(leaves) for p in grad[1]] if isinstance(grad[1], tuple) \
        else [grad[1] % len(leaves)]
    if grad[2] or len(positions) == 1:
        return in_input_dtype(result, leaves[positions[0]])
    return tuple(in_input_dtype(r, leaves[p]) for r, p in zip(result, positions))


def _example(leaf, mapped):
    """One example of a leaf (the first; zeros for an empty batch), or the leaf unmapped."""
    if not mapped:
        return leaf
    if len(leaf):
        return leaf[0]
    return np.zeros(leaf.shape[1:], leaf.dtype)[()]


def _batch_first(leaf, axis):
    """`leaf` with its axis `axis` first (itself where it is first already)."""
    axis = axis % np.ndim(leaf)
    return leaf if axis == 0 else np.moveaxis(leaf, axis, 0)


def _parameters(fun):
    """The parameters of `fun` where all are positional, else None (read once per vmap:
    `inspect.signature` costs more than a small batch of compiled examples)."""
    try:
        parameters = tuple(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters):
        return None
    return parameters


def _bound(fun, args, kwargs, in_axes, parameters):
    """(args, in_axes) with keyword arguments and defaults made positional: a keyword
    argument mapped over its axis 0 as in JAX, a default unmapped."""
    if type(in_axes) is tuple and len(in_axes) != len(args):
        raise ArgumentError(f"vmap: in_axes has {len(in_axes)} entries and the function is "
                            f"called with {len(args)} positional arguments",
                            construct="in_axes", hint="give one entry per positional argument")
    if parameters is None:
        if kwargs:
            raise ArgumentError("vmap: keyword arguments of a function with *args, **kwargs "
                                "or keyword-only parameters", construct="vmap",
                                hint="pass the arguments positionally")
        return args, in_axes
    if not kwargs and len(args) == len(parameters):  # every argument given, in order
        return args, in_axes
    bound = inspect.signature(fun).bind(*args, **kwargs)
    axes = list(in_axes) if type(in_axes) is tuple else [in_axes] * len(args)
    values = list(args)
    for parameter in list(parameters)[len(args):]:
        if parameter.name in bound.arguments:
            values.append(bound.arguments[parameter.name])
            axes.append(0)
        elif parameter.default is not parameter.empty:
            values.append(parameter.default)
            axes.append(None)
    return tuple(values), tuple(axes)
