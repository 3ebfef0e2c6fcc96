"""Reverse (adjoint) mode: `ReverseTransform` (transform.py) and the parts it is assembled
from: recording, control flow, arrays, slots, checkpointed loops, trip bounds."""
