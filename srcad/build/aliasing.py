"""Arguments that share memory while f writes one of them.

srcad's generated code gives each argument its own derivative (a tangent or an adjoint per
argument). When two arguments are the same array, or views of one array (`f(x, x)`,
`f(y[1:], y[:-1])`), and f writes one of them, a write through one argument changes the
other; the derivative code does not see that, and its result is silently wrong (the reverse
gradient of `y[:] = np.sin(x) + x[0]` called as `f(x, x)` was not the gradient of the
aliased program). Such calls are refused; arguments that only read a shared array are fine
(`np.sum(x * y)` called as `f(x, x)`).

`aliased_pair` is the check of a checked call; `alias_lines` the same check in a generated
fast path (srcad/build/plans.py), where an aliased call falls back to the checked path that refuses
it. The check is NumPy's `may_share_memory` (bounds only: it may refuse two interleaved views
that share no element, never miss an overlap), asked only when one of the two is a view: two
arrays that own their data are the same array or share nothing, and the fast path's test of
two such arrays is two attribute reads (`may_share_memory` costs about a microsecond).
"""

from __future__ import annotations

import numpy as np

from srcad.errors import ArgumentError


def aliased_pair(values, written) -> tuple | None:
    """(i, j), positions of two array arguments that may share memory, one of them in
    `written` (positions f writes); None when there is none."""
    if not written:
        return None
    arrays = [i for i, v in enumerate(values) if isinstance(v, np.ndarray)]
    for i in written:
        if i >= len(values) or not isinstance(values[i], np.ndarray):
            continue
        for j in arrays:
            if j != i and shared(values[i], values[j]):
                return (min(i, j), max(i, j))
    return None


def shared(a, b) -> bool:
    """Arrays a and b may share memory (module docstring)."""
    return a is b or ((a.base is not None or b.base is not None)
                      and np.may_share_memory(a, b))


def refuse_aliased_writes(values, written, f=None, leaves=False) -> None:
    """Refuse a call whose arguments share memory while f writes one of them (module
    docstring). `f`: the plain function, for its file, line and parameter names; `leaves`:
    `values` are the leaves of containers, not f's parameters."""
    pair = aliased_pair(values, written)
    if pair is None:
        return
    code = getattr(f, "__code__", None)
    names = code.co_varnames[:code.co_argcount] if code is not None and not leaves else ()
    if leaves:
        which = "two arrays among the arguments and the leaves of their containers"
    elif len(names) > pair[1]:
        which = " and ".join(f"`{names[k]}` (argument {k})" for k in pair)
    else:
        which = " and ".join(f"argument {k}" for k in pair)
    raise ArgumentError(f"{which} are the same array or views of one array, and the function "
                        "writes one of them: a write through one changes the other, which "
                        "srcad's derivative code does not follow, so the derivative would be "
                        "silently wrong", construct="aliased arguments",
                        filename=code.co_filename if code is not None else None,
                        line=code.co_firstlineno if code is not None else None,
                        hint="pass a copy of one of them (x.copy())")


def alias_lines(count, written, env, fail) -> list:
    """Generated lines failing (`fail`) when two of the array values v0 .. v<count-1> may
    share memory, one of them in `written` (for the fast paths of srcad/build/plans.py)."""
    env.update(may_share_memory=np.may_share_memory, ndarray=np.ndarray)
    lines = []
    for i in sorted(i for i in written if i < count):
        others = [j for j in range(count) if j != i and not (j in written and j < i)]
        if others:
            tests = " or ".join(f"(type(v{j}) is ndarray and (v{i} is v{j} or (v{i}.base is "
                                f"not None or v{j}.base is not None) and "
                                f"may_share_memory(v{i}, v{j})))" for j in others)
            lines += [f"    if type(v{i}) is ndarray and ({tests}):", fail]
    return lines
