"""The numba backend's generated code carries no needless copies or specializations (what
numba compiles on a first call): the source is read, nothing is compiled here."""

import math

import numpy as np
import pytest

import srcad
import srcad.testing


def _exp_rows(q):
    out = np.zeros(q.shape)
    total = 0.0
    for i in range(q.shape[0]):
        for j in range(q.shape[1]):
            out[i, j] = math.exp(q[i, j])
            total = total + out[i, j] * out[i, j]
    return total


def _reverse_source(f, x):
    return srcad.source(f, srcad.Reverse, srcad.Duplicated(x, np.zeros_like(x)),
                        backend="numba")


def test_a_float_stored_into_an_element_is_not_copied():
    # `out[i, j] = math.exp(q[i, j])`: the element store copies the float itself; an
    # np.copy of it made numba compile a needless array copy
    code = _reverse_source(_exp_rows, np.ones((2, 3)))
    assert "np.copy(" not in code
    q = np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]])
    srcad.testing.check_grads(_exp_rows, srcad.Duplicated(q, np.zeros_like(q)))



def _filter(scales, obs):
    """A Kalman-like update: solves, slogdet's pair and a transposed solve on the tape."""
    cov = np.eye(2)
    total = 0.0
    for t in range(obs.shape[0]):
        s = cov + scales[0] * np.eye(2)
        x = np.linalg.solve(s, obs[t])
        sign, logdet = np.linalg.slogdet(s)
        total = total + logdet + obs[t] @ x
        gain = np.linalg.solve(s, cov).T
        cov = cov - gain @ cov
    return total


_OBS = np.array([[0.3, -0.2], [0.1, 0.4], [-0.5, 0.2]])


def _filter_source():
    """The numba reverse code of `_filter`, without its docstring and comments."""
    code = srcad.source(_filter, srcad.Reverse, srcad.Duplicated(np.array([0.7]), np.zeros(1)),
                        srcad.Duplicated(_OBS, np.zeros_like(_OBS)), backend="numba")
    _, _, body = code.partition('"""')[2].partition('"""')
    return "\n".join(line for line in body.splitlines() if not line.strip().startswith("#"))


def _joined(code):
    """`code` on one line, as its statements read (the printer breaks long lines)."""
    return " ".join(code.split()).replace("np. ascontiguousarray", "np.ascontiguousarray")


def test_arrays_go_on_the_tape_contiguous():
    # the tape held the transpose `gain` with C-ordered matrices: numba typed every popped
    # matrix with layout A, and each operation on them compiled once more for it
    code = _filter_source()
    pushes = [line.strip() for line in code.splitlines() if "array_tape_" in line
              and ".append(" in line]
    assert len(pushes) >= 5  # s and x once an iteration, not once per statement reading them
    assert all(".append(np.ascontiguousarray(" in line for line in pushes), pushes
    assert "array_tape_2d.append(np.ascontiguousarray(gain))" in code


def test_lapack_calls_compile_once_whatever_the_layout():
    # numba compiles its solve, inv and slogdet once per layout of their operands (each with
    # its copy to Fortran order and LAPACK glue); srcad's are compiled once per rank of the
    # right-hand side, whatever the layouts (the adjoint solves with the transpose: no copy
    # of it made first), the inverse through the solve's own compiled code
    code = _joined(_filter_source())
    assert "np.linalg." not in code
    assert "linalg_solve(s.T, " in code and "linalg_solve(s, obs[t])" in code
    assert "linalg_slogdet(s)" in code and "linalg_inv(s)" in code


def test_a_linear_algebra_call_written_twice_runs_once():
    # slogdet's sign and log came from two calls; each solve's adjoint solved with A.T for
    # A's adjoint and again for b's
    code = _joined(_filter_source())
    assert code.count("linalg_slogdet(") == 1
    assert code.count("linalg_solve(s.T") == 2  # one per solve of the primal
    assert "shared_solve =" in code and "shared_solve_1 =" in code


def test_a_solves_outer_adjoint_is_added_in_place():
    # `s_bar += -np.outer(linalg_solve(s.T, g), x)` compiled numba's np.outer and made two
    # matrices; outer_add adds the products into s_bar in one loop (the same numbers)
    code = _joined(_filter_source())
    assert "np.outer(" not in code
    assert "outer_add(s_bar, -shared_solve" in code


@pytest.mark.slow  # numba compiles the solves, slogdet and inv
def test_the_filter_on_numba_is_numpys_to_the_bit_and_loads_from_the_cache(monkeypatch, tmp_path):
    from srcad.build import cache, compiler

    numba = pytest.importorskip("numba")
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path))
    scales = np.array([0.7])
    python = srcad.grad(_filter, (0, 1))(scales, _OBS)
    compiled = srcad.grad(_filter, (0, 1), backend="numba")(scales, _OBS)
    # the same NumPy operations on the same values (a layout-A operand took srcad's loops)
    for a, b in zip(python, compiled):
        np.testing.assert_array_equal(a, b)
    srcad.testing.check_grads(_filter, srcad.Duplicated(scales, np.zeros(1)),
                              srcad.Duplicated(_OBS, np.zeros_like(_OBS)), backend="numba")
    # what a later process does: the module's machine code read from numba's cache
    monkeypatch.setattr(compiler, "_kernels", {})
    cache.clear()
    again = srcad.grad(_filter, (0, 1), backend="numba")(scales, _OBS)
    for a, b in zip(python, again):
        np.testing.assert_array_equal(a, b)
    kernels = [k for path, k in compiler._kernels.items() if "_filter" in path.name]
    assert kernels and all(isinstance(k, numba.core.registry.CPUDispatcher) for k in kernels)
    assert sum(sum(k.stats.cache_hits.values()) for k in kernels) >= 1
    assert not any(k.stats.cache_misses for k in kernels)
