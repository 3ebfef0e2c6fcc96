"""A bounded run of the fuzzer of what f returns (fuzz/output_kinds.py): floats and arrays in
many spellings, each through gradient, hvp, pullback and pushforward; every result agrees with
central differences or an array-valued f is refused by the operators that need a float, and
preparing a float-valued f does not run it."""

import output_kinds
import pytest


@pytest.mark.slow  # two seeds, four preparations each (tests/operators/test_output_kind_untraced.py
# is the fast one)
def test_output_kinds_agree_or_refuse_without_running_f():
    # seed 0 returns np.sum(z, keepdims=True), an array; seed 1 a float
    outcomes = [outcome for seed in (0, 1) for outcome, _ in output_kinds.check(seed, "python")]
    assert set(outcomes) <= {"agreed (f not run)", "agreed (array)", "array refused"}, outcomes
    assert "agreed (f not run)" in outcomes and "array refused" in outcomes
