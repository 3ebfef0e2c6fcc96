"""numba backend: tape sizes stay integers, and when numba refuses generated code srcad quotes
numba's own explanation instead of guessing a cause."""

import numpy as np
import pytest

import srcad
from srcad import Duplicated
from srcad.build.numba_errors import numba_first_line, raise_numba_error
from srcad.errors import SrcadError
from srcad.testing import check_grads

numba = pytest.importorskip("numba")


def two_taping_loops(x, n):
    s = 0.0
    for _ in range(3):
        for i in range(1, n):
            s = s * s * x[i] + 0.1
        for i in range(1, n):
            s = s * x[i] * s - 0.2
    return s


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_two_taping_loops_over_one_range_in_an_outer_loop():
    # both inner loops reserve len(range(1, n)) each per outer iteration: 2 * len(...)
    args = (Duplicated(np.array([0.1, 0.2, 0.3, 0.4]), np.zeros(4)), 4)
    text = srcad.source(two_taping_loops, srcad.Reverse, *args, backend="numba")
    assert "2 * len(range(1, n))" in text and "2.0 * len" not in text
    for backend in ("python", "numba"):
        check_grads(two_taping_loops, *args, backend=backend)


def _numba_error(function, *args):
    try:
        numba.njit(function)(*args)
    except Exception as err:  # numba's TypingError
        return err
    raise AssertionError("numba compiled it")


def _float_size(n):
    return np.empty(2.0 * n)


def test_refusal_quotes_numba_first_line():
    err = _numba_error(_float_size, 3)
    line = numba_first_line(str(err))
    assert line.startswith("No implementation of function") and ">>> empty(float64" in line
    with pytest.raises(SrcadError) as refused:
        raise_numba_error(err, "model.py")
    message = str(refused.value)
    assert line in message and "model.py" in message
    assert "every path" not in message  # not a variable undefined on a path


def test_other_errors_pass_through():
    assert raise_numba_error(ValueError("not numba")) is None
