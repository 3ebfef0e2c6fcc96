"""Every mode compiled by numba gives the same derivatives (checked against finite
differences, forward against reverse) as the python backend, on representative constructs."""

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads

pytest.importorskip("numba")

import test_reverse_constructs as constructs  # noqa: E402

TABLES = [constructs.SCALAR_CASES, constructs.LOOP_CASES, constructs.ARRAY_CASES,
          constructs.CALL_CASES, constructs.HELPER_CASES, constructs.CROSSING_CASES,
          constructs.EARLY_EXIT_CASES]
CASES = [(f, args() if callable(args) else args) for table in TABLES for f, args in table]


@pytest.mark.parametrize("f, args", CASES, ids=[f"{f.__name__}-{k}" for k, (f, _) in
                                               enumerate(CASES)])
def test_numba_backend_matches_finite_differences(f, args):
    check_grads(f, *args, backend="numba")
