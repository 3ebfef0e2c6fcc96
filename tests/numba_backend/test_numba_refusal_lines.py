"""A call numba's own compiler has no implementation for (np.linalg.matrix_power or svd of a
stack of matrices) is refused naming the user's file and
line, also where the call is in the forward sweep of reverse mode, whose statements carry no
`# line N:` comment (srcad/build/numba_lines.py)."""

import numpy as np
import pytest

import srcad

pytest.importorskip("numba")


def power_of_a_stack(x):
    y = x + 1.0
    return np.sum(np.linalg.matrix_power(y, 3))


def singular_values_of_a_stack(x):
    return np.sum(np.linalg.svd(x, compute_uv=False))


CASES = [pytest.param(power_of_a_stack, "np.linalg.matrix_power", srcad.Reverse, id="power-rev"),
         pytest.param(power_of_a_stack, "np.linalg.matrix_power", srcad.Forward, id="power-fwd",
                      marks=pytest.mark.slow),
         pytest.param(singular_values_of_a_stack, "np.linalg.svd", srcad.Reverse, id="svd-rev",
                      marks=pytest.mark.slow)]


@pytest.mark.parametrize("f, name, mode", CASES)
def test_a_call_numba_cannot_type_is_refused_at_the_users_line(f, name, mode):
    x = np.arange(18.0).reshape(2, 3, 3) * 0.1
    with pytest.raises(srcad.SrcadError) as refused:
        srcad.autodiff(mode, f, srcad.Duplicated(x, np.ones_like(x)), backend="numba")
    assert f"numba has no `{name}` for these operands" in str(refused.value)
    assert refused.value.filename == __file__
    lines = [line for _, _, line in f.__code__.co_lines() if line is not None]
    assert refused.value.line == max(lines)  # the return line, which makes the call
