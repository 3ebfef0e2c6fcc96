"""The rules of the NumPy families, generated from the rule table (tests/numpy_rule_cases.py):
each float ufunc x operand shapes that broadcast, each reduction and scan x its keywords,
x {reverse, forward, vector} on the python backend against central finite differences; the
numba backend on one shape of each (marked slow); JAX's derivative at the points where a
function has none; keywords srcad does not follow refused by name."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import srcad
from srcad.rules import numpy_entries
from srcad.testing import check_grads
from tests import numpy_rule_cases as cases

jax.config.update("jax_enable_x64", True)

UFUNCS = cases.ufunc_cases()
STEPS = cases.step_cases()
REDUCTIONS = cases.reduction_cases()


def _annotated(values):
    return [srcad.Active(v) if isinstance(v, float)
            else srcad.Duplicated(v.copy(), np.zeros_like(v)) for v in values]


def _check(call, args, **options):
    f = cases.function_of(call, len(args))
    check_grads(f, *_annotated(args), rtol=1e-6, **options)


@pytest.mark.parametrize("case", UFUNCS + STEPS, ids=[c[0] for c in UFUNCS + STEPS])
def test_ufunc_agrees_with_finite_differences_in_every_mode(case):
    _check(case[1], case[2])


@pytest.mark.parametrize("case", REDUCTIONS, ids=[c[0] for c in REDUCTIONS])
def test_reduction_agrees_with_finite_differences_in_every_mode(case):
    _check(case[1], case[2])


def test_every_entry_has_cases():
    assert set(numpy_entries._UFUNCS) <= set(cases.UFUNC_DOMAINS)
    assert {fn.__name__ for fn, _, _ in numpy_entries._REDUCTIONS} <= set(cases.REDUCTION_CALLS)
