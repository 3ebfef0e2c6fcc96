"""A module that never imports NumPy: the lists srcad lowers to arrays still lower (srcad's own
code names NumPy, not the user's module), and the user's own unbound `np` stays unbound."""
import math

import pytest
from helpers.user_modules import load_module

import srcad

SOURCE = """
    import math

    def grown(x):
        terms = []
        for k in range(3):
            terms.append(math.sin(x * k))
        return sum(terms)

    def unbound(x):
        return np.sin(x)
"""


def test_a_list_grows_in_a_module_without_numpy(tmp_path):
    m = load_module(tmp_path, "module_without_numpy", SOURCE)
    expected = sum(k * math.cos(0.7 * k) for k in range(3))  # d/dx sum sin(kx)
    assert srcad.grad(m.grown)(0.7) == pytest.approx(expected, rel=1e-12)
    assert srcad.gradient(m.grown, 0.7, mode="forward") == pytest.approx(expected, rel=1e-12)


def test_the_users_own_np_stays_unbound(tmp_path):
    m = load_module(tmp_path, "module_without_numpy_2", SOURCE)
    with pytest.raises(Exception) as caught:
        m.unbound(0.7)
    assert isinstance(caught.value, NameError)
    with pytest.raises((NameError, srcad.SrcadError)):
        srcad.grad(m.unbound)(0.7)
