"""The numba source of a recursive helper's kernels (srcad/operators/recursion_numba.py):
its primal, and its reverse code with the gradient kernel that boxes the float operands and
calls it; the helper's numeric globals bound under names of their own.

Each writer returns (source, [the `Compiled` objects it was made from]): the kernels are made
again when one of them is no longer current (a global rebound, the helper given new code).
"""

from __future__ import annotations

from dataclasses import dataclass

import gast
import numpy as np

from srcad.analysis.types import FLOAT, Array
from srcad.build.codegen import to_source
from srcad.build.differentiate import _compiled
from srcad.build.engines import scalar_as_array
from srcad.build.pipeline import ArgSpec, Request
from srcad.errors import UnsupportedCallError
from srcad.operators.nested_numba import _renamed
from srcad.runtime.runtime_names import PREFIXES, RESERVED
from srcad.transform.tapes import INT_TAPE


@dataclass(frozen=True)
class Key:
    """A helper's numba code: its token, its operands' types and the operands that carry
    derivatives (None: the primal)."""

    token: int
    types: tuple
    active: tuple | None


def with_globals(text: str, resolve, helper, number: int) -> str:
    """`text` with the globals its code reads (a helper's constants) bound in the module
    under names of their own (the outer module may bind the same names to other values):
    numbers, embedded (numba compiles them in; the outer code is rebuilt when one is
    rebound). A global array is refused: numba would compile its elements in, and miss a
    change made to them in place."""
    tree = gast.parse(text)
    loaded = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)
              and isinstance(n.ctx, gast.Load)}
    bound = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)
             and isinstance(n.ctx, (gast.Store, gast.Param))}
    bound |= {n.name for n in tree.body if isinstance(n, gast.FunctionDef)}
    renamed, header = {}, []
    for name in sorted(loaded - bound - RESERVED):
        if name.startswith(PREFIXES) or resolve is None:
            continue
        try:
            value = resolve(name)
        except KeyError:
            continue
        spelled = next((n for n, v in helper.__globals__.items() if v is value), name)
        if isinstance(value, (bool, int, float, np.integer, np.floating)):
            renamed[name] = f"srcad_recursive_global_{number}_{name}"
            header.append(f"{renamed[name]} = {_literal(value)}")
            continue
        what = "array" if isinstance(value, np.ndarray) else "value"
        code = helper.__code__
        raise UnsupportedCallError(
            f"backend='numba': the recursive helper {helper.__name__} reads the global "
            f"{what} `{spelled}`, which the numba backend cannot compile into a recursive "
            "function", construct="recursion", filename=code.co_filename,
            line=code.co_firstlineno, hint=f"pass `{spelled}` to {helper.__name__} as an "
            "argument, or use backend='python'")
    if not renamed:
        return text
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and node.id in renamed:
            node.id = renamed[node.id]
    return "\n".join(header) + "\n\n" + to_source(tree).strip()


def _literal(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return repr(bool(value))
    return repr(int(value)) if isinstance(value, (int, np.integer)) else repr(float(value))


def _copied_operands(types) -> list:
    return [isinstance(t, Array) and not t.is_float for t in types]


def primal(helper, key: Key, number: int) -> tuple:
    """The helper's primal: srcad's numba code of it with every argument constant, returning
    the value alone (numba types a recursive function from a return path that does not
    recurse: the function must be the one that recurses, not a wrapper of it)."""
    specs = tuple(ArgSpec("const", t) for t in key.types)
    forward = _compiled(helper.opened, Request("forward", specs, backend="numba"))
    if forward.tapes:
        raise UnsupportedCallError(
            f"backend='numba': the recursive helper {helper.helper.__name__} makes arrays "
            "of its own in loops", construct="recursion", hint="use backend='python'")
    tree = gast.parse(str(forward.source))
    function = tree.body[0]
    function.name = f"srcad_recursive_call_{number}"
    for node in gast.walk(function):
        if isinstance(node, gast.Return) and isinstance(node.value, gast.Tuple):
            node.value = node.value.elts[0]
    return "@srcad_jit\n" + to_source(tree).strip(), [forward]


def derivative(helper, key: Key, number: int) -> tuple:
    """The helper's reverse code for the operands `key.active`, the gradient kernel that
    boxes and calls it, and one adjoint and one tangent kernel per active operand."""
    floats = tuple(k for k in key.active if key.types[k] == FLOAT)
    boxed = [Array(1, True) if k in floats else t for k, t in enumerate(key.types)]
    target = scalar_as_array(helper.opened, len(boxed), floats) if floats else helper.opened
    specs = tuple(ArgSpec("duplicated" if k in key.active else "const", t)
                  for k, t in enumerate(boxed))
    # memory=0: loops taped whole (this code runs inside a kernel: no budget fallback)
    reverse = _compiled(target, Request("reverse", specs, backend="numba", memory=0))
    operands = [f"o{k}" for k in range(len(boxed))]
    listed = ", ".join(operands)
    lines = [f"@srcad_jit\ndef srcad_recursive_gradient_{number}({listed}):"]
    args = []
    for k, (o, copied) in enumerate(zip(operands, _copied_operands(key.types))):
        if k in floats:
            lines += [f"    a{k} = np.empty(1)", f"    a{k}[0] = {o}"]
        else:
            lines.append(f"    a{k} = np.copy({o})" if copied else f"    a{k} = {o}")
        args.append(f"a{k}")
        if k in key.active:
            lines.append(f"    a{k}_bar = np.zeros_like(a{k})")
            args.append(f"a{k}_bar")
    results = [f"a{k}_bar[0]" if k in floats else f"a{k}_bar" for k in key.active]
    args += ["1.0"] + _tapes(reverse.tapes)
    lines += [f"    srcad_recursive_reverse_{number}({', '.join(args)})",
              f"    return ({', '.join(results)},)"]
    texts = [_renamed(reverse, f"srcad_recursive_reverse_{number}"), "\n".join(lines)]
    return "\n\n".join(texts), [reverse]


def _tapes(tapes) -> list:
    return ["np.empty(64, dtype=np.int64)" if t == INT_TAPE else "np.empty(64)" for t in tapes]
