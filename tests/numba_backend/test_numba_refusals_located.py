"""numba's refusal to compile srcad's code, where numba names no line srcad can lead back to
f (an attribute numba lacks on a NumPy float), names f's file and `def` line in the operators
too, as the transforms do (it named no file at all). `x.ndim`, `x.shape` and `x.size` of a
number compile (srcad writes NumPy's constants for them)."""

import numpy as np
import pytest

import srcad


def by_size(x):
    return x ** 3 if x.nbytes == 8 else np.sum(x)


def by_rank(x):
    return x ** 3 if x.ndim == 0 else np.sum(x)


@pytest.mark.slow  # runs numba's compiler: make test-all
@pytest.mark.parametrize("operator", ["gradient", "hessian"])
def test_numba_refusal_in_an_operator_names_fs_file(operator):
    with pytest.raises(srcad.SrcadError) as caught:
        getattr(srcad, operator)(by_size, np.float64(0.8), backend="numba")
    assert caught.value.filename == __file__
    assert str(caught.value).startswith(f"{__file__}:{by_size.__code__.co_firstlineno}: ")


@pytest.mark.slow  # runs numba's compiler: make test-all
def test_a_numbers_rank_compiles_in_the_operators():
    x = np.float64(0.8)  # f = x**3: f' = 3 x**2, f'' = 6 x
    assert srcad.gradient(by_rank, x, backend="numba") == pytest.approx(3 * 0.8 ** 2)
    assert srcad.hessian(by_rank, x, backend="numba") == pytest.approx(6 * 0.8)
