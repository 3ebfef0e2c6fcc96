"""The shape and movement family on the numba backend (srcad/runtime/numba_movement.py,
numba_selection.py), generated from the same cases as tests/rules/test_shape_rules.py: each
call x {reverse, forward, vector} against central finite differences. Every case compiles
numba code: one smoke test runs in `make test`, the rest in `make test-all`. np.diagonal and
np.trace of arrays of rank 3 stay refused, naming the function."""

import re

import numpy as np
import pytest

import srcad
from srcad.testing import check_grads
from tests.helpers import shape_rule_cases as cases
from tests.helpers.library_rule_cases import NUMBA_RULE_MODES

pytest.importorskip("numba")

SMOKE = {"np.roll(x * x, 1, 0) + np.flip(x, 0)"}
# numba_selection.py compiles the diagonal of a matrix only
REFUSED = {"np.diagonal(x, offset=-1, axis1=1, axis2=2)", "x.diagonal(0, 2, 0)",
           "np.trace(x, offset=-1, axis1=1, axis2=2)"}


def _params():
    return [pytest.param(call, shape, marks=[] if call in SMOKE else [pytest.mark.slow],
                         id=cases.case_id(call, shape))
            for call, shape in cases.CASES if call not in REFUSED]


def _annotated(value):
    return srcad.Active(value) if isinstance(value, float) else \
        srcad.Duplicated(value, np.zeros_like(value))


@pytest.mark.parametrize("call, shape", _params())
def test_rule_agrees_with_finite_differences_on_numba(call, shape):
    f = cases.function_of(call)
    check_grads(f, _annotated(cases.argument(shape)), rtol=1e-6, backend="numba",
                modes=NUMBA_RULE_MODES)


@pytest.mark.slow  # numba compilations: make test-all
@pytest.mark.parametrize("call", sorted(REFUSED))
def test_the_diagonal_of_a_stack_is_refused_naming_the_function(call):
    shape = next(s for c, s in cases.CASES if c == call)
    name = re.search(r"(diagonal|trace)", call).group(1)
    with pytest.raises(srcad.SrcadError, match=rf"numba has no `np.{name}` for these operands"):
        srcad.gradient(cases.function_of(call), cases.argument(shape), backend="numba")


def test_every_refused_case_is_a_case():
    assert REFUSED <= {call for call, _ in cases.CASES}
