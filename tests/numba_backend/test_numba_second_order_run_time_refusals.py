"""A run-time refusal of numba's int powers (an int to a negative int power, a power beyond
int64) met in second order, where srcad's forward code of f is differentiated again: the
refusal names the user's file and line, not srcad's generated code
(`<srcad f_forward_tangent #45>:15`)."""

import inspect

import numpy as np
import pytest

import srcad


def halving_weights(x):
    s = 0.0
    for k in range(len(x)):
        s += x[k] * 2 ** -k
    return s * s


@pytest.mark.slow  # compiles numba code: make test-all
@pytest.mark.parametrize("operator", ["hessian", "hvp"])
def test_int_power_refusal_in_second_order_names_the_users_line(operator):
    x = np.array([0.5, 1.5, -2.0])
    line = inspect.getsourcelines(halving_weights)[1] + 3
    options = {"tangent": np.ones(3)} if operator == "hvp" else {}
    with pytest.raises(ValueError) as caught:
        getattr(srcad, operator)(halving_weights, x, backend="numba", **options)
    message = str(caught.value)
    assert message.startswith(f"{__file__}:{line}: `2 ** (-k)`: an int to a negative int")
    assert "<srcad" not in message
