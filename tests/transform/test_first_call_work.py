"""Passes of the first call whose work grows with the function, not with its square:
counted in nodes walked on functions of n and 2 n statements (never timed). A walk of the
whole body per name made long functions (GradBench's ports, unrolled code) slow to build."""

import numpy as np
from helpers.user_modules import load_module
from helpers.walk_counts import counting_walks

import srcad
from srcad.analysis.types import Array
from srcad.frontend.parse import parse_function
from srcad.transform.normalize.array_params import localize_rebound_array_arguments
from srcad.transform.normalize.retyped_names import split_retyped_names
from srcad.transform.normalize.stage import normalize


def _arrays_source(n: int) -> str:
    lines = [f"    a{k} = x * {k + 1}.0\n" for k in range(n)]
    total = " + ".join(f"np.sum(a{k})" for k in range(n))
    return "import numpy as np\n\ndef f(x):\n" + "".join(lines) + f"    return {total}\n"


def _retyped_walk(tmp_path, monkeypatch, n: int) -> int:
    m = load_module(tmp_path, f"retyped_work_{n}", _arrays_source(n))
    norm = normalize(parse_function(m.f))
    with monkeypatch.context() as patch:
        walked = counting_walks(patch)
        split_retyped_names(norm, {"x": Array(1, True)})
    return walked[0]


def test_the_retyped_names_pass_walks_the_body_once_for_all_names(tmp_path, monkeypatch):
    # each array name's bindings were counted by a walk of the whole body
    assert _retyped_walk(tmp_path, monkeypatch, 40) < 2.5 * _retyped_walk(
        tmp_path, monkeypatch, 20)


def test_the_function_of_many_arrays_differentiates(tmp_path):
    m = load_module(tmp_path, "retyped_work_grad", _arrays_source(6))
    x = np.array([0.5, -1.0])
    # f = sum over k of (k + 1) * sum(x): each entry's derivative is 1 + 2 + ... + 6
    np.testing.assert_allclose(srcad.grad(m.f)(x), [21.0, 21.0])


def _params_source(n: int) -> str:
    params = ", ".join(f"x{k}" for k in range(n))
    lines = [f"    x{k} = np.sin(x{k})\n" for k in range(n)]
    total = " + ".join(f"np.sum(x{k})" for k in range(n))
    return f"import numpy as np\n\ndef f({params}):\n" + "".join(lines) + f"    return {total}\n"


def _localize_walk(tmp_path, monkeypatch, n: int) -> int:
    m = load_module(tmp_path, f"rebound_work_{n}", _params_source(n))
    norm = normalize(parse_function(m.f))
    with monkeypatch.context() as patch:
        walked = counting_walks(patch)
        localize_rebound_array_arguments(norm, {f"x{k}": Array(1, True) for k in range(n)})
    assert len([p for p in norm.params if p.endswith("_in")]) == n  # each one rebound
    return walked[0]


def test_the_rebound_arguments_pass_walks_the_body_once_for_all(tmp_path, monkeypatch):
    # each array argument's bindings were found by a walk of the whole body
    assert _localize_walk(tmp_path, monkeypatch, 40) < 2.5 * _localize_walk(
        tmp_path, monkeypatch, 20)
