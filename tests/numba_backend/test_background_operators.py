"""compile="background" of the function transforms (grad, value_and_grad, jacfwd, jacrev) and
of the operators (gradient, jacobian, hessian and their preparations): the python backend
answers the first calls while numba compiles on a thread, then numba answers; the answers
agree with central differences and with each other (srcad/operators/background_operators.py).
Which backend answered is counted (srcad/build/background.py); nothing here times anything."""

import numpy as np
import pytest

import srcad
from srcad.build import background
from srcad.errors import ArgumentError

pytest.importorskip("numba")

X = np.array([0.3, -1.2, 0.7, 2.0])


@pytest.fixture(autouse=True)
def counted_afresh():
    background.wait()  # another test's compilations finished, then forgotten with the counts
    background.clear()


def _central(f, x, eps=1e-6):
    columns = []
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        columns.append((np.asarray(f(up)) - np.asarray(f(down))) / (2 * eps))
    return np.moveaxis(np.array(columns), 0, -1)


def chain_energy(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += np.log(1.0 + np.exp(x[i] * x[i - 1])) / (1.0 + i)
    return s


def chain_map(x):
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = np.sin(x[i]) * x[i - 1]
    return y


def _answers(f):
    return (background.answered.get((f, "python"), 0),
            background.answered.get((f, "numba"), 0))


def test_grad_in_the_background_answers_by_python_then_numba():  # the fast smoke test
    gradient = srcad.grad(chain_energy, backend="numba", compile="background")
    first = gradient(X)
    assert _answers(chain_energy) == (1, 0)
    background.wait()
    later = gradient(X)
    assert _answers(chain_energy) == (1, 1)
    np.testing.assert_allclose(first, _central(chain_energy, X), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(later, first, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("transform", [srcad.grad, srcad.value_and_grad, srcad.jacfwd,
                                       srcad.jacrev])
@pytest.mark.parametrize("compile_, backend", [("later", "numba"), ("background", "python")])
def test_transforms_refuse_a_compile_they_do_not_take(transform, compile_, backend):
    with pytest.raises(ArgumentError, match="compile"):
        transform(chain_energy, backend=backend, compile=compile_)


@pytest.mark.parametrize("compile_, backend", [("later", "numba"), ("background", "python")])
def test_operators_refuse_a_compile_they_do_not_take(compile_, backend):
    with pytest.raises(ArgumentError, match="compile"):
        srcad.gradient(chain_energy, X, backend=backend, compile=compile_)


@pytest.mark.slow  # compiles numba code: make test-all
@pytest.mark.parametrize("transform, f", [(srcad.value_and_grad, chain_energy),
                                          (srcad.jacfwd, chain_map),
                                          (srcad.jacrev, chain_map)])
def test_transforms_in_the_background(transform, f):
    waiting = transform(f, backend="numba")(X)
    answer = transform(f, backend="numba", compile="background")
    first = answer(X)
    background.wait()
    later = answer(X)
    assert _answers(f) == (1, 1)
    if transform is srcad.value_and_grad:
        assert first[0] == pytest.approx(f(X), rel=1e-14)
        first, later, waiting = first[1], later[1], waiting[1]
    np.testing.assert_allclose(first, _central(f, X), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(later, waiting, rtol=1e-14, atol=0)


@pytest.mark.slow  # compiles numba code: make test-all
@pytest.mark.parametrize("operator, f, expected", [
    (srcad.gradient, chain_energy, lambda x: _central(chain_energy, x)),
    (srcad.jacobian, chain_map, lambda x: _central(chain_map, x)),
    (srcad.hessian, chain_energy, lambda x: _central(srcad.grad(chain_energy), x))])
def test_operators_in_the_background(operator, f, expected):
    first = operator(f, X, backend="numba", compile="background")
    assert _answers(f) == (1, 0)
    background.wait()
    later = operator(f, X, backend="numba", compile="background")
    assert _answers(f) == (1, 1)
    np.testing.assert_allclose(first, expected(X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(later, first, rtol=1e-12, atol=1e-12)


@pytest.mark.slow  # compiles numba code: make test-all
def test_a_preparation_in_the_background_switches_to_numba():
    prep = srcad.prepare_gradient(chain_energy, X, backend="numba", compile="background")
    first = srcad.gradient(chain_energy, X, prep=prep)
    background.wait()
    y = X[::-1].copy()
    later = srcad.value_and_gradient(chain_energy, y, prep=prep)
    assert _answers(chain_energy)[1] >= 1 and prep.current().engine.backend == "numba"
    np.testing.assert_allclose(first, _central(chain_energy, X), rtol=1e-7, atol=1e-9)
    assert later[0] == pytest.approx(chain_energy(y), rel=1e-14)
    np.testing.assert_allclose(later[1], _central(chain_energy, y), rtol=1e-7, atol=1e-9)
