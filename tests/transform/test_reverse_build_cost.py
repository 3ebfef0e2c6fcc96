"""The reverse transform's work on long code: what it asks of the whole function only where
the answer can matter (srcad/transform/reverse/arrays.py)."""

import numpy as np

import srcad


def test_an_active_array_bound_once_counts_no_growths(monkeypatch):
    # the growths of a list's buffer (a walk of the whole function) matter only for an
    # array bound more than once; ht's reverse code counted them for every active array
    from srcad.transform.reverse import arrays

    counted, original = [], arrays.growths
    monkeypatch.setattr(arrays, "growths", lambda body, name: counted.append(name)
                        or original(body, name))
    x = np.array([0.3, 0.2, 0.5])
    np.testing.assert_allclose(srcad.grad(_scaled_copy_sum)(x), 2.0 * np.ones(3))
    assert counted == []


def _scaled_copy_sum(x):
    y = np.zeros(3)
    for i in range(3):
        y[i] = 2.0 * x[i]
    return np.sum(y)
