"""A bounded run of fuzz/reassociated_sums.py: the sum-loop grammar's programs give the same
numbers (within the last bits) on the numba backend with and without
`SRCAD_NUMBA_REASSOCIATE=1`, and the reassociated derivatives agree with central differences."""

import pytest
import reassociated_sums


@pytest.mark.slow  # two numba compilations per mode and setting
def test_sum_loops_agree_with_and_without_reassociation():
    pytest.importorskip("numba")
    outcomes = {seed: reassociated_sums.check(seed)
                for seed in reassociated_sums.sum_seeds(40_000, 4)}
    assert set(outcomes.values()) <= {"agreed", "refused", "skipped"}, \
        f"fuzz/reassociated_sums.py --seed N --count 1: {outcomes}"
    assert "agreed" in outcomes.values()
