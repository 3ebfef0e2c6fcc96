"""A bounded run of fuzz/extremum_winners.py: gradients of running min/max loops whose numba
reverse code runs the winning step alone have the bits of the code without that rewrite
(forward mode's value where that one is NaN from 0 * v) and agree with the python backend."""

import extremum_winners
import pytest


@pytest.mark.slow  # two numba compilations of the reverse code per program
def test_running_extrema_gradients_have_the_bits_of_the_loops_as_written():
    pytest.importorskip("numba")
    outcomes = {seed: extremum_winners.check(seed) for seed in range(10)}
    assert all(o.startswith("agreed") for o in outcomes.values()), \
        f"fuzz/extremum_winners.py --seed N --count 1: {outcomes}"
    assert any(o.startswith("agreed rewritten") for o in outcomes.values())
    assert any(o.startswith("agreed as written") for o in outcomes.values())
