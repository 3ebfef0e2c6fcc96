"""A bounded run of the vmap check (fuzz/vmap_check.py): the grammar's programs, plain and
whole-array, vmapped over a batch against a loop over their examples, and their per-example
gradients against a loop of `srcad.grad`. No disagreement and no crash; most array programs
are lifted into whole-array code."""

import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(__file__, "..", "..", ".."))
FUZZ = os.path.join(ROOT, "fuzz")
if FUZZ not in sys.path:
    sys.path.insert(0, FUZZ)

import vmap_check  # noqa: E402


@pytest.mark.parametrize("arrays, count", [(False, 6), pytest.param(True, 30,
                                                                  marks=pytest.mark.slow)])
def test_vmapped_programs_agree_with_a_loop_over_their_examples(arrays, count):
    outcomes = []
    for seed in range(count):
        outcomes += vmap_check.check_seed(seed, arrays, grad=True, timeout=60.0)
    failures = [o for o in outcomes if o[0] in ("disagreed", "crashed", "timeout")]
    assert not failures, failures
    if arrays:
        assert sum(o[0] == "lifted" for o in outcomes) >= count // 3


def test_the_forms_vmap_does_not_lift_agree_with_a_loop():
    """Helpers, a dict of arguments, a while differing per example and nested vmap (of a
    gradient too) over the grammar's programs (fuzz/vmap_forms.py)."""
    outcomes = []
    for seed in range(8):
        outcomes += vmap_check.check_seed(seed, False, grad=True, timeout=60.0, forms=True)
    failures = [o for o in outcomes if o[0] in ("disagreed", "crashed", "timeout")]
    assert not failures, failures
    assert {o[1] for o in outcomes if o[0] == "agreed"} >= {"helper", "nested"}
