"""Library calls that return a plain tuple, called by srcad's generated code through a
function that names its parts, so that each part is read as eigh's are (`q, r =
np.divmod(x, y)` is `divmod_parts(x, y).quotient`, `.remainder`). np.linalg.lstsq's is
srcad/runtime/spectral_runtime.py's `lstsq_parts`. `NAMED` maps the library's function to its
named form (srcad/transform/normalize/desugar.py replaces the call)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from srcad.runtime.spectral_runtime import lstsq_parts

Divmod = namedtuple("Divmod", "quotient remainder")


def divmod_parts(x, y):
    """np.divmod(x, y), its parts named.

    >>> divmod_parts(7.0, 2.0)
    Divmod(quotient=3.0, remainder=1.0)
    """
    return Divmod(*np.divmod(x, y))


# the library's function: (its named form, how users spell it)
NAMED = {np.linalg.lstsq: (lstsq_parts, "np.linalg.lstsq"), np.divmod: (divmod_parts, "np.divmod")}
FIELDS = {divmod_parts: Divmod._fields}
