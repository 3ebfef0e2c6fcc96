"""The primal a GradBench port's numba tool times: srcad's generated primal compiled by numba
(`srcad_primal`), or, where srcad refuses the function, the port's function compiled by
numba's njit with the port helpers it calls (`numba_compiled`); each compiled once per
function and kept.
"""

from __future__ import annotations

from typing import Any, Callable

import srcad
from srcad.build import cache


def srcad_primal(function, backend: str) -> Callable[..., Any]:
    """`function(*args)` computed by srcad's generated code on `backend`: its forward code with
    every argument constant, which is the primal statements alone, each `srcad.grad` inside
    (a nested gradient) the inner gradient's code in the same module (on numba: compiled into
    one kernel, no Python between the levels). A function calling srcad.grad run by CPython
    goes through srcad's Python API at every call of the inner gradient instead.

    >>> def f(x):
    ...     return x * x
    >>> srcad_primal(f, "python")(3.0)
    9.0
    """
    def call(*args):
        constants = [srcad.Const(a) for a in args]
        return srcad.autodiff(srcad.ForwardWithPrimal, function, *constants,
                              backend=backend)[-1]

    call.srcad_function = function
    return call


def run_once(run, args):
    """`run` prepared for `args`: after one call (which compiles it, or raises srcad's
    refusal), for a `srcad_primal`, the generated code itself called with `args`
    (`prepared_primal`)."""
    run(*args)
    function = getattr(run, "srcad_function", None)
    return (function and prepared_primal(function, args, run)) or run


def prepared_primal(function, args, run) -> Callable[..., Any] | None:
    """`function(*args)` as a call of the code srcad generated and compiled for these
    arguments (its forward code with every argument constant), without `srcad.autodiff`'s
    per-call work (finding the plan, checking and flattening the arguments: about 3 µs), for
    a tool that runs one function on the same arguments many times (a call with other
    arguments goes through `srcad.autodiff`). None where the code needs more than its arguments
    (work arrays, a tape) or srcad has no such plan: the caller keeps `srcad.autodiff`."""
    constants = [srcad.Const(a) for a in args]
    for plan in cache.plans.get(function, ()):
        compiled = plan.compiled
        if plan.mode is not srcad.ForwardWithPrimal or plan.flat is None \
                or compiled.scratch or compiled.tapes or compiled.tuple_return:
            continue
        flat = plan.flat(constants)
        if flat is None:
            continue
        return _direct_call(compiled.function, flat, tuple(args), run)
    return None


def _direct_call(kernel, flat, given, run):
    def call(*args):
        if len(args) == len(given) and all(a is b for a, b in zip(args, given)):
            return kernel(*flat)[0]
        return run(*args)

    return call


_NUMBA_COMPILED: dict = {}  # function -> its numba dispatcher, shared by every input


def numba_compiled(function):
    """`function` compiled by numba's njit, with every plain function of the ports it calls
    (found by name in its globals, recursively) compiled too: the C++-shaped primals call
    helpers, which numba compiles only when they are numba functions themselves. The
    function's own module is not changed (each compiled function reads a copy of its
    globals). Compiles at the first call; raises numba's error there if numba refuses. One
    dispatcher per function, kept: a later input of the same types reuses its machine code
    (the tool prepares each input anew, and numba would otherwise compile again)."""
    if function not in _NUMBA_COMPILED:
        _NUMBA_COMPILED[function] = _numba_jit(function)
    return _NUMBA_COMPILED[function]


def _numba_jit(function):
    import types

    import numba

    compiled = {}
    package = function.__module__.rpartition(".")[0]

    def jit(f):
        if f in compiled:
            return compiled[f]
        namespace = dict(f.__globals__)
        clone = types.FunctionType(f.__code__, namespace, f.__name__, f.__defaults__,
                                   f.__closure__)
        compiled[f] = numba.njit(clone)
        for name in f.__code__.co_names:
            value = namespace.get(name)
            if (isinstance(value, types.FunctionType)
                    and value.__module__.rpartition(".")[0] == package):
                namespace[name] = jit(value)
        return compiled[f]

    return jit(function)
