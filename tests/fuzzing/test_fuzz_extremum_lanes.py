"""A bounded run of fuzz/extremum_lanes.py: running min/max loops (in lanes or left as written)
give on the numba backend the bits CPython and numba's compilation of the loop as written give,
on inputs with NaN, zeros of both signs, ties and infinities."""

import extremum_lanes
import pytest


@pytest.mark.slow  # a numba compilation per function, two per program
def test_running_extrema_have_the_bits_of_the_loops_as_written():
    pytest.importorskip("numba")
    outcomes = {seed: extremum_lanes.check(seed) for seed in range(12)}
    assert all(o.startswith("agreed") for o in outcomes.values()), \
        f"fuzz/extremum_lanes.py --seed N --count 1: {outcomes}"
    assert "agreed in lanes" in outcomes.values()
    assert any(o.startswith("agreed, rows at once") for o in outcomes.values())
    assert "agreed, index in lanes" in outcomes.values()
