"""A bounded run of fuzz/column_jam.py: triangles of columns added into a work vector (jammed
four columns at a time, or left as written) give on the numba backend the bits numba's
compilation of the nest as written gives, and their reverse gradients agree with the python
backend's."""

import column_jam
import pytest


@pytest.mark.slow  # numba compilations per program
def test_jammed_columns_have_the_bits_of_the_nests_as_written():
    pytest.importorskip("numba")
    outcomes = {seed: column_jam.check(seed) for seed in range(10)}
    assert all(o.startswith("agreed") for o in outcomes.values()), \
        f"fuzz/column_jam.py --seed N --count 1: {outcomes}"
    assert "agreed jammed" in outcomes.values() and "agreed as written" in outcomes.values()
