"""The numba functions of batched reverse code: the rewrite of srcad/operators/batched_lanes.py
applied to a reverse code's source and compiled by numba, once per reverse code, the argument
dimensions and the seed's."""

from __future__ import annotations

import ast

from srcad.build.compiler import compile_numba
from srcad.operators.batched_lanes import LaneCode

_FUNCTIONS = {}  # (id of the one-lane Compiled, ndims, seed ndim) -> (it, function, rows)


def numba_lanes_function(compiled, ndims, seed_ndim):
    """(the numba function of `compiled`'s reverse code running W lanes, its workspace rows),
    made once per reverse code. `ndims`: per argument, the ndim of an array whose shadow has
    lanes (None for the others); `seed_ndim`: the result's (None: a float or nothing)."""
    key = (id(compiled), tuple(ndims), seed_ndim)
    kept = _FUNCTIONS.get(key)
    if kept is not None and kept[0] is compiled:
        return kept[1], kept[2]

    parameters = [a.arg for a in next(n for n in ast.parse(compiled.source).body
                                       if isinstance(n, ast.FunctionDef)).args.args]
    values = [p for k, p in enumerate(parameters)
              if not (p.endswith("_bar") and k and parameters[k - 1] == p[:-4])]
    code = LaneCode(compiled.source, {name: ndim for name, ndim in zip(values, ndims)
                                      if ndim is not None}, seed_ndim)
    tree = ast.parse(code.source)
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Load)}
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
             and isinstance(n.ctx, ast.Store)} | {a.arg for a in ast.walk(tree)
                                                  if isinstance(a, ast.arg)}
    python_function = compiled.function.py_func
    origin = getattr(compiled.function, "srcad_origin", python_function.__code__.co_filename)
    function = compile_numba(code.source, code.name, python_function.__globals__,
                             loaded - bound, origin)
    _FUNCTIONS[key] = (compiled, function, code.rows)
    return function, code.rows
