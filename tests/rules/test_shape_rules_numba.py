"""The shape and movement family on the numba backend (srcad/runtime/numba_movement.py,
numba_selection.py), generated from the same cases as tests/rules/test_shape_rules.py: each
call x {reverse, forward, vector} against central finite differences. Every case compiles
numba code: one smoke test runs in `make test`, the rest in `make test-all`. np.diagonal and
np.trace of arrays of rank 3 (stacks) compile (srcad/runtime/numba_diagonals.py)."""


import numpy as np
import pytest

import srcad
from srcad.testing import check_grads
from tests.helpers import shape_rule_cases as cases
from tests.helpers.library_rule_cases import NUMBA_RULE_MODES

pytest.importorskip("numba")

SMOKE = {"np.roll(x * x, 1, 0) + np.flip(x, 0)"}


def _params():
    return [pytest.param(call, shape, marks=[] if call in SMOKE else [pytest.mark.slow],
                         id=cases.case_id(call, shape))
            for call, shape in cases.CASES]


def _annotated(value):
    return srcad.Active(value) if isinstance(value, float) else \
        srcad.Duplicated(value, np.zeros_like(value))


@pytest.mark.parametrize("call, shape", _params())
def test_rule_agrees_with_finite_differences_on_numba(call, shape):
    f = cases.function_of(call)
    check_grads(f, _annotated(cases.argument(shape)), rtol=1e-6, backend="numba",
                modes=NUMBA_RULE_MODES)
