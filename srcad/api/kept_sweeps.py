"""`vjp`'s forward sweep run once and kept: `vjp(f, *primals)` runs the first half of srcad's
reverse code (the primal, recording its tape) and keeps what it leaves; each call of
`vjp_fun(u)` runs the second half alone (the reverse sweep, seeded with u) on a copy of it.
So calling `vjp_fun` any number of times never runs f's primal again, as in JAX.

The reverse code is the python backend's code of `f_into` (srcad/api/chains.py: f writing
its value into an array, floats boxed), generated with loops taped whole (no
checkpointing, whose reverse sweep would run the primal again). It is cut at its
`# reverse sweep` line into two generated functions:

    def f_into_forward_sweep(arg0, arg0_bar, ..., result_bar=1.0):
        <the forward sweep>
        return locals()

    def f_into_reverse_sweep(kept, arg0, arg0_bar, ..., result_bar=1.0):
        f_y = kept.get('f_y')           # every name the forward sweep bound
        <the reverse sweep>

`kept_vjp` answers None where this does not apply (a dict, list or tuple among the primals
or as output, an int primal, float32 values, the numba backend): `vjp` then runs a whole
reverse pass per call of `vjp_fun`.
"""

from __future__ import annotations

import ast
import copy
import textwrap

import numpy as np

from srcad.analysis.types import type_of_value
from srcad.build.differentiate import _compiled
from srcad.build.engines import scalar_as_array
from srcad.build.pipeline import ArgSpec, Request
from srcad.errors import SrcadError
from srcad.frontend import pytrees
from srcad.frontend.source_functions import compile_source

_MARKER = "    # reverse sweep"
_MEMO_SIZE = 32
_HALVES: dict = {}  # the reverse code -> its two halves


def kept_vjp(target, primals, backend):
    """(value, pullback) with the forward sweep run once, or None (see the module
    docstring)."""
    if backend != "python" or not primals or any(
            pytrees.is_container(p) or not _plain_float(p) for p in primals):
        return None
    floats = tuple(i for i, p in enumerate(primals) if not isinstance(p, np.ndarray))
    boxed = [np.array([float(p)]) if i in floats else p.copy() for i, p in enumerate(primals)]
    specs = tuple(ArgSpec("duplicated", type_of_value(b)) for b in boxed)
    try:
        function = scalar_as_array(target, len(primals), floats) if floats else target
        compiled = _compiled(function, Request("reverse", specs, backend="python", memory=0,
                                               shapes_recorded=True))
    except SrcadError:
        return None  # the whole reverse pass per call refuses it with the user's line
    if getattr(compiled.function, "__name__", None) != compiled.name:
        return None  # run inside a wrapper (a `with` context of f): the whole pass per call
    halves = _HALVES.get(compiled.function)
    if halves is None:
        if len(_HALVES) >= _MEMO_SIZE:
            _HALVES.clear()
        halves = _HALVES[compiled.function] = _halves(compiled, 2 * len(primals))
    if halves is None:
        return None
    forward_sweep, reverse_sweep, value_name = halves
    flat = [v for b in boxed for v in (b, np.zeros(b.shape))]
    kept = forward_sweep(*flat)
    value = kept.get(value_name)
    if isinstance(value, np.ndarray):
        value = value.copy()
    elif isinstance(value, (float, np.floating)):
        value = float(value)
    else:
        return None  # a tuple, or no value: the whole reverse pass per call

    def pull_back(cotangent):
        bars = [np.zeros(b.shape) for b in boxed]
        state = copy.deepcopy(kept)
        reverse_sweep(state, *[v for b, bar in zip(boxed, bars) for v in (b, bar)],
                      cotangent)
        return tuple(bar if i not in floats else float(bar[0]) for i, bar in enumerate(bars))

    return value, pull_back


def _plain_float(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype == np.float64
    return type(value) is float or isinstance(value, np.float64)


def _halves(compiled, count):
    """(forward sweep, reverse sweep, the name of the value) of generated reverse code, or
    None where its text has no single top-level `# reverse sweep` line. `count`: the
    parameters before the seed (each argument and its adjoint): the reverse sweep is given
    the adjoints and the seed anew, and reads every other name from what the forward
    sweep kept."""
    lines = compiled.source.splitlines()
    module = ast.parse(compiled.source)
    function = next(n for n in module.body
                    if isinstance(n, ast.FunctionDef) and n.name == compiled.name)
    cuts = [k for k, line in enumerate(lines) if line.startswith(_MARKER)]
    first, last = function.body[0], function.body[-1]
    if len(cuts) != 1 or not (isinstance(first, ast.Expr)
                              and isinstance(first.value, ast.Constant)) \
            or not (isinstance(last, ast.Return) and isinstance(last.value, ast.Tuple)
                    and isinstance(last.value.elts[0], ast.Name)):
        return None
    start, cut = first.end_lineno, cuts[0]  # the body after the docstring, up to the cut
    header = "\n".join(lines[function.lineno - 1:function.body[0].lineno - 1])
    params = [a.arg for a in function.args.args]
    forward_body = lines[start:cut]
    reverse_body = lines[cut:]
    given = {params[k] for k in range(1, count, 2)} | set(params[count:])
    names = _bound(ast.parse(textwrap.dedent("\n".join(forward_body)) or "pass")) | set(params)
    reads = [f"    {name} = kept.get({name!r})" for name in sorted(names - given)]
    namespace = dict(compiled.function.__globals__)
    forward_name = f"{compiled.name}_forward_sweep"
    forward_source = (header.replace(f"def {compiled.name}(", f"def {forward_name}(", 1)
                      + "\n" + "\n".join(forward_body) + "\n    return locals()\n")
    reverse_name = f"{compiled.name}_reverse_sweep"
    reverse_source = (header.replace(f"def {compiled.name}(", f"def {reverse_name}(kept, ", 1)
                      + "\n" + "\n".join(reads + reverse_body) + "\n")
    try:
        return (compile_source(forward_source, forward_name, namespace),
                compile_source(reverse_source, reverse_name, namespace), last.value.elts[0].id)
    except SyntaxError:
        return None


def _bound(tree) -> set:
    """The names a block of statements binds."""
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Store)}
