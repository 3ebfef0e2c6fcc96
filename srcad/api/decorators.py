"""The `reverse`/`forward` decorators and `source`, the generated code of a call."""

from __future__ import annotations

import functools
from typing import Any

from srcad.annotations import (
    Annotation,
    Forward,
    Mode,
    Reverse,
)
from srcad.api.composed import composed_source, is_composed
from srcad.build.arguments import Batch, _arguments, _check_mode, bind_arguments
from srcad.build.differentiate import _compiled, _target, autodiff
from srcad.build.running import refuse_forward_seed
from srcad.errors import ArgumentError
from srcad.hints import Backend, Function, Memory
from srcad.operators.containers.container_calls import container_source, has_container
from srcad.runtime.checkpointing import memory_bytes, reverse_memory


def source(f: Function, mode: Mode, *args: Any, batch: Batch = None,
           backend: Backend = "python", memory: Memory = None) -> str:
    """The derivative code srcad generates for `f` in `mode`, for arguments annotated as in
    a call of `autodiff` (only their annotations and types matter, not their values).

    For what a transform returned (`srcad.jacfwd(srcad.grad(f))`), the code it runs: each
    level of srcad's generated code, for plain arguments (`mode` is then not used).

    Args:
        f: a plain Python function (or one decorated with `reverse`/`forward`).
        mode: `srcad.Reverse`, `srcad.ReverseWithPrimal`, `srcad.Forward` or
            `srcad.ForwardWithPrimal`.
        *args: the arguments of `f`, annotated (`Active`, `Duplicated`, `Const`, ...).
        batch: "unrolled" or "stacked" lanes of `BatchDuplicated` arguments.
        backend: "python", or "numba" for the code that numba compiles.
        memory: reverse mode: the checkpointing budget, as in `autodiff`.

    Returns:
        The generated module's source, a `str` (notebooks display it highlighted).

    >>> import srcad
    >>> def sq(x):
    ...     return x * x
    >>> code = srcad.source(sq, srcad.Forward, srcad.Duplicated(3.0, 1.0))
    >>> code.splitlines()[0]
    'def sq_forward(x, x_dot):'

    For a function made by `srcad.vmap`, give its arguments alone:
    `srcad.source(srcad.vmap(f), x)` is the batched code that runs for them.
    """
    batched_source = getattr(f, "__srcad_vmap__", None)
    if batched_source is not None:  # the mode's place holds the first argument
        return batched_source(mode, *args)
    _check_mode(mode)
    if is_composed(f):  # what a transform returned: the code it runs (`mode` is its own)
        return composed_source(f, args, backend)
    f = _target(f)
    if has_container(args):
        return container_source(f, mode, bind_arguments(f, args), batch, backend)
    request = _arguments(f, mode, args, batch, backend).request(mode, backend,
                                                                memory_bytes(memory))
    return _compiled(f, request).source


def reverse(f: Function | None = None, **options: Any) -> Any:
    """Decorator: `f` differentiated in reverse mode when called with annotated arguments.

    A plain call runs `f` unchanged; a call with any annotated argument (`Active`,
    `Duplicated`, ...) runs `autodiff(srcad.Reverse, f, ...)` and returns one derivative per
    argument (None for a `Const` or bare one). `wrapper.source(*args)` shows the generated
    code. Use it bare (`@srcad.reverse`) or with options (`@srcad.reverse(backend="numba")`).

    Args:
        f: the function to decorate (given by the `@` syntax).
        **options: options of every differentiating call: `seed`, `batch`, `backend`,
            `parallel` and `memory`, as in `autodiff`; an annotated call may override them.

    Returns:
        The decorated function (or, without `f`, a decorator with these options).

    >>> import math, srcad
    >>> @srcad.reverse
    ... def f(x, y):
    ...     return x * math.sin(y)
    >>> f(2.0, 0.0)
    0.0
    >>> f(srcad.Active(2.0), srcad.Active(0.0))
    (0.0, 2.0)
    """
    return _decorate(Reverse, f, options)


def forward(f: Function | None = None, **options: Any) -> Any:
    """Decorator: `f` differentiated in forward mode when called with annotated arguments.

    A plain call runs `f` unchanged; a call with any annotated argument runs
    `autodiff(srcad.Forward, f, ...)` and returns the tangent of the return value, in the
    direction of the shadows of the `Duplicated` arguments. `wrapper.source(*args)` shows
    the generated code. Use it bare (`@srcad.forward`) or with options
    (`@srcad.forward(backend="numba")`).

    Args:
        f: the function to decorate (given by the `@` syntax).
        **options: options of every differentiating call: `batch`, `backend` and
            `parallel`, as in `autodiff` (forward mode has no seed); an annotated call may
            override them.

    Returns:
        The decorated function (or, without `f`, a decorator with these options).

    >>> import srcad
    >>> @srcad.forward
    ... def cube(x):
    ...     return x * x * x
    >>> cube(2.0)
    8.0
    >>> cube(srcad.Duplicated(2.0, 1.0))
    12.0
    """
    return _decorate(Forward, f, options)


def _decorate(mode: Mode, f: Function | None, options: dict) -> Any:
    decorator = reverse if mode.reverse else forward
    _check_decorator_options(options, mode, "srcad." + mode.name.lower())
    if f is None:
        return functools.partial(decorator, **options)
    seed, batch = options.get("seed"), options.get("batch")
    backend, parallel = options.get("backend", "python"), options.get("parallel", False)
    memory = options.get("memory")

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        for a in args:  # a loop, not any(...): this is every gradient call's first step
            if isinstance(a, Annotation):
                if kwargs:
                    _check_decorator_options(kwargs, mode, f"the call of {f.__name__}")
                    return autodiff(mode, f, *args, **{**options, **kwargs})
                return autodiff(mode, f, *args, seed=seed, batch=batch, backend=backend,
                                parallel=parallel, memory=memory)
        return f(*args, **kwargs)

    wrapper.__srcad_wrapped__ = f
    # the seed scales the derivatives, it does not change the generated code
    code_options = {k: v for k, v in options.items() if k not in ("seed", "parallel")}
    wrapper.source = lambda *args: source(f, mode, *args, **code_options)
    return wrapper


def _check_decorator_options(options, mode, where):
    """Options of a decorated function (given to the decorator or to an annotated call): seed
    (reverse mode), batch, backend and parallel; anything else is refused, not passed on."""
    if not mode.reverse and "seed" in options:
        refuse_forward_seed()
    if not mode.reverse and "memory" in options:
        reverse_memory(options["memory"], True, where)
    allowed = ("seed", "batch", "backend", "parallel", "memory") if mode.reverse \
        else ("batch", "backend", "parallel")
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ArgumentError(f"unknown option {unknown[0]!r} of {where}", construct="option",
                            hint=f"the options are {', '.join(allowed)}; keyword arguments of "
                            "the function itself are not supported: pass them positionally")

