"""scipy.linalg's factorizations, one array each, as srcad's generated code calls them:
`cho_factor(a, lower)` is the tuple `(cho_factor_matrix(a, lower), lower)` and
`cho_solve((c, lower), b)` is `cho_solve_matrix(c, b, lower)`
(srcad/transform/normalize/factor_calls.py), so that the factor is an array with a rule
(srcad/rules/scipy_linalg.py). SciPy is the user's: it is imported wherever these run."""

from __future__ import annotations

import sys


def cho_factor_matrix(a, lower=False):
    """scipy.linalg.cho_factor(a, lower)[0]: the Cholesky factor in the triangle `lower`
    says, a's own entries in the other (SciPy leaves them)."""
    return sys.modules["scipy.linalg"].cho_factor(a, lower=lower)[0]


def cho_solve_matrix(c, b, lower):
    """scipy.linalg.cho_solve((c, lower), b)."""
    return sys.modules["scipy.linalg"].cho_solve((c, lower), b)
