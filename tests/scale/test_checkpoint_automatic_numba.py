"""numba, the automatic memory budget: a time-stepping loop whose tape would exceed
srcad.runtime.checkpointing.DEFAULT_MEMORY is checkpointed, lazily. The ordinary code runs while the
tape fits (no second compilation, no warning); over the budget the checkpointed code is
compiled once and run, with a CheckpointWarning reported at the user's call, and the gradient
is the fully taped one. The budget is made small (10 kB) so that the loops stay short."""

import warnings

import numpy as np
import pytest

import srcad
from srcad.build import numba_assembly
from srcad.runtime import checkpointing

pytest.importorskip("numba")

BUDGET = 10_000
N = 10  # a step tapes the N old y[(j + 1) % N]: 80 bytes
SHORT, LONG = 50, 1000  # 4000 bytes of tape, under the budget; 80000, over it
DT = 1e-3


def integrate(y0, p, steps, dt):
    y = y0.copy()
    for _ in range(steps):  # a time-stepping loop: carries y, loops over it in each step
        for j in range(len(y)):
            y[j] = y[j] + dt * (-p[j] * y[j] + np.sin(y[(j + 1) % len(y)]))
    return np.sum(y * y)


LOOP_LINE = integrate.__code__.co_firstlineno + 2
Y0, P = np.linspace(0.1, 1.0, N), np.linspace(0.5, 1.5, N)


@pytest.fixture
def budget(monkeypatch):
    """(python's fully taped gradients of SHORT and LONG steps, the names numba compiles),
    with DEFAULT_MEMORY = BUDGET for the code generated in the test."""
    monkeypatch.setattr(checkpointing, "DEFAULT_MEMORY", 2**40)  # the reference: taped whole
    srcad.build.cache.clear()
    taped = {steps: _gradient("python", steps) for steps in (SHORT, LONG)}
    monkeypatch.setattr(checkpointing, "DEFAULT_MEMORY", BUDGET)
    srcad.build.cache.clear()  # the budget is part of the generated code
    compiled, compile_numba = [], numba_assembly.compile_numba

    def counting(source, name, *args, **kwargs):
        compiled.append(name)
        return compile_numba(source, name, *args, **kwargs)

    monkeypatch.setattr(numba_assembly, "compile_numba", counting)
    yield taped, compiled
    srcad.build.cache.clear()


def _gradient(backend, steps):
    g = np.zeros(N)
    srcad.autodiff(srcad.Reverse, integrate, srcad.Duplicated(Y0, g), P, steps, DT,
                   backend=backend)
    return g


def _said(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call()
    return out, [w for w in caught if issubclass(w.category, srcad.CheckpointWarning)]


def _kept_tapes(compiled) -> int:
    """Bytes of the tape arrays `compiled` keeps for its next call."""
    return sum(t.nbytes for t in compiled.spare[-1] if isinstance(t, np.ndarray))


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_checkpointed_only_over_the_budget(budget):
    taped, compiled = budget
    # under the budget: the ordinary code, taped whole, compiled alone, no warning
    g, said = _said(lambda: _gradient("numba", SHORT))
    assert said == [] and len(compiled) == 1, (said, compiled)
    np.testing.assert_allclose(g, taped[SHORT], rtol=1e-12, atol=0)
    ordinary = [q for q in srcad.build.cache.plans[integrate] if q.backend == "numba"][-1].compiled
    assert _kept_tapes(ordinary) >= 8 * N * SHORT  # the whole tape: 4000 bytes

    kept = _kept_tapes(ordinary)
    # over it: the checkpointed code is compiled once, warns at the call, and agrees
    for _ in range(2):  # autodiff's fast path (srcad/build/plans.py), made by the call above
        g, said = _said(lambda: _gradient("numba", LONG))
        assert len(said) == 1 and len(compiled) == 2, (said, compiled)
        assert (said[0].filename, said[0].lineno) == (__file__, _gradient.__code__.co_firstlineno
                                                      + 2)
        message = str(said[0].message)
        assert f"the loop at {__file__}:{LOOP_LINE} (in integrate)" in message
        # the steps after the first, as the python backend counts them
        assert f"would tape about {8 * N * (LONG - 1)} bytes ({LONG} steps)" in message
        assert f"over the default memory budget of {BUDGET} bytes" in message
        np.testing.assert_allclose(g, taped[LONG], rtol=1e-12, atol=0)
    # the tapes: not grown over the budget (the ordinary code stopped before growing its
    # tape; the checkpointed code's holds one step's record, its snapshots at most BUDGET
    # bytes live during the call only)
    variant = ordinary.function.srcad_over_budget.compiled()
    assert _kept_tapes(ordinary) == kept and _kept_tapes(variant) <= 1024 < 8 * N * LONG

    # still under it with few steps: the ordinary code, no warning
    g, said = _said(lambda: _gradient("numba", SHORT))
    assert said == [] and len(compiled) == 2
    np.testing.assert_allclose(g, taped[SHORT], rtol=1e-12, atol=0)


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_every_caller_over_the_budget(budget):
    """autodiff's first call (srcad/build/running.py) and the prepared operators
    (srcad/build/engines.py, the prepared gradient's fast path in srcad/build/plans.py) run the same
    fallback; the
    gradient agrees with central differences too."""
    taped, compiled = budget
    g, said = _said(lambda: _gradient("numba", LONG))
    assert len(said) == 1, said
    np.testing.assert_allclose(g, taped[LONG], rtol=1e-12, atol=0)
    args = (srcad.Constant(P), srcad.Constant(LONG), srcad.Constant(DT))
    prep = srcad.prepare_gradient(integrate, Y0, *args, backend="numba")
    for _ in range(2):
        (value, g), said = _said(lambda: srcad.value_and_gradient(integrate, Y0, *args,
                                                                  prep=prep))
        assert len(said) == 1, said
        np.testing.assert_allclose(g, taped[LONG], rtol=1e-12, atol=0)
        assert value == pytest.approx(integrate(Y0, P, LONG, DT), rel=1e-12)
    pulled, said = _said(lambda: srcad.pullback(integrate, Y0, *args, cotangent=2.0,
                                                backend="numba"))
    assert len(said) == 1, said
    np.testing.assert_allclose(pulled, 2.0 * taped[LONG], rtol=1e-12, atol=0)
    assert len(compiled) == 2, compiled  # the ordinary code and the checkpointed one
    h = 1e-6
    fd = [(integrate(Y0 + h * e, P, LONG, DT) - integrate(Y0 - h * e, P, LONG, DT)) / (2 * h)
          for e in np.eye(N)[:3]]
    np.testing.assert_allclose(g[:3], fd, rtol=1e-6)


def integrate_in_place(y, p, steps, dt):
    for _ in range(steps):  # writes the argument y step after step
        for j in range(len(y)):
            y[j] = y[j] + dt * (-p[j] * y[j] + np.sin(y[(j + 1) % len(y)]))
    return np.sum(y * y)


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_argument_written_in_the_loop(budget):
    """The ordinary code stops before the loop writes the argument; the checkpointed code
    runs from the caller's values and leaves the argument as the primal does."""
    _, compiled = budget
    y, expected = Y0.copy(), Y0.copy()
    value = integrate_in_place(expected, P, LONG, DT)
    checkpointing.DEFAULT_MEMORY = 2**40  # restored by monkeypatch
    srcad.build.cache.clear()
    g_taped, y_taped = np.zeros(N), Y0.copy()
    srcad.autodiff(srcad.Reverse, integrate_in_place, srcad.Duplicated(y_taped, g_taped), P,
                   LONG, DT)
    checkpointing.DEFAULT_MEMORY = BUDGET
    srcad.build.cache.clear()
    g = np.zeros(N)
    (_, got), said = _said(lambda: srcad.autodiff(
        srcad.ReverseWithPrimal, integrate_in_place, srcad.Duplicated(y, g), P, LONG, DT,
        backend="numba"))
    assert len(said) == 1 and len(compiled) == 2, (said, compiled)
    assert got == pytest.approx(value, rel=1e-12)
    np.testing.assert_allclose(y, expected, rtol=1e-12, atol=0)
    np.testing.assert_allclose(g, g_taped, rtol=1e-12, atol=0)


def reads_later_changed(x, c):
    acc = 0.0
    z = np.zeros(len(x))
    for i in range(len(c)):  # a step reads z, which the loop after it changes
        w = c[i] * 0.3 + z[i % len(z)] + acc
        for k in range(len(x)):
            acc += c[i] * np.exp(np.sin(w + x[k]))
    for k in range(len(x)):
        z[k] = 0.5 * z[k] + 0.1
    return acc + z[0]


@pytest.mark.parametrize("memory", [64, 10**6])
def test_step_reading_a_later_changed_array_is_taped_whole(memory):
    """A recomputed step would read z as the second loop leaves it (python backend, memory=:
    the gradient was wrong); such a loop is taped whole."""
    x = np.linspace(-1.0, 1.0, 5)
    grads = []
    for m in (None, memory):
        c = srcad.Duplicated(np.array([-1.4, 0.85, -0.8, -0.9]), np.zeros(4))
        srcad.autodiff(srcad.Reverse, reads_later_changed, x, c, memory=m)
        grads.append(c.shadow)
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=0)
    h = 1e-6
    fd = [(reads_later_changed(x, np.array([-1.4, 0.85, -0.8, -0.9]) + h * e)
           - reads_later_changed(x, np.array([-1.4, 0.85, -0.8, -0.9]) - h * e)) / (2 * h)
          for e in np.eye(4)]
    np.testing.assert_allclose(grads[0], fd, rtol=1e-6)
