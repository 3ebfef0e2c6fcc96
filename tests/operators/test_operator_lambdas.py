"""A lambda passed straight to srcad is differentiated, as JAX users expect: its text is found
in this file by its position (srcad/frontend/lambdas.py), also when several lambdas share a line.

Expected values are derived by hand; check_grads compares every mode with central finite
differences and forward with reverse.
"""

import functools
import importlib
import linecache
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcad
from srcad import Active, BatchDuplicated, Const, Duplicated, Forward, Reverse, ReverseWithPrimal
from srcad.build import cache
from srcad.testing import check_grads

THIS_FILE = os.path.abspath(__file__)
X = np.array([0.5, -1.25, 2.0])


def loss(p, data):
    return np.sum((p - data) ** 2)


square = lambda a: a * a  # noqa: E731 - a module-level lambda, called from a def


def calls_square(x):
    return square(x) + 3.0 * x


def test_gradient_of_lambdas_as_jax_users_write_them():
    assert srcad.gradient(lambda x: x ** 4, 2.0) == 32.0
    np.testing.assert_allclose(srcad.gradient(lambda x: np.sum(x ** 2), X), 2 * X)
    data = np.array([1.0, 1.0, 1.0])
    value, grad = srcad.value_and_gradient(lambda p: loss(p, data), X)  # closure and a def
    assert value == pytest.approx(np.sum((X - 1.0) ** 2))
    np.testing.assert_allclose(grad, 2 * (X - 1.0))


def test_jacobian_and_hvp_of_lambdas():
    expected = np.diag(np.cos(X) * X[0])
    expected[:, 0] += np.sin(X)  # d/dx0 of x0 * sin(x_i)
    np.testing.assert_allclose(srcad.jacobian(lambda x: np.sin(x) * x[0], X), expected)
    v = np.array([1.0, 2.0, -1.0])
    np.testing.assert_allclose(srcad.hvp(lambda x: np.sum(x ** 3), X, tangent=v), 6 * X * v)
    assert srcad.hvp(lambda x: x ** 3, 2.0, tangent=1.0) == pytest.approx(12.0)  # a float x
    g, hv = srcad.gradient_and_hvp(lambda x: x ** 3, 2.0, tangent=0.5)
    assert (g, hv) == (pytest.approx(12.0), pytest.approx(6.0))


def test_function_transforms_of_lambdas():
    assert srcad.grad(lambda x, y: x * y)(2.0, 3.0) == 3.0
    assert srcad.grad(lambda x, y: x * y, argnums=(0, 1))(2.0, 3.0) == (3.0, 2.0)
    value, grad = srcad.value_and_grad(lambda x: x ** 2 + 1.0)(3.0)
    assert (value, grad) == (10.0, 6.0)
    np.testing.assert_allclose(srcad.jacfwd(lambda x: x * x)(X), np.diag(2 * X))
    np.testing.assert_allclose(srcad.jacrev(lambda x: x * x)(X), np.diag(2 * X))
    np.testing.assert_allclose(srcad.hessian(lambda x: np.sum(x ** 3))(X), np.diag(6 * X))
    assert srcad.grad(lambda x: (x ** 2, x + 1.0), has_aux=True)(3.0) == (6.0, 4.0)


def test_two_lambdas_on_one_line_are_told_apart_by_their_columns():
    assert srcad.gradient(lambda x: x ** 2, 1.0) + srcad.gradient(lambda x: x ** 3, 1.0) == 5.0
    assert (srcad.gradient(lambda x: x ** 3, 2.0), srcad.gradient(lambda x: x ** 2, 2.0)) == \
        (12.0, 4.0)
    # the same text twice on one line: the columns of each code tell which one it is
    f, g = (lambda x: x * x), (lambda x: x * x)
    assert srcad.source(f, Reverse, Active(1.0)) != srcad.source(g, Reverse, Active(1.0))
    assert (srcad.gradient(f, 3.0), srcad.gradient(g, 5.0)) == (6.0, 10.0)


def test_a_lambda_over_several_lines_inside_a_call():
    assert srcad.gradient(lambda x:
                          x ** 5
                          + 2.0 * x, 1.0) == 7.0


def test_lambda_made_by_a_lambda_reads_its_closure():
    scaled = lambda k: lambda x: k * x ** 2  # noqa: E731
    assert srcad.gradient(scaled(3.0), 2.0) == 12.0
    assert srcad.gradient(scaled(0.5), 2.0) == 2.0


def test_lambda_defaults_and_partials():
    assert srcad.gradient(lambda x, a=3.0: a * x ** 2, 2.0) == 12.0
    assert srcad.gradient(functools.partial(lambda x, c: c * x ** 2, c=2.0), 3.0) == 12.0
    assert [srcad.gradient(lambda x: k * x ** 2, 1.0) for k in (1.0, 2.0)] == [2.0, 4.0]  # noqa: B023


def test_module_level_lambda_and_a_def_calling_one():
    assert srcad.gradient(square, 3.0) == 6.0
    assert srcad.gradient(calls_square, 2.0) == 7.0
    assert "def square_reverse(" in srcad.source(square, Reverse, Active(1.0))


def test_source_of_a_lambda_names_it_by_its_line_and_quotes_it():
    f = lambda x, y: x * np.sin(y)  # noqa: E731
    line = f.__code__.co_firstlineno
    text = srcad.source(lambda x, y: x * np.sin(y), Reverse, Active(1.0), Active(2.0))
    assert f"def lambda_at_line_{line + 2}_reverse(x, y" in text
    assert f"`lambda x, y: x * np.sin(y)` (line {line + 2})" in text
    forward = srcad.source(f, Forward, Duplicated(1.0, 1.0), Const(2.0))
    assert "def f_forward(" in forward and "`lambda x, y: x * np.sin(y)`" in forward


CASES = [
    (lambda x, y: x * np.sin(y) + y ** 2, (Active(0.7), Active(-0.4))),
    (lambda x, c: np.sum(c * x ** 2) + x[0] * x[2], (Duplicated(X.copy(), np.zeros(3)),
                                                     Const(np.array([1.0, 2.0, 3.0])))),
    (lambda a, x: a * np.sum(np.exp(x)) / (1.0 + a ** 2),
     (Active(1.5), Duplicated(X.copy(), np.zeros(3)))),
]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_lambdas_agree_with_finite_differences_in_every_mode(k):
    f, args = CASES[k]
    check_grads(f, *args, modes=("fwd", "rev", "vec"))


def test_lambda_on_the_numba_backend():
    f, args = CASES[0]
    check_grads(f, *args, modes=("fwd", "rev"), backend="numba")
    grads = srcad.autodiff(Reverse, lambda x: np.sum(x * x), Duplicated(X.copy(), np.zeros(3)),
                           backend="numba")
    assert grads == (None,)


def test_vector_mode_of_a_lambda():
    tangents = srcad.autodiff(Forward, lambda x: np.sum(x ** 2),
                              BatchDuplicated(X.copy(), np.eye(3)))
    np.testing.assert_allclose(tangents, 2 * X)


def test_a_lambda_made_anew_per_call_reuses_its_compiled_code():
    cache.clear()
    data = np.array([1.0, 2.0, 3.0])
    for _ in range(5):
        grad = srcad.gradient(lambda p: loss(p, data), X)
    np.testing.assert_allclose(grad, 2 * (X - data))
    assert cache.size() == 1
    for _ in range(3):  # through autodiff, each a new lambda object
        (grad,), value = srcad.autodiff(ReverseWithPrimal, lambda x: x * x, Active(3.0))
    assert grad == 6.0 and cache.size() == 2


def test_a_lambda_of_other_closure_values_is_differentiated_with_them():
    def fitted(data):
        return srcad.gradient(lambda p: loss(p, data), X)

    for data in (np.zeros(3), np.ones(3), np.full(3, 2.0)):
        np.testing.assert_allclose(fitted(data), 2 * (X - data))
    for shift in (1.0, 2.0):  # one closure cell, rebound by the loop
        assert srcad.gradient(lambda x: (x - shift) ** 2, 0.0) == -2 * shift  # noqa: B023


def called_in_place(x, a):
    s = 0.0
    for i in range(len(x)):
        s += (lambda v, k=2.0: k * v * a)(x[i])
    return s + (lambda y: y * a)(x[0] + 1.0)


def test_a_lambda_called_where_it_is_written_is_inlined():
    assert srcad.gradient(lambda x: (lambda y: y * y)(x), 3.0) == 6.0
    # d/dx_i: 2a, plus a for x[0]; d/da: 2 sum(x) + x[0] + 1
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(srcad.gradient(called_in_place, x, srcad.Constant(3.0)),
                               [9.0, 6.0])
    check_grads(called_in_place, Duplicated(x.copy(), np.zeros(2)), Active(0.7))


def test_a_lambda_called_in_an_or_is_refused_at_its_column():
    f = lambda x: x <= 0.0 or (lambda y: y * y)(x)  # noqa: E731
    with pytest.raises(srcad.SrcadError) as info:
        srcad.gradient(f, 1.0)
    line = f.__code__.co_firstlineno
    assert f"{THIS_FILE}:{line}:32: lambda" in str(info.value)


def test_a_lambda_without_source_keeps_the_source_not_available_message():
    namespace = {}
    exec("f = lambda x: x * x", namespace)  # noqa: S102
    with pytest.raises(srcad.SrcadError, match="source of <lambda> is not available"):
        srcad.gradient(namespace["f"], 1.0)
    text = "f = lambda x: x * x * x\n"
    linecache.cache["<lambda text>"] = (len(text), None, text.splitlines(True), "<lambda text>")
    exec(compile(text, "<lambda text>", "exec"), namespace)  # noqa: S102
    assert srcad.gradient(namespace["f"], 2.0) == 12.0


def test_a_lambda_whose_file_changed_is_refused(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "lambda_model.py"
    path.write_text("f = lambda x: x * x\n")
    importlib.invalidate_caches()
    model = importlib.import_module("lambda_model")
    try:
        linecache.getlines(model.__file__)
        path.write_text("f = lambda x: x * x * x\n")
        stamp = os.stat(path).st_mtime + 10
        os.utime(path, (stamp, stamp))
        with pytest.raises(srcad.StaleSourceError, match="lambda"):
            srcad.gradient(model.f, 2.0)
    finally:
        del sys.modules["lambda_model"]
        cache.clear()


def test_two_alike_lambdas_without_columns_are_refused_not_guessed(tmp_path):
    script = tmp_path / "alike.py"
    script.write_text(textwrap.dedent("""
        import srcad
        f, g = lambda x: x * x, lambda x: x * x
        h, k = lambda x: x * x, lambda x: x * x * x
        print(srcad.gradient(h, 2.0), srcad.gradient(k, 2.0))
        try:
            srcad.gradient(g, 2.0)
        except srcad.SrcadError as err:
            print(err)
    """))
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(srcad.__file__))}
    out = subprocess.run([sys.executable, "-X", "no_debug_ranges", str(script)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.splitlines()[0] == "4.0 12.0", out.stderr
    assert "two lambdas on this line" in out.stdout and f"{script}:3:" in out.stdout


cube = lambda x: x ** 3  # noqa: E731


def uses_gradient_of_cube(x):
    return srcad.grad(cube)(x) * x  # 3 x^3


def test_nested_gradient_of_a_module_level_lambda():
    assert srcad.gradient(uses_gradient_of_cube, 2.0) == pytest.approx(36.0)  # 9 x^2
    check_grads(uses_gradient_of_cube, Active(0.7))


def test_fuzz_programs_run_through_a_lambda(monkeypatch):
    fuzz = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(THIS_FILE))), "fuzz")
    monkeypatch.syspath_prepend(fuzz)
    import checking
    from generator import generate, module_text
    from grammar_lambdas import ENTRY, through_lambda
    from inputs import choose_inputs

    checked = []
    check_mode = checking.check_mode
    monkeypatch.setattr(checking, "check_mode", lambda f, *rest: checked.append(f.__name__)
                        or check_mode(f, *rest))
    # passed as `f(y, x, a)`, `LAMBDA_SCALE * f(y, x, a)` and to a lambda called in place
    for seed in (0, 4, 6):
        program = generate(seed)
        values, _ = choose_inputs(program)
        text = through_lambda(module_text(program, values), program, seed)
        assert f"{ENTRY} = (lambda" in text
        assert checking.run_check(text, timeout=60.0)[0] == "agreed"
    assert checked == ["<lambda>"] * 9


class Mangled:
    def method(self):
        return lambda x: x * self.__scale


def test_a_lambda_in_a_method_reading_a_private_name_is_not_taken_for_an_edited_file():
    """Compiled outside its class, `self.__scale` is not mangled and the code differs: the
    check compiles the lambda inside `class Mangled` and a function, as Python did."""
    from srcad.frontend.lambdas import find_lambda

    assert find_lambda(Mangled().method()).text == "lambda x: x * self.__scale"


def test_a_lambda_over_a_parameter_container_and_after_non_ascii_text():
    params = {"w": np.array([1.0, 2.0]), "b": 1.0}
    value, grad = srcad.value_and_gradient(lambda p: np.sum(p["w"] ** 2) * p["b"], params)
    assert value == 5.0 and grad["b"] == 5.0
    np.testing.assert_allclose(grad["w"], [2.0, 4.0])
    label, f = "π² ≈ 9.87", lambda x: 3.0 * x ** 2  # columns count UTF-8 bytes
    assert srcad.gradient(f, 1.0) == 6.0 and label
