"""A bounded run of fuzz/outer_lanes.py: loops over points running a loop over components (the
points put in lanes innermost, or left as written) give on the numba backend the bits numba's
compilation of the nest as written gives, and their forward tangents agree with the python
backend's."""

import outer_lanes
import pytest


@pytest.mark.slow  # numba compilations per program
def test_points_in_lanes_have_the_bits_of_the_nests_as_written():
    pytest.importorskip("numba")
    outcomes = {seed: outer_lanes.check(seed) for seed in range(10)}
    assert all(o.startswith("agreed") for o in outcomes.values()), \
        f"fuzz/outer_lanes.py --seed N --count 1: {outcomes}"
    assert "agreed in lanes" in outcomes.values() and "agreed as written" in outcomes.values()
