"""Methods of a module-level object called inside the differentiated function
(`MODEL.loss(w)`): inlined as bound methods, self's attributes read as constants and checked
like globals (rebinding an attribute, changing an array in place or rebinding the object is
seen on the next call); a method writing into self is refused by line."""

import numpy as np
import pytest

import srcad
from srcad.errors import SrcadError
from srcad.testing import check_grads
from tests.objects.test_bound_methods import Model


class ShiftingModel(Model):
    def shifted_loss(self, w):
        self.A[0, 0] = self.A[0, 0] + 1.0
        return np.sum(w * w)


MODEL = ShiftingModel(2.0, np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]]))
W = np.array([0.2, -0.4, 1.1])


def objective(w):
    return MODEL.loss(w) + w[0]


def shifting(w):
    return MODEL.shifted_loss(w)


def _expected(model, w):
    return 2.0 * model.scale * model.A.T @ (model.A @ w - 1.0) + np.eye(3)[0]


def test_a_module_level_objects_method_is_differentiated():
    np.testing.assert_allclose(srcad.grad(objective)(W), _expected(MODEL, W), rtol=1e-12)
    check_grads(objective, srcad.Duplicated(W.copy(), np.zeros(3)), modes=("fwd", "rev", "vec"))


def test_changes_to_the_object_are_seen_like_changes_to_globals():
    global MODEL
    kept = MODEL
    try:
        srcad.grad(objective)(W)
        MODEL.scale = 3.0  # an attribute rebound
        np.testing.assert_allclose(srcad.grad(objective)(W), _expected(MODEL, W), rtol=1e-12)
        MODEL.A[1, 2] = 5.0  # an array changed in place
        np.testing.assert_allclose(srcad.grad(objective)(W), _expected(MODEL, W), rtol=1e-12)
        MODEL = Model(0.5, np.ones((2, 3)))  # the object rebound
        np.testing.assert_allclose(srcad.grad(objective)(W), _expected(MODEL, W), rtol=1e-12)
    finally:
        MODEL = kept
        kept.scale, kept.A = 2.0, np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]])


def test_a_method_writing_into_self_is_refused_by_line():
    line = ShiftingModel.shifted_loss.__code__.co_firstlineno + 1
    with pytest.raises(SrcadError, match=rf"test_global_object_methods.py:{line}:.*`self.A` "
                       "is written into"):
        srcad.grad(shifting)(W)


@pytest.mark.slow  # numba compilation
def test_a_module_level_objects_method_on_numba():
    pytest.importorskip("numba")
    np.testing.assert_allclose(srcad.grad(objective, backend="numba")(W), _expected(MODEL, W),
                               rtol=1e-12)
