"""NumPy's index-trick objects as functions srcad's generated code calls
(srcad/transform/normalize/literal_arguments.py writes them out): `np.c_[a, b]` of vectors
and matrices is `c_columns((a, b))`, whose rule is np.column_stack's
(srcad/rules/building.py)."""

from __future__ import annotations

import numpy as np


def c_columns(items):
    """np.c_[a, b, ...] of arrays of rank 1 or 2: vectors as columns, matrices side by side."""
    return np.c_[tuple(items)]
