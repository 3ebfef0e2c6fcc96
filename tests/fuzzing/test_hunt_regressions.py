"""Programs an outside user writes that srcad once differentiated silently wrong; each is now
differentiated right (checked against central differences and forward against reverse) or
refused with the file, line and construct."""

import numpy as np
import pytest

import srcad
from srcad import Duplicated
from srcad.testing import check_grads

X = np.array([0.3, 0.7, -1.2])


def dup(x):
    return Duplicated(x.copy(), np.zeros_like(x))


# --- writes into a view made in the target itself -------------------------------------------

def row_slice_writes(x):
    # y[1][:] and y[2][1:] write rows of y (NumPy: a view of row 1, row 2); once the
    # derivative went to y_bar[:] and y_bar[1:], whole rows of y
    y = np.zeros((3, 3))
    y[0][1] = x[0]
    y[1][:] = x
    y[2][1:] = x[:2] * 2.0
    y[2][:2] += x[1:]
    return y[0, 1] * 3.0 + np.sum(y[1] * np.arange(3.0)) + np.sum(y[2] * np.array([1.0, 5.0,
                                                                                   9.0]))


def _row_slice_writes_by_hand(x):
    # 3 x0 + (0 x0 + 1 x1 + 2 x2) + (1 x1 + 5 (2 x0 + x2) + 9 (2 x1))
    return np.array([3.0 + 10.0, 1.0 + 1.0 + 18.0, 2.0 + 5.0])


def row_slice_writes_in_loop(x):
    y = np.zeros((3, 3))
    for i in range(3):
        y[i][:] = x * i
        y[i][i:] += x[i:]
    return np.sum(y * y)


def test_row_slice_writes_compose_into_one_index():
    g = srcad.grad(row_slice_writes)(X.copy())
    np.testing.assert_allclose(g, _row_slice_writes_by_hand(X), rtol=1e-12)
    check_grads(row_slice_writes, dup(X))
    check_grads(row_slice_writes_in_loop, dup(X))


def transposed_write(x):
    y = np.zeros((3, 3))
    y.T[0] = x  # writes column 0 of y
    return np.sum(y[:, 0] * 7.0) + y[0, 1]


def reshaped_write(x):
    y = np.zeros(9)
    y.reshape(3, 3)[0] = x  # writes y[:3]
    return np.sum(y[:3] * np.arange(3.0))


def transposed_argument_write(a):
    a.T[0] = 1.0
    return np.sum(a ** 2)


@pytest.mark.parametrize("f, construct", [(transposed_write, "y.T[0]"),
                                          (reshaped_write, "y.reshape(3, 3)[0]")])
@pytest.mark.parametrize("mode", [srcad.Reverse, srcad.Forward])
def test_write_through_a_view_in_the_target_is_refused(f, construct, mode):
    # once: the reverse derivative went to y[0] (transposed) or nowhere (reshaped); forward
    # mode crashed with an AttributeError
    with pytest.raises(srcad.UnsupportedSyntaxError, match="write through a view") as err:
        srcad.autodiff(mode, f, dup(X))
    assert err.value.filename == __file__ and construct in str(err.value)


def test_write_through_a_transposed_argument_is_refused():
    a = np.arange(9.0).reshape(3, 3)
    with pytest.raises(srcad.UnsupportedSyntaxError, match="a.T"):
        srcad.grad(transposed_argument_write)(a)


# --- the same array passed as two arguments, one of them written ------------------------------

def sine_into(y, x):
    y[:] = np.sin(x) + x[0]


def product(x, y):
    return np.sum(x * y ** 2)


def test_aliased_output_and_input_are_refused():
    # once: reverse mode with one shadow for both gave [6.83, 1.17, 2.42] where the aliased
    # program's vector-Jacobian product is [6.96, 1.53, 1.09]; the jacobian operator with
    # Output(y) and y as x left out the x[0] column's contribution through the write
    x = X.copy()
    d = np.array([1.0, 2.0, 3.0])
    with pytest.raises(srcad.ArgumentError, match="same array") as err:
        srcad.autodiff(srcad.Reverse, sine_into, Duplicated(x, d), Duplicated(x, d))
    assert err.value.filename == __file__ and "`y` (argument 0)" in str(err.value)
    with pytest.raises(srcad.ArgumentError, match="same array"):
        srcad.autodiff(srcad.Forward, sine_into, Duplicated(x, d), Duplicated(x, d))
    with pytest.raises(srcad.ArgumentError, match="same array"):
        srcad.jacobian(sine_into, srcad.Output(x), x)
    with pytest.raises(srcad.ArgumentError, match="same array"):  # overlapping views
        y = np.zeros(4)
        srcad.autodiff(srcad.Reverse, sine_into, Duplicated(y[1:], np.ones(3)),
                       Duplicated(y[:3], np.zeros(3)))
    # f(x, x) where f writes neither is differentiated: the sum of both derivatives
    d = np.zeros(3)
    srcad.autodiff(srcad.Reverse, product, Duplicated(x, d), Duplicated(x, d))
    np.testing.assert_allclose(d, 3.0 * X ** 2, rtol=1e-12)


def test_aliased_arguments_refused_on_the_fast_path_too():
    # a first call with separate arrays records a plan; the aliased call must not reuse it
    for mode in (srcad.Reverse, srcad.Forward):
        srcad.autodiff(mode, sine_into, dup(X), dup(X))
        x = X.copy()
        with pytest.raises(srcad.ArgumentError, match="same array"):
            srcad.autodiff(mode, sine_into, Duplicated(x, np.ones(3)),
                           Duplicated(x, np.ones(3)))
    y = np.zeros(3)
    prep = srcad.prepare_jacobian(sine_into, srcad.Output(y), X.copy())
    srcad.jacobian(sine_into, srcad.Output(y), X.copy(), prep=prep)
    x = X.copy()
    with pytest.raises(srcad.ArgumentError, match="same array"):
        srcad.jacobian(sine_into, srcad.Output(x), x, prep=prep)



def squares_into(y, x):
    for i in range(len(x)):
        y[i] = x[i] ** 2 + x[0]


def container_write(p, x):
    p["y"][:] = np.sin(x)
    return np.sum(p["y"] * p["w"])


def test_aliased_arguments_refused_in_batched_reverse_mode_and_containers():
    # once: batched reverse mode ran (and gave the unaliased program's products); a container
    # leaf that is another argument crashed with a TypeError
    x = X.copy()
    lanes = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]])
    with pytest.raises(srcad.ArgumentError, match="same array"):
        srcad.autodiff(srcad.Reverse, squares_into, srcad.BatchDuplicated(x, lanes.copy()),
                       srcad.BatchDuplicated(x, lanes.copy()))
    params = Duplicated({"y": x, "w": np.ones(3)}, {"y": np.zeros(3), "w": np.zeros(3)})
    with pytest.raises(srcad.ArgumentError, match="same array"):
        srcad.autodiff(srcad.Reverse, container_write, params, Duplicated(x, np.zeros(3)))


def row_tail_update(a, w, s):
    b = a.copy()
    b[0][1:] = b[0][1:] * b[0][1:] * 0.5 + w[1:]  # read and written as b[0, 1:]
    b[1][:] += w * s
    return np.sum(b * b)


def test_slices_of_rows_are_read_and_written_as_one_index():
    # once: the reads b[0][1:] were refused as whole-array code; the write b[1][:] += ...
    # crashed forward mode and gave a wrong reverse gradient
    a = np.arange(9.0).reshape(3, 3) * 0.1
    w = np.array([0.1, 0.2, 0.3])
    check_grads(row_tail_update, dup(a), dup(w), srcad.Active(0.5))
    check_grads(row_tail_update, a, dup(w), srcad.Active(0.5))


# --- second order of a recurrence written into a copy -----------------------------------------

def recurrence(x):
    y = x.copy()
    for i in range(1, 3):
        y[i] = y[i - 1] * x[i]
    return np.sum(y ** 2)


def _recurrence_hessian(x):
    # f = x0^2 + (x0 x1)^2 + (x0 x1 x2)^2
    x0, x1, x2 = x
    return np.array([
        [2 + 2 * x1 ** 2 + 2 * (x1 * x2) ** 2, 4 * x0 * x1 + 4 * x0 * x1 * x2 ** 2,
         4 * x0 * x1 ** 2 * x2],
        [4 * x0 * x1 + 4 * x0 * x1 * x2 ** 2, 2 * x0 ** 2 + 2 * (x0 * x2) ** 2,
         4 * x0 ** 2 * x1 * x2],
        [4 * x0 * x1 ** 2 * x2, 4 * x0 ** 2 * x1 * x2, 2 * (x0 * x1) ** 2]])


def test_hessian_of_a_recurrence_on_the_python_backend():
    # once: refused with the line of srcad's generated reverse code (`<srcad q5_reverse>`),
    # not of f; forward over reverse cannot differentiate that code, so the default mode now
    # runs reverse over forward there
    H = _recurrence_hessian(X)
    np.testing.assert_allclose(srcad.hessian(recurrence, X.copy()), H, rtol=1e-12)
    v = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(srcad.hvp(recurrence, X.copy(), tangent=v), H @ v, rtol=1e-12)
    g, hv = srcad.gradient_and_hvp(recurrence, X.copy(), tangent=v)
    np.testing.assert_allclose(hv, H @ v, rtol=1e-12)
    np.testing.assert_allclose(g, srcad.grad(recurrence)(X.copy()), rtol=1e-12)


# --- an Output whose content on entry f reads, under operators that run f several times -----

def scale_into(y, x):
    for i in range(len(x)):
        y[i] = y[i] * x[i] + x[i] ** 2


@pytest.mark.parametrize("options", [dict(mode="reverse"), dict(mode="forward", chunk=1)])
def test_output_read_on_entry_starts_every_pass_from_its_entry_content(options):
    # once: each reverse pass (one per row) or forward chunk started from what the previous
    # pass left in y: J's diagonal was [1.6, 2.59, -1.248], not [1.6, 2.4, -1.4], and y held
    # f applied three times
    y = np.ones(3)
    J = srcad.jacobian(scale_into, srcad.Output(y), X.copy(), **options)
    np.testing.assert_allclose(J, np.diag(1.0 + 2.0 * X), rtol=1e-12)
    np.testing.assert_allclose(y, X + X ** 2, rtol=1e-12)
    prep = srcad.prepare_jacobian(scale_into, srcad.Output(np.ones(3)), X.copy(), **options)
    y = np.full(3, 2.0)
    J = srcad.jacobian(scale_into, srcad.Output(y), X.copy(), prep=prep)
    np.testing.assert_allclose(J, np.diag(2.0 + 2.0 * X), rtol=1e-12)
    np.testing.assert_allclose(y, 2.0 * X + X ** 2, rtol=1e-12)
