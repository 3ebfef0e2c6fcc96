"""Code srcad once crashed on (or answered wrongly) is refused by line: a write into a global
list or array (also from a helper; a local function writing the enclosing function's array
is inlined as that function's write), and a returned tuple holding a tuple that carries a
derivative (its tangent was silently zero)."""

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError

CALLS = [0]
GLOBAL_ROW = np.zeros(3)


def counted(x):
    CALLS[0] += 1
    return x * 2.0


def through_counted_helper(x):
    return counted(x) * x


def counts_itself(x):
    CALLS[0] = 5
    return x * x


def writes_global_array(x):
    GLOBAL_ROW[0] = x
    return x * x


def local_function_writes(x):
    out = np.zeros(3)

    def put(i, v):
        out[i] = v
    for i in range(3):
        put(i, x * i)
    return np.sum(out)


@pytest.mark.parametrize("f, line, name", [
    (through_counted_helper, "CALLS[0] += 1", "CALLS"), (counts_itself, "CALLS[0] = 5", "CALLS"),
    (writes_global_array, "GLOBAL_ROW[0] = x", "GLOBAL_ROW")])
def test_a_write_into_a_value_from_outside_is_refused_by_line(f, line, name):
    with pytest.raises(SrcadError) as info:
        srcad.grad(f)(3.0)
    message = str(info.value)
    assert "write to a global" in message and f"`{name}`" in message
    assert line in open(__file__).read().splitlines()[info.value.line - 1]
    assert CALLS[0] == 0 and not GLOBAL_ROW.any()  # nothing ran


def test_a_local_function_writing_the_enclosing_functions_array_is_its_write():
    # inlined, `out[i] = v` is f's own write (tests/frontend/test_local_function_writes.py)
    assert srcad.grad(local_function_writes)(3.0) == pytest.approx(0.0 + 1.0 + 2.0)


def nested_result(x):
    y = x * 2.0
    return y, (x * 3.0, y)


def with_empty_tuple(x):
    return x * 2.0, ()


@pytest.mark.parametrize("f, value, tangent, pulled", [
    (nested_result, (6.0, (9.0, 6.0)), (2.0, (3.0, 2.0)), 2 * 6.0 + 3 * 9.0 + 2 * 6.0),
    (with_empty_tuple, (6.0, ()), (2.0, ()), 12.0)])
def test_a_returned_tuple_holding_a_tuple_is_nested_as_jax_nests_it(f, value, tangent, pulled):
    """Written out on every return, the nesting comes back (srcad/api/nested_results.py):
    jax.jvp, jax.jacfwd and jax.vjp give these (an empty tuple is an empty pytree)."""
    assert srcad.jvp(f, (3.0,), (1.0,)) == (value, tangent)
    assert srcad.jacfwd(f)(3.0) == tangent
    assert srcad.vjp(f, 3.0)[1](f(3.0)) == (pulled,)


nested_lambda = lambda x: (x * 2.0, (x * 3.0, x))  # noqa: E731 - no copy with flat returns


@pytest.mark.parametrize("transform", [
    lambda f: srcad.jvp(f, (3.0,), (1.0,)), lambda f: srcad.jacfwd(f)(3.0),
    lambda f: srcad.vjp(f, 3.0)[1](f(3.0))])
def test_a_lambda_returning_a_tuple_holding_a_tuple_is_refused_not_zero(transform):
    with pytest.raises(SrcadError, match="returns a tuple holding a tuple") as info:
        transform(nested_lambda)
    assert "nested_lambda" in open(__file__).read().splitlines()[info.value.line - 1]


def loss_with_nested_aux(x):
    return np.sin(x) * 2.0, (x, ())


def test_a_nested_aux_passes_through_unchanged():
    g, aux = srcad.grad(loss_with_nested_aux, has_aux=True)(1.0)
    assert g == pytest.approx(2.0 * np.cos(1.0)) and aux == (1.0, ())
