"""The shape and movement family of the rule table (srcad/rules/movement.py,
srcad/rules/selection.py), generated from its cases: each call x {reverse, forward, vector} on
the python backend against central finite differences (srcad.testing.check_grads)."""

import re

import numpy as np
import pytest

import srcad
from srcad.rules import movement, selection
from srcad.testing import check_grads
from tests.helpers import shape_rule_cases as cases

# the smoke tests `make test` runs: one call of a few functions; every case runs in CI
SMOKE = {"np.tile(x, (2, 1))", "np.pad(x, (2, 1), 'reflect')", "np.sort(x, axis=0)",
         "np.take(x, IDX2, axis=0)", "np.trace(x, offset=-1, axis1=1, axis2=2)",
         "x.trace(offset=1)"}


def _params():
    """Each case, marked slow (`make test-all`) unless it is a smoke test."""
    out = []
    for call, shape in cases.CASES:
        marks = [] if call in SMOKE else [pytest.mark.slow]
        out.append(pytest.param(call, shape, marks=marks, id=cases.case_id(call, shape)))
    return out


def _annotated(value):
    return srcad.Active(value) if isinstance(value, float) else \
        srcad.Duplicated(value, np.zeros_like(value))


@pytest.mark.parametrize("call, shape", _params())
def test_rule_agrees_with_finite_differences_in_every_mode(call, shape):
    f = cases.function_of(call)
    check_grads(f, _annotated(cases.argument(shape)), rtol=1e-6)


def test_every_family_function_has_cases():
    called = {name for call, _ in cases.CASES for name in re.findall(r"np\.(\w+)\(", call)}
    family = {fn.__name__ for fn, *_ in movement.ENTRIES + selection.ENTRIES}
    assert family <= called, family - called
