"""numba vector mode keeps array tangents lanes last inside the generated function: arguments
read again and again are copied in (and back when written), the others used in the caller's
layout; narrow batches loop over a known lane count, wide ones over a count read at run time.
Every layout must give each lane what a one-direction forward call of the python backend gives
and what central differences give."""

import copy
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import srcad
from srcad import BatchDuplicated, Duplicated, Forward, api
from srcad.build.compiler import FASTMATH
from srcad.build.running import tape_buffers

numba = pytest.importorskip("numba")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from mixture import make_problem, mixture_gradient_numpy, mixture_loglikelihood  # noqa: E402


def matvec_accumulate(y, A, x):
    """y[i] is updated for every j and x[j] read for every i (both copied lanes last; y back
    again), A[i, j] is touched once (the caller's layout)."""
    for i in range(len(y)):
        for j in range(len(x)):
            y[i] += math.sin(A[i, j]) * x[j] ** 2


def smoothed_copy(x, a):
    """A local copy of an argument whose tangents stay in the caller's layout, returned."""
    c = x.copy()
    for i in range(1, len(c)):
        c[i] = c[i] * a + math.cos(c[i - 1])
    return c


def relax(M, v, sweeps):
    """A rank-2 argument written in place in a loop that revisits it; returns a float."""
    total = 0.0
    for _ in range(sweeps):
        for i in range(M.shape[0]):
            for j in range(M.shape[1]):
                M[i, j] = 0.5 * M[i, j] + math.tanh(v[j] * M[i, j])
                total += M[i, j] * v[i % len(v)]
    return total


def rescale_in_while(y, s):
    """Written in a while loop (revisited) and returned."""
    k = 0
    while k < 3:
        for i in range(len(y)):
            y[i] = y[i] * s + math.exp(-y[i] * y[i])
        k += 1
    return y


def chain(y, x, c):
    """Seed 002's shape: every element touched once or twice (no copies at all)."""
    for i in range(len(x)):
        c[i] = x[i]
    for i in range(1, len(c)):
        c[i] = math.exp(c[i]) - math.cos(c[i - 1])
    for i in range(len(y)):
        y[i] = 2.0 * c[i] + 1.0


def _problems():
    rng = np.random.default_rng(11)
    return [
        (matvec_accumulate, [rng.random(4), rng.random((4, 5)), rng.random(5)], [0, 1, 2]),
        (smoothed_copy, [rng.random(6), 0.7], [0, 1]),
        (relax, [rng.random((3, 4)), rng.random(4), 2], [0, 1]),
        (rescale_in_while, [rng.random(5), 0.9], [0, 1]),
        (chain, [np.zeros(6), rng.random(6), np.zeros(6)], [0, 1, 2]),
    ]


PROBLEMS = _problems()


def _seeds(values, varied, width, rng):
    """W random directions per varied argument: an array (W, ...) or a list of W floats."""
    return {i: (rng.standard_normal((width,) + np.shape(values[i]))
                if isinstance(values[i], np.ndarray) else list(rng.standard_normal(width)))
            for i in varied}


def _outputs(f, values):
    """The primal's float result (or None) and the final contents of its array arguments."""
    values = copy.deepcopy(values)
    out = f(*values)
    return out, [v for v in values if isinstance(v, np.ndarray)]


def _central_differences(f, values, varied, direction, h=1e-6):
    def moved(step):
        return [values[i] + step * direction[i] if i in varied else values[i]
                for i in range(len(values))]
    (up, arrays_up), (down, arrays_down) = _outputs(f, moved(h)), _outputs(f, moved(-h))
    result = None if up is None else (np.asarray(up) - np.asarray(down)) / (2 * h)
    return result, [(a - b) / (2 * h) for a, b in zip(arrays_up, arrays_down)]


@pytest.mark.parametrize("width", [3, 12])
@pytest.mark.parametrize("f, values, varied", [  # each compiles: the first runs in `make test`
    pytest.param(*p, id=p[0].__name__, marks=pytest.mark.slow if k else ())
    for k, p in enumerate(PROBLEMS)])
def test_numba_lanes_match_one_direction_python_calls_and_differences(f, values, varied,
                                                                      width):
    seeds = _seeds(values, varied, width, np.random.default_rng(width))
    shadows = copy.deepcopy(seeds)  # seeds on entry, tangents of written arrays on exit
    args = [BatchDuplicated(copy.deepcopy(v), shadows[i]) if i in varied else copy.deepcopy(v)
            for i, v in enumerate(values)]
    tangents = srcad.autodiff(Forward, f, *args, backend="numba")
    expected_out, expected_arrays = _outputs(f, values)
    got_arrays = [a.value if isinstance(a, BatchDuplicated) else a for a in args]
    for got, want in zip([a for a in got_arrays if isinstance(a, np.ndarray)], expected_arrays):
        np.testing.assert_allclose(got, want, rtol=1e-12)  # the primal ran once, unchanged
    for lane in range(width):
        direction = {i: np.asarray(seeds[i][lane]) if isinstance(values[i], np.ndarray)
                     else seeds[i][lane] for i in varied}
        one = [Duplicated(copy.deepcopy(v), copy.deepcopy(direction[i])) if i in varied
               else copy.deepcopy(v) for i, v in enumerate(values)]
        tangent = srcad.autodiff(Forward, f, *one, backend="python")
        fd_result, fd_arrays = _central_differences(f, values, varied, direction)
        if tangent is not None:
            np.testing.assert_allclose(tangents[lane], tangent, rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(tangents[lane], fd_result, rtol=1e-6, atol=1e-8)
        written = [i for i in varied if isinstance(values[i], np.ndarray)]
        for i, fd in zip([i for i, v in enumerate(values) if isinstance(v, np.ndarray)],
                         fd_arrays):
            if i not in written:
                continue
            np.testing.assert_allclose(shadows[i][lane], one[i].shadow, rtol=1e-12,
                                       atol=1e-14)
            np.testing.assert_allclose(shadows[i][lane], fd, rtol=1e-6, atol=1e-8)


def _source(f, values, varied, width):
    seeds = _seeds(values, varied, width, np.random.default_rng(0))
    args = [BatchDuplicated(v, seeds[i]) if i in varied else v for i, v in enumerate(values)]
    return srcad.source(f, Forward, *args, backend="numba")


def test_numba_lanes_layout_follows_rereads():
    f, values, varied = PROBLEMS[0]
    source = re.sub(r"\s+", "", _source(f, values, varied, 12))  # codegen breaks long lines
    assert "lanes=y_dot.shape[0]" in source  # counted at run time from 8 lanes on
    assert "y_dot_t[i,lane]" in source and "x_dot_t[j,lane]" in source
    assert "A_dot[lane,i,j]" in source  # touched once: the caller's array, no copy
    # copied lanes last into the workspace at entry; written: copied back at exit
    assert re.search(r"y_dot_t=work\[.*\]\.reshape\(y_dot\.shape\[1:\]\+\(lanes,\)\)",
                     source)
    assert re.search(r"y_dot_t\[(i_?\d*),lane\]=y_dot\[lane,\1\]", source)
    assert re.search(r"y_dot\[lane,(i_?\d*)\]=y_dot_t\[\1,lane\]", source)
    assert not re.search(r"x_dot\[lane,i_?\d*\]=", source)  # read only: not copied back
    assert "np.ascontiguousarray" not in source and ".transpose(" not in source
    narrow = re.sub(r"\s+", "", _source(f, values, varied, 4))
    assert "lanes=4" in narrow and "forlaneinrange(lanes):" in narrow
    relax_source = re.sub(r"\s+", "", _source(*PROBLEMS[2][:3], 12))
    assert re.search(r"M_dot_t\[(i_?\d*),(j_?\d*),lane\]=M_dot\[lane,\1,\2\]", relax_source)
    assert re.search(r"M_dot\[lane,(i_?\d*),(j_?\d*)\]=M_dot_t\[\1,\2,lane\]", relax_source)
    chain_source = _source(*PROBLEMS[4][:3], 12)
    assert "_dot_t" not in chain_source and "c_dot[lane, i]" in chain_source


def test_numba_mixture_lane_loops_are_vectorized(optimized_numba):
    """The reason for the layout: LLVM turns the fused lane loop into SIMD arithmetic."""
    params, data = make_problem(50, 4)
    args = (BatchDuplicated(params, np.eye(12)), data)
    tangents = srcad.autodiff(Forward, mixture_loglikelihood, *args, backend="numba")
    np.testing.assert_allclose(tangents, mixture_gradient_numpy(params, data), rtol=1e-11)
    call = api._arguments(mixture_loglikelihood, Forward, args, None, "numba")
    compiled = api._compiled(mixture_loglikelihood, call.request(Forward, "numba"))
    assert "params_dot_t[k, lane]" in compiled.source
    fresh = numba.njit(fastmath=set(FASTMATH))(compiled.function.py_func)  # numba's cache
    fresh(*call.flat, *tape_buffers(compiled))  # keeps no LLVM to inspect
    llvm = "\n".join(fresh.inspect_llvm().values())
    assert re.search(r"fmul[^\n]*<\d+ x double>", llvm), "no vector multiply in the lane loops"


def rescale_seeded(x, a):
    """a -> 0.5 a + |0.2 a| (a > 0: 0.7 a), times x[0]: d/da = 0.7 x[0]. The first tangent
    statement reads the caller's seed of `a` and overwrites it in the same lane loop."""
    a = 0.5 * a + math.fabs(a * 0.2)
    t = x[0] * a
    return t


def test_lane_array_read_by_its_first_write_keeps_its_value():
    """A lane array whose first use is `a_dot[lane] = a_dot[lane] * 0.5 + ...` carries a value
    into the loop (here the caller's seed): it must not become a loop-local float (numba
    refused the code: `a_dot_lane` read before assignment)."""
    x = np.array([1.5, -0.5])
    seeds = [1.0, -2.0, 0.5]
    tangents = srcad.autodiff(Forward, rescale_seeded,
                              BatchDuplicated(x, [np.zeros(2) for _ in seeds]),
                              BatchDuplicated(0.8, seeds), backend="numba")
    np.testing.assert_allclose(tangents, [0.7 * 1.5 * s for s in seeds], rtol=1e-12)
