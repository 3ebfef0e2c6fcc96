"""Which calls of numba code are nested gradients' kernels, and what they return: the forms
srcad/transform/small_array_lengths.py reads small arrays through.

>>> import gast
>>> call = gast.parse("srcad_nested_adjoints_1_0_1(srcad_space, srcad_int_space, x, p, d)")
>>> call = call.body[0].value
>>> kernel_kind(call), adjoint_operand(call, 1).id
('tuple', 'p')
"""

from __future__ import annotations

import re

import gast

MAX_LENGTH = 4
OPERATORS = (gast.Add, gast.Sub, gast.Mult)
# nested kernels (srcad/operators/nested_numba.py and its merged forms): one array shaped like
# the first operand, or a pair (the gradient and its tangent) of such arrays
# (the `_into` variants write into their last operands: nested_result_reuse.py)
# (`_len_2_s`: made for its operands' lengths, srcad/operators/nested_number_kernels.py)
_LENGTHS = r"(_len(?:_(?:\d+|s))+)?$"
_ARRAY_KERNEL = re.compile(r"srcad_nested_(gradient_\d+|tangents?_\d+(_\d+)*)(_scratch|_into)?"
                           + _LENGTHS)
_PAIR_KERNEL = re.compile(r"srcad_nested_gradient_tangents_\d+(_\d+)*(_scratch|_into)?" + _LENGTHS)
# the adjoints of the operands named by its positions: srcad_nested_adjoints_<token>_<k>...
_ADJOINTS_KERNEL = re.compile(r"srcad_nested_adjoints_\d+((?:_\d+)+?)(_scratch)?" + _LENGTHS)
_WORKSPACE = ("srcad_space", "srcad_int_space")


def kernel_kind(node):
    """"array", "pair" or "tuple" (the adjoints of operands) for a call of a nested kernel,
    else None."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
        if _PAIR_KERNEL.match(node.func.id):
            return "pair"
        if _ADJOINTS_KERNEL.match(node.func.id):
            return "tuple"
        if _ARRAY_KERNEL.match(node.func.id):
            return "array"
    return None


def first_operand(call):
    operands = [a for a in call.args if not (isinstance(a, gast.Name) and a.id in _WORKSPACE)]
    return operands[0] if operands and not call.keywords else None


def adjoint_operand(call, j):
    """The operand whose adjoint is element j of an adjoints kernel's tuple, or None."""
    found = _ADJOINTS_KERNEL.match(call.func.id)
    positions = [int(k) for k in found.group(1).strip("_").split("_")]
    operands = [a for a in call.args if not (isinstance(a, gast.Name) and a.id in _WORKSPACE)]
    if call.keywords or not 0 <= j < len(positions) or positions[j] >= len(operands):
        return None
    return operands[positions[j]]


def int_literal(node):
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    return None
