"""What an operator hands back besides its numbers: a derivative in its input's float dtype
(JAX's rule, `in_dtype`), an arithmetic error of the derivative code alone explained as
srcad's non-finite-derivative error, as autodiff explains it (`explained`), and refusals
located in the user's f, not in the wrapper srcad writes around an f of a float
(`engines.scalar_as_array`: `user_located`).
"""

from __future__ import annotations

import linecache
import re

import numpy as np

from srcad.annotations import Cache, Constant, Output
from srcad.build.differentiate import _target
from srcad.build.running import explain_error
from srcad.build.transform_outputs import in_input_dtype
from srcad.errors import WRAPPER, RunTimeRefusal, SrcadError


def lower_precision(x) -> bool:
    """Is x a float array or NumPy float of a dtype other than float64 (float32)?"""
    dtype = getattr(x, "dtype", None)
    return dtype is not None and dtype.kind == "f" and dtype != np.float64


def in_dtype(operator, result, x):
    """An operator's result in x's float dtype (`in_input_dtype`); f's value, which
    value_and_* give first, as f returned it."""
    if not lower_precision(x):
        return result
    if operator.startswith("value_and_") and type(result) is tuple and len(result) == 2:
        return result[0], in_input_dtype(result[1], x)
    return in_input_dtype(result, x)


def explained(err, f, args) -> BaseException:
    """What `explain_error` raises for `err` of f's derivative code at `args`."""
    try:
        explain_error(err, _target(f), [a.value if type(a) in (Constant, Cache, Output) else a
                                        for a in args])
    except (SrcadError, type(err)) as raised:
        return raised
    return err


_GENERATED_AT = re.compile(r"(<srcad [^>]*>):(\d+): ")


def _run_time_refusal_located(err: SrcadError, f) -> SrcadError:
    """A run-time refusal of srcad's derivative code that second order differentiated again
    (`<srcad f_forward_tangent #3>:15: `2 ** (-k)`: ...`, numba's int powers) at the user's
    line that code came from (the nearest `# line N:` comment above it) in f's file."""
    code = getattr(_target(f), "__code__", None)
    found = _GENERATED_AT.match(err.message) if isinstance(err, RunTimeRefusal) else None
    if found is None or code is None:
        return err
    lines = linecache.getlines(found.group(1))
    line = code.co_firstlineno
    for k in range(min(int(found.group(2)), len(lines)) - 1, -1, -1):
        comment = re.match(r"\s*# line (\d+):", lines[k])
        if comment:
            line = int(comment.group(1))
            break
    return RunTimeRefusal(f"{code.co_filename}:{line}: {err.message[found.end():]}",
                          construct=err.construct, hint=err.hint)


def _unplaced_numba(problem: SrcadError) -> bool:
    """numba's refusal placed at no line (its file may be named: the generated module's origin
    comment names f's file)."""
    return problem.construct == "backend='numba'" and problem.line is None


def user_located(err: SrcadError, f) -> SrcadError:
    """`err` with each problem srcad located in its wrapper of f (the call `f(x[0])` it
    inlines f at) located at f's own `def` line instead, without "called from" the wrapper;
    a run-time refusal of srcad's own code at the user's line it came from; numba's refusal
    to compile code it could place at no line of f's at f's `def` line."""
    err = _run_time_refusal_located(err, f)
    if not any((p.filename or "").startswith(WRAPPER) or _unplaced_numba(p)
               for p in err.problems):
        return err
    code = getattr(_target(f), "__code__", None)
    if code is None:
        return err
    problems = []
    for p in err.problems:
        if (p.filename or "").startswith(WRAPPER) or _unplaced_numba(p):
            p = type(p)(_in_users_names(p.message, code), filename=code.co_filename,
                        line=code.co_firstlineno, construct=p.construct, hint=p.hint)
        problems.append(p)
    if len(problems) == 1:
        return problems[0]
    return SrcadError.combine(problems, function=getattr(_target(f), "__name__", None),
                              filename=code.co_filename)


_WRAPPER_ARGUMENT = re.compile(r"\barg(\d+)(?:\[0\])?")


def _in_users_names(message: str, code) -> str:
    """`message` about srcad's wrapper `g(arg0) = f(arg0[0])` in the names of f's own
    parameters: `f(arg0[0])` reads `f(x)`.

    >>> def f(x, n): pass
    >>> _in_users_names("`f(arg0[0], arg1)` holds a value", f.__code__)
    '`f(x, n)` holds a value'
    """
    names = code.co_varnames[:code.co_argcount]

    def name(found):
        k = int(found.group(1))
        return names[k] if k < len(names) else found.group(0)
    return _WRAPPER_ARGUMENT.sub(name, message)
