"""Batching (`srcad.vmap`): a function's body rewritten to run on a whole batch at once.

`lift` turns the tree of a function (the user's, or code srcad generated for it) into the
source of a function taking every mapped argument with the batch as its axis 0: loops over
the examples become whole-array NumPy operations (elementwise operations broadcast with the
batch axis kept in front, reductions with their axes shifted by one, `@` on batched
operands). What it cannot lift raises `NotLiftable` with the line and the reason, and the
caller (srcad/build/batched_calls.py) writes one loop over the batch instead.

May import: `frontend` and the shared vocabulary (like the rest of `transform`).
"""

from srcad.transform.batching.statements import Lifted as Lifted
from srcad.transform.batching.statements import formatted as formatted
from srcad.transform.batching.statements import lift as lift
from srcad.transform.batching.values import NotLiftable as NotLiftable
