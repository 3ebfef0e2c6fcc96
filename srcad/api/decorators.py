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
from srcad.build.arguments import Batch, _arguments, _check_mode, bind_arguments
from srcad.build.differentiate import _compiled, _target, autodiff
from srcad.build.running import refuse_forward_seed
from srcad.errors import ArgumentError
from srcad.hints import Backend, Function, Memory
from srcad.operators.containers.container_calls import container_source, has_container
from srcad.runtime.checkpointing import memory_bytes, reverse_memory


def source(f: Function, mode: Mode, *args: Any, batch: Batch = None,
           backend: Backend = "python", memory: Memory = None) -> str:
    """The generated source for `f` in `mode` with this activity signature (a `str` that
    notebooks display highlighted)."""
    _check_mode(mode)
    f = _target(f)
    if has_container(args):
        return container_source(f, mode, bind_arguments(f, args), batch, backend)
    request = _arguments(f, mode, args, batch, backend).request(mode, backend,
                                                                memory_bytes(memory))
    return _compiled(f, request).source


def _decorator(mode: Mode):
    def decorate(f: Function | None = None, **options: Any) -> Any:
        _check_decorator_options(options, mode, "srcad." + mode.name.lower())
        if f is None:
            return functools.partial(decorate, **options)
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

    decorate.__doc__ = (f"Decorator: plain calls run `f` unchanged; calls with any annotation "
                        f"run {mode!r} exactly as `autodiff({mode!r}, f, ...)`. "
                        "`wrapper.source(*args)` shows the generated code.")
    return decorate


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


reverse = _decorator(Reverse)


forward = _decorator(Forward)
