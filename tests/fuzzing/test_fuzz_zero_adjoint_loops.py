"""A bounded run of fuzz/zero_adjoint_loops.py: nearest- and farthest-centroid sums whose numba
reverse code runs the reverse of an inner reduction only for a nonzero adjoint give the bits of
the code without the guard (forward mode's value where that one is NaN from 0 * inf), and
numba's gradient_and_hvp agrees with the python backend's."""

import pytest
import zero_adjoint_loops


@pytest.mark.slow  # two numba compilations of the reverse code per program, one second order
def test_guarded_reverse_loops_give_the_gradient_of_the_loops_as_written():
    pytest.importorskip("numba")
    outcomes = {seed: zero_adjoint_loops.check(seed) for seed in range(8)}
    assert all(o.startswith("agreed") for o in outcomes.values()), \
        f"fuzz/zero_adjoint_loops.py --seed N --count 1: {outcomes}"
    assert any(o.startswith("agreed guarded") for o in outcomes.values())
