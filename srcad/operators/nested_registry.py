"""The nested gradients of a process by token, and the order of their operands: what the
python runtime (srcad/operators/nested.py) and the numba kernels
(srcad/operators/nested_numba.py) both read.

A rewritten call `srcad_nested_gradient(token, x, a1, ..., an)` passes the differentiated
argument x first; g's own order puts it at `argnum`.
"""

from __future__ import annotations

import threading

REGISTRY: dict = {}  # token -> NestedGradient (srcad/operators/nested.py)
TOKENS: dict[tuple, int] = {}  # (g, argnum) -> token
LOCK = threading.Lock()


def in_call_order(nested, operands):
    """g's arguments from the operands of the rewritten call (the differentiated one first)."""
    x, *rest = operands
    return rest[:nested.argnum] + [x] + rest[nested.argnum:]


def position(nested, k):
    """g's argument position of operand k (operand 0 is the differentiated argument)."""
    if k == 0:
        return nested.argnum
    return k - 1 if k - 1 < nested.argnum else k
