"""The primal a GradBench port's numba tool times: srcad's generated primal compiled by numba
(`srcad_primal`), or, where srcad refuses the function, the port's function compiled by
numba's njit with the port helpers it calls (`numba_compiled`); each compiled once per
function and kept.
"""

from __future__ import annotations

from typing import Any, Callable

import srcad


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

    return call


def run_once(run, args):
    """`run`, after one call with `args` (which compiles it, or raises srcad's refusal)."""
    run(*args)
    return run


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
