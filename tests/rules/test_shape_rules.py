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

IDS = [cases.case_id(call, shape) for call, shape in cases.CASES]


def _annotated(value):
    return srcad.Active(value) if isinstance(value, float) else \
        srcad.Duplicated(value, np.zeros_like(value))


@pytest.mark.parametrize("call, shape", cases.CASES, ids=IDS)
def test_rule_agrees_with_finite_differences_in_every_mode(call, shape):
    f = cases.function_of(call)
    check_grads(f, _annotated(cases.argument(shape)), rtol=1e-6)


def test_every_family_function_has_cases():
    called = {name for call, _ in cases.CASES for name in re.findall(r"np\.(\w+)\(", call)}
    family = {fn.__name__ for fn, *_ in movement.ENTRIES + selection.ENTRIES}
    assert family <= called, family - called
