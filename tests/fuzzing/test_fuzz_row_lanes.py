"""A bounded run of fuzz/row_lanes.py: k-means-shaped nests of row sums over points (the points
in lanes, or left as written) give on the numba backend the bits CPython and numba's
compilation of the nest as written give, across the block of points and the coordinates per
pass, with ties, NaN, infinities and zeros of both signs."""

import pytest
import row_lanes


@pytest.mark.slow  # two numba compilations per program
def test_points_in_lanes_have_the_bits_of_the_nests_as_written():
    pytest.importorskip("numba")
    outcomes = {seed: row_lanes.check(seed) for seed in range(12)}
    assert all(o.startswith("agreed") for o in outcomes.values()), \
        f"fuzz/row_lanes.py --seed N --count 1: {outcomes}"
    assert "agreed in lanes" in outcomes.values() and "agreed as written" in outcomes.values()
