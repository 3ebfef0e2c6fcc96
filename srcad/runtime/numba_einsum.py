"""np.einsum with subscripts written in the call, on the numba backend (numba has no einsum),
and the adjoint srcad/runtime/linalg_runtime.py gives the python backend (`einsum_adjoint`),
under the same name: both become one loop nest over the subscripts' labels, made for the
subscripts and the operands' ranks when numba types the call (the subscripts reach the
overload as a literal string). srcad/transform/numba_movement.py spells `np.einsum(s, ...)`
as `moved_einsum(s, ...)`; np.tensordot, np.inner and the stacked `@` reach it through their
rules, which are einsums.

NumPy's values, the terms summed in another order (within a few ulps), for operands whose
axes of one label have one length: NumPy's broadcasting of a length-1 axis against a longer
one (an ellipsis of stacks) raises ValueError here, and subscripts that are not a literal
fail to type; srcad reports both as refusals naming the call.

Imported by generated numba modules only (it imports numba).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.errors import TypingError
from numba.extending import overload

from srcad.runtime.linalg_runtime import einsum_adjoint, einsum_labels


def moved_einsum(subscripts, *operands):
    return np.einsum(subscripts, *operands)


def _literal(subscripts) -> str:
    if not isinstance(subscripts, types.StringLiteral):
        raise TypingError("np.einsum: srcad compiles subscripts written in the call")
    return subscripts.literal_value


def _ndims(operands) -> list:
    return [getattr(t, "ndim", 0) for t in operands]


def _loops(labels, output, body, result):
    """Source of `impl`: sizes of every label (checked), then `result` (an array of the
    output's labels, or `total` when it has none) accumulated by `body` over all labels."""
    everything = "".join(dict.fromkeys("".join(labels) + output))
    lines, seen = [], {}
    for k, spelled in enumerate(labels):
        for axis, c in enumerate(spelled):
            size = f"operands[{k}].shape[{axis}]"
            if c in seen:
                lines.append(f"    if {size} != n_{c}:")
                lines.append("        raise ValueError('np.einsum: axes of one label have "
                             "different lengths (srcad does not broadcast them on numba)')")
            else:
                seen[c] = size
                lines.append(f"    n_{c} = {size}")
    if output:
        lines.append(f"    {result} = np.zeros(({''.join(f'n_{c}, ' for c in output)}))")
    pad = "    "
    for c in everything:
        lines.append(f"{pad}for {c} in range(n_{c}):")
        pad += "    "
    lines.append(pad + body)
    return lines


def _element(name, spelled):
    return f"{name}[{', '.join(spelled)}]" if spelled else name


@overload(moved_einsum, prefer_literal=True)
def _einsum(subscripts, *operands):
    labels, output = einsum_labels(_literal(subscripts), _ndims(operands))
    product = " * ".join(_element(f"operands[{k}]", s) for k, s in enumerate(labels))
    if output:
        lines = _loops(labels, output, f"out[{', '.join(output)}] += {product}", "out")
        lines.append("    return out")
    else:
        lines = ["    total = 0.0"] + _loops(labels, output, f"total += {product}", "total")
        lines.append("    return total")
    namespace = {"np": np}
    exec("def impl(subscripts, *operands):\n" + "\n".join(lines), namespace)
    return namespace["impl"]


@overload(einsum_adjoint, prefer_literal=True)
def _einsum_adjoint(subscripts, k, g, *operands):
    if not isinstance(k, types.IntegerLiteral):
        raise TypingError("einsum_adjoint: the operand is a literal int")
    labels, output = einsum_labels(_literal(subscripts), _ndims(operands))
    k = k.literal_value
    factors = [_element(f"operands[{j}]", s) for j, s in enumerate(labels) if j != k]
    product = " * ".join([_element("g", output)] + factors)
    own = labels[k]
    if own:
        body = f"out[{', '.join(own)}] += {product}"
        lines = _loops(labels, output, body, "unused")
        lines = [line for line in lines if "unused" not in line]
        lines.insert(0, f"    out = np.zeros(operands[{k}].shape)")
        lines.append("    return out")
    else:  # a number operand
        lines = ["    total = 0.0"] + [line for line in _loops(labels, output,
                                                                f"total += {product}",
                                                                "unused")
                                        if "unused" not in line]
        lines.append("    return total")
    namespace = {"np": np}
    exec("def impl(subscripts, k, g, *operands):\n" + "\n".join(lines), namespace)
    return namespace["impl"]
