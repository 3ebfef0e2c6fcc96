"""A bounded run of fuzz/output_jacobians.py: reverse-mode jacobians of random functions
writing an Output and a Cache (W rows a sweep, lanes stopped at some calls) agree with central
differences and forward mode and leave f's values in the Output."""

import output_jacobians
import pytest


@pytest.mark.parametrize("seed", range(10))
def test_output_jacobians_agree(seed):
    results = output_jacobians.check(seed, "python")
    bad = [(outcome, what) for outcome, what in results if outcome in ("wrong", "refused")]
    assert not bad, f"python fuzz/output_jacobians.py --seed {seed} --count 1: {bad}"
    assert any(outcome.startswith("W = ") for outcome, _ in results)  # the lanes ran
