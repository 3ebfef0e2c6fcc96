"""The public API: autodiff modes, seeds, the decorator, `source`, shadow accumulation."""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import srcad

ROOT = Path(__file__).resolve().parents[2]


def product_plus(x, y):
    return x * y + x


def sin_scaled(x, a):
    return a * math.sin(x)


def sum_of_squares(x):
    total = 0.0
    for i in range(len(x)):
        total += x[i] * x[i]
    return total


def doubled_into(y, x):
    for i in range(len(x)):
        y[i] = 2.0 * x[i] * x[i]


@srcad.reverse
def cube(x):
    return x * x * x


@srcad.reverse()
def cube_called(x):
    return x * x * x


def test_reverse_returns_one_derivative_per_argument():
    assert srcad.autodiff(srcad.Reverse, product_plus, srcad.Active(2.0),
                          srcad.Active(5.0)) == (6.0, 2.0)


def test_reverse_with_primal_returns_derivatives_and_value():
    derivs, value = srcad.autodiff(srcad.ReverseWithPrimal, product_plus, srcad.Active(2.0),
                                   srcad.Active(5.0))
    assert derivs == (6.0, 2.0)
    assert value == 12.0


def test_reverse_returns_none_for_const_and_duplicated_arguments():
    derivs = srcad.autodiff(srcad.Reverse, sin_scaled, srcad.Active(0.5), 3.0)
    assert derivs[1] is None
    assert derivs[0] == pytest.approx(3.0 * math.cos(0.5))
    derivs = srcad.autodiff(srcad.Reverse, sin_scaled, 0.5, srcad.Const(3.0))
    assert derivs == (None, None)
    x = np.array([1.0, 2.0])
    assert srcad.autodiff(srcad.Reverse, sum_of_squares,
                          srcad.Duplicated(x, np.zeros_like(x))) == (None,)


def test_seed_scales_the_gradient():
    (plain,) = srcad.autodiff(srcad.Reverse, sin_scaled, srcad.Active(0.5), 3.0)[:1]
    seeded = srcad.autodiff(srcad.Reverse, sin_scaled, srcad.Active(0.5), 3.0, seed=-2.5)
    assert seeded[0] == pytest.approx(-2.5 * plain)


def test_duplicated_shadow_is_added_into_not_overwritten():
    x = np.array([1.0, -2.0, 3.0])
    dx = np.array([10.0, 10.0, 10.0])
    srcad.autodiff(srcad.Reverse, sum_of_squares, srcad.Duplicated(x, dx))
    np.testing.assert_allclose(dx, 10.0 + 2.0 * x)
    srcad.autodiff(srcad.Reverse, sum_of_squares, srcad.Duplicated(x, dx))
    np.testing.assert_allclose(dx, 10.0 + 4.0 * x)


def test_output_array_shadow_is_the_seed_and_is_consumed():
    x = np.array([1.0, -2.0, 3.0])
    y = np.zeros(3)
    dx = np.zeros(3)
    dy = np.array([1.0, 0.5, -1.0])  # seed: the adjoint of y on exit
    srcad.autodiff(srcad.Reverse, doubled_into, srcad.Duplicated(y, dy),
                   srcad.Duplicated(x, dx))
    np.testing.assert_allclose(y, 2.0 * x * x)  # the primal ran
    np.testing.assert_allclose(dx, 4.0 * x * np.array([1.0, 0.5, -1.0]))
    np.testing.assert_array_equal(dy, 0.0)  # y's entry values do not matter: zero adjoint


def test_decorator_without_parentheses_runs_plain_calls_unchanged():
    assert cube(2.0) == 8.0
    assert cube.__name__ == "cube"


def test_decorator_with_annotations_equals_autodiff():
    assert cube(srcad.Active(2.0)) == (12.0,)
    assert cube(srcad.Active(2.0)) == srcad.autodiff(srcad.Reverse, cube, srcad.Active(2.0))


def test_decorator_with_parentheses_behaves_the_same():
    assert cube_called(3.0) == 27.0
    assert cube_called(srcad.Active(3.0)) == (27.0,)
    assert cube_called(srcad.Active(3.0), seed=2.0) == (54.0,)


def test_decorator_options_apply_to_every_annotated_call():
    def square_sum(x):
        s = 0.0
        for i in range(len(x)):
            s += x[i] * x[i]
        return s

    seeded = srcad.reverse(seed=3.0)(square_sum)
    x = np.array([1.0, -2.0])
    for _ in range(2):  # the checked call, then the fast path
        shadow = np.zeros(2)
        assert seeded(srcad.Duplicated(x, shadow)) == (None,)
        np.testing.assert_array_equal(shadow, 3.0 * 2.0 * x)
    shadow = np.zeros(2)
    seeded(srcad.Duplicated(x, shadow), seed=-1.0)  # a call's own keyword wins
    np.testing.assert_array_equal(shadow, -2.0 * x)
    with pytest.raises(srcad.SrcadError, match="unknown option 'bakend'"):
        srcad.reverse(bakend="numba")(square_sum)


def test_wrapper_source_shows_the_generated_adjoint():
    text = cube.source(srcad.Active(2.0))
    assert text.startswith("def cube_reverse(x, result_bar=1.0):")
    assert text == srcad.source(cube, srcad.Reverse, srcad.Active(2.0))
    assert "# line " in text


def test_source_is_compiled_once_per_signature():
    first = srcad.source(product_plus, srcad.Reverse, srcad.Active(1.0), srcad.Active(2.0))
    again = srcad.source(product_plus, srcad.Reverse, srcad.Active(7.0), srcad.Active(9.0))
    assert first is again
    const_y = srcad.source(product_plus, srcad.Reverse, srcad.Active(1.0), 2.0)
    assert const_y != first


def test_check_grads_agrees_with_finite_differences():
    from srcad.testing import check_grads

    check_grads(sin_scaled, srcad.Active(0.3), 2.0)
    x = np.array([0.5, -1.5, 2.0])
    check_grads(doubled_into, srcad.Duplicated(np.zeros(3), np.zeros(3)),
                srcad.Duplicated(x, np.zeros(3)))


def _run_with_deprecations_as_errors(script: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", script],
                          cwd=ROOT, capture_output=True, text=True)


def test_import_raises_no_deprecation_warning():
    result = _run_with_deprecations_as_errors("import srcad")
    assert result.returncode == 0, result.stderr


def test_generating_code_raises_no_deprecation_warning():
    # Code generation touches gast and astor; differentiate something to reach them.
    result = _run_with_deprecations_as_errors(
        "import sys; sys.path.insert(0, 'tests/api')\n"
        "import srcad, test_api\n"
        "print(srcad.autodiff(srcad.Reverse, test_api.product_plus, srcad.Active(2.0), "
        "srcad.Active(5.0)))\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "(6.0, 2.0)"
