"""The seed-003 mixture tapes one float per data point: O(N) memory, nothing per inner iteration.

Tangent pushes ~20 values per inner (k) iteration of this function; srcad's to-be-recorded
analysis re-reads `params[k]`, recomputes the inner iteration's values in the reverse sweep and
tapes only `acc`, which the next data point overwrites.
"""

import ast
import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

import srcad

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mixture.py"


def load_mixture_example():
    spec = importlib.util.spec_from_file_location("tape_mixture_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mixture = load_mixture_example()


class CountingList(list):
    """A list that remembers how many values were ever appended and its largest length."""

    def __init__(self):
        super().__init__()
        self.pushes = 0
        self.peak = 0

    def append(self, value):
        super().append(value)
        self.pushes += 1
        self.peak = max(self.peak, len(self))


def adjoint_source(params, data) -> str:
    return srcad.source(mixture.mixture_loglikelihood, srcad.Reverse,
                        srcad.Duplicated(params, np.zeros_like(params)), data)


def _is_tape_append(node) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "append" and isinstance(node.func.value, ast.Name)
            and node.func.value.id in ("tape", "int_tape"))


def _forward_loops(function: ast.FunctionDef):
    """(outer data loop, inner k loop) of the forward sweep: the first loop of the function."""
    outer = next(s for s in function.body if isinstance(s, ast.For))
    inner = next(s for s in outer.body if isinstance(s, ast.For))
    assert "reversed" not in ast.unparse(outer.iter)
    return outer, inner


def test_forward_sweep_pushes_once_per_data_point_and_never_in_the_inner_loop():
    params, data = mixture.make_problem(N=10, K=4)
    function = ast.parse(adjoint_source(params, data)).body[0]
    outer, inner = _forward_loops(function)
    in_outer = [n for n in ast.walk(outer) if _is_tape_append(n)]
    in_inner = [n for n in ast.walk(inner) if _is_tape_append(n)]
    assert len(in_outer) == 1
    assert in_outer[0].func.value.id == "tape"
    assert in_inner == []
    # Outside the data loop nothing is taped either.
    everything = [n for n in ast.walk(function) if _is_tape_append(n)]
    assert everything == in_outer


@pytest.mark.parametrize("N", [50, 100])
def test_tape_holds_exactly_one_float_per_data_point(N):
    params, data = mixture.make_problem(N=N, K=4)
    text = adjoint_source(params, data)
    assert text.count("tape = []") == 1 and "int_tape" not in text
    counting = text.replace("tape = []", "tape = CountingList()")
    tapes = []

    class Recorder(CountingList):
        def __init__(self):
            super().__init__()
            tapes.append(self)

    namespace = {"math": math, "np": np, "CountingList": Recorder}
    exec(compile(counting, "<mixture adjoint>", "exec"), namespace)
    params_bar = np.zeros_like(params)
    value, adjoints = namespace["mixture_loglikelihood_reverse"](params, params_bar, data)
    (tape,) = tapes
    assert tape.pushes == N
    assert tape.peak == N
    assert len(tape) == 0  # the reverse sweep popped everything it pushed
    assert adjoints == ()
    assert value == pytest.approx(mixture.mixture_loglikelihood(params, data), rel=1e-14)
    reference = mixture.mixture_gradient_numpy(params, data)
    np.testing.assert_allclose(params_bar, reference, rtol=1e-10, atol=1e-12)


def triangle_nest(x):
    """The innermost trip count, j + 1, changes with the outer loop's j but not with k's."""
    j = 0  # bound before the nest too: a reservation read before `for j` would see 0
    s = 0.0
    for j in range(len(x)):
        for k in range(len(x)):
            for i in range(j + 1):
                s = math.sin(s + x[i] * x[k])  # s's old value is taped
    return s


def test_numba_tape_reservation_of_a_nest_is_read_where_its_trip_counts_are_known():
    """The tape space of the k and i loops (n * (j + 1) pushes) is reserved inside `for j`,
    where j has its value, not before it with j's value from before the loop (too little
    space: the pushes would write past the end of the tape)."""
    x = np.linspace(0.2, 0.9, 5)
    source = srcad.source(triangle_nest, srcad.Reverse, srcad.Duplicated(x, np.zeros(5)),
                          backend="numba")
    forward = source.split("# reverse sweep")[0]
    assert forward.index("for j in range") < forward.index("reserve_tape(")
    grad = np.zeros(5)
    srcad.autodiff(srcad.Reverse, triangle_nest, srcad.Duplicated(x.copy(), grad),
                   backend="numba")
    s, want = 0.0, np.zeros(5)  # ds/dx carried along the recurrence, by hand
    for j in range(5):
        for k in range(5):
            for i in range(j + 1):
                c = math.cos(s + x[i] * x[k])
                want = c * want
                want[i] += c * x[k]
                want[k] += c * x[i]
                s = math.sin(s + x[i] * x[k])
    np.testing.assert_allclose(grad, want, rtol=1e-12)
