"""Binomial checkpointing of long loops (`memory=`): the schedule is optimal, gradients equal
the fully taped ones, and the memory the reverse sweep holds shrinks (tracemalloc on python,
the tape arrays srcad allocates on numba)."""

import functools
import tracemalloc
import warnings

import numpy as np
import pytest

import srcad
from srcad import Active, Const, Duplicated, Reverse, autodiff
from srcad.errors import ArgumentError
from srcad.runtime import checkpointing
from srcad.runtime.checkpointing import (
    ADVANCE,
    RESTORE,
    TAKE,
    TURN,
    CheckpointWarning,
    binomial_plan,
    count_advances,
    memory_bytes,
    optimal_advances,
)


# -- the schedule ------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def fewest_advances(steps, slots):
    """Dynamic programming over every first snapshot position (no formula involved)."""
    if steps <= 1:
        return 0
    if slots == 1:  # restart from the only snapshot for every step
        return sum(range(steps))
    return min(m + fewest_advances(steps - m, slots - 1) + fewest_advances(m, slots)
               for m in range(1, steps))


def replay(trips, snapshots):
    """Run the plan on a state that is the step number: every turn must record its own step
    and reverse it at once, in reverse order, and the forward sweep must end at the final
    state."""
    rows, split, slots = binomial_plan(0, trips, snapshots)
    state, saved, turns = 0, {}, []
    for k, (action, a, b) in enumerate(rows.tolist()):
        if action == TAKE:
            assert a < slots
            saved[a] = state
        elif action == RESTORE:
            state = saved[a]
        elif action == ADVANCE:
            assert state == a
            state = b
        else:
            assert action == TURN and k >= split and state == a and b == a + 1
            turns.append(a)
            state = b
        if k == split - 1:
            assert state == trips
    assert turns == list(range(trips - 1, -1, -1))
    return rows


@pytest.mark.parametrize("snapshots", [1, 2, 3, 5])
def test_schedule_reverses_every_step_with_the_fewest_recomputations(snapshots):
    for trips in range(0, 35):
        rows = replay(trips, snapshots)
        used = min(snapshots, max(trips, 1))
        # the forward sweep also runs the last step (its final state is read after the loop)
        extra = 1 if trips else 0
        assert count_advances(rows) - extra == fewest_advances(trips, used)
        assert optimal_advances(trips, used) == fewest_advances(trips, used)


def test_binomial_formula_by_hand():
    # r = 3: binom(5, 3) = 10 >= 10 steps; 3 * 10 - binom(5, 2) = 20
    assert optimal_advances(10, 2) == 20
    assert optimal_advances(3, 1) == 3  # 0 -> 2, 0 -> 1
    rows = replay(20000, 20)
    assert count_advances(rows) - 1 == optimal_advances(20000, 20)


def test_memory_values():
    assert memory_bytes("50MB") == 50_000_000
    assert memory_bytes("1.5 GiB") == 3 * 2**29
    assert memory_bytes(4096) == 4096
    for bad in ("lots", -5, 0, "3 parsecs", 2.5):
        with pytest.raises(ArgumentError, match="memory="):
            memory_bytes(bad)


# -- gradients ---------------------------------------------------------------------------------
def damped(x, a, steps):
    s = x
    t = 0.0
    c = 0
    for k in range(steps):
        t = t + s * a
        s = s * np.cos(t) + 0.1
        c += 1
    return s * t + c


def stepper(y0, p, steps, dt):
    y = y0.copy()
    n = len(y)
    energy = 0.0
    for s in range(1, 2 * steps + 1, 2):  # nested loops: only the outer one is checkpointed
        k1 = np.zeros(n)
        for j in range(n):
            k1[j] = -p[j] * y[j] + np.sin(y[(j + 1) % n])
        y2 = y + 0.5 * dt * k1
        k2 = np.zeros(n)
        for j in range(n):
            k2[j] = -p[j] * y2[j] + np.sin(y2[(j + 1) % n])
        y = y + dt * (k1 + k2) * 0.5
        energy = energy + s * np.sum(y2 * y2) * dt
    return np.sum(y * y) + energy


def in_place(y, p, steps):
    """Writes its argument in place: the caller sees the final state after the gradient."""
    for k in range(steps):
        for j in range(len(y)):
            y[j] = y[j] * np.cos(p[j] * y[(j + 1) % len(y)])
    return np.sum(y)


RNG = np.random.default_rng(7)
Y0, P = RNG.random(5), RNG.random(5)


def stepper_grad(steps, memory=None, backend="python", p_active=True):
    gy, gp = np.zeros(5), np.zeros(5)
    p = Duplicated(P, gp) if p_active else Const(P)
    value = autodiff(srcad.ReverseWithPrimal, stepper, Duplicated(Y0, gy), p, steps, 0.1,
                     memory=memory, backend=backend)[1]
    return value, gy, gp


@pytest.mark.parametrize("steps,snapshots", [(1, 1), (2, 1), (7, 1), (7, 3), (3, 8), (25, 2),
                                             (25, 4)])
def test_gradient_equals_fully_taped(steps, snapshots):
    state = 8 * (1 + 5)  # energy and y
    full = stepper_grad(steps)
    checkpointed = stepper_grad(steps, memory=state * (snapshots + 1))
    for a, b in zip(full, checkpointed):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=0)
    assert np.any(full[1] != 0)


def test_scalars_ints_and_const_active_mixes():
    for steps in (0, 1, 2, 9, 30):
        for memory in (16, 40, "1KB"):
            assert autodiff(Reverse, damped, Active(0.3), Active(0.7), steps, memory=memory) \
                == autodiff(Reverse, damped, Active(0.3), Active(0.7), steps)
            assert autodiff(Reverse, damped, Active(0.3), 0.7, steps, memory=memory) \
                == autodiff(Reverse, damped, Active(0.3), 0.7, steps)
    full = stepper_grad(6, p_active=False)
    checkpointed = stepper_grad(6, memory=100, p_active=False)
    np.testing.assert_allclose(checkpointed[1], full[1], rtol=1e-12, atol=0)
    # against central differences, not only against srcad itself
    h = 1e-6
    fd = (damped(0.3 + h, 0.7, 9) - damped(0.3 - h, 0.7, 9)) / (2 * h)
    assert autodiff(Reverse, damped, Active(0.3), Active(0.7), 9, memory=40)[0] == \
        pytest.approx(fd, rel=1e-6)


def test_argument_written_in_place_keeps_its_final_state():
    y_full, y_ckpt = Y0.copy(), Y0.copy()
    g_full, g_ckpt = np.zeros(5), np.zeros(5)
    autodiff(Reverse, in_place, Duplicated(y_full, g_full), P, 12)
    autodiff(Reverse, in_place, Duplicated(y_ckpt, g_ckpt), P, 12, memory=8 * 5 * 3)
    expected = Y0.copy()
    in_place(expected, P, 12)
    np.testing.assert_array_equal(y_ckpt, expected)
    np.testing.assert_allclose(g_ckpt, g_full, rtol=1e-12, atol=0)


def test_generated_code_runs_the_schedule():
    text = srcad.source(damped, Reverse, Active(0.3), Active(0.7), 5, memory=64)
    assert "checkpoint_plan(k_trips, k_state_bytes, 64, -1," in " ".join(text.split())
    assert "tape.append" in text and text.count("for k_row in range(") == 2


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_peak_memory_python():
    """tracemalloc: the fully taped gradient holds every step's tape, the checkpointed one a
    few snapshots, one step's tape and the schedule (int64 rows, about 4 per step)."""
    def peak(memory):
        stepper_grad(2, memory)  # compile first
        tracemalloc.start()
        stepper_grad(300, memory)
        out = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return out
    full, checkpointed = peak(None), peak(48 * 11)
    assert checkpointed < 0.3 * full, (checkpointed, full)


def test_loop_with_break_is_taped_whole(caplog):
    def early(x, steps):
        s = x
        for k in range(steps):
            s = s * np.sin(s)
            if s < 0.01:
                break
        return s
    with caplog.at_level("INFO", logger="srcad"):
        got = autodiff(Reverse, early, Active(0.9), 20, memory=32)
    assert got == autodiff(Reverse, early, Active(0.9), 20)
    assert "not checkpointed: it exits early" in caplog.text


def test_forward_mode_refuses_memory():
    with pytest.raises(ArgumentError, match="memory="):
        autodiff(srcad.Forward, damped, Duplicated(0.3, 1.0), 0.7, 3, memory=100)


def test_every_forward_entry_point_refuses_memory_with_one_error():
    # autodiff, the forward decorator (given memory= or called with it) and the operators in
    # forward mode all say why: forward mode has no tape to bound
    why = "memory= bounds the tape of reverse mode, and .* runs forward mode"
    with pytest.raises(ArgumentError, match=why):
        autodiff(srcad.Forward, damped, Duplicated(0.3, 1.0), 0.7, 3, memory=100)
    with pytest.raises(ArgumentError, match=why):
        srcad.forward(memory=100)(damped)
    with pytest.raises(ArgumentError, match=why):
        srcad.forward(damped)(Duplicated(0.3, 1.0), 0.7, 3, memory=100)
    with pytest.raises(ArgumentError, match=why):
        srcad.gradient(damped, 0.3, srcad.Constant(0.7), srcad.Constant(3), mode="forward",
                       memory=100)


# -- numba -------------------------------------------------------------------------------------
@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
def test_numba_gradient_and_tape_size():
    pytest.importorskip("numba")
    steps = 300
    got = autodiff(Reverse, damped, Active(0.3), Active(0.7), steps, memory=40,
                   backend="numba")
    assert got == autodiff(Reverse, damped, Active(0.3), Active(0.7), steps)  # python, taped
    # the float tape srcad keeps for the next call: taping the loop whole needs at least one
    # float a step (t is overwritten every step and read by the adjoint of cos(t)); with the
    # schedule it is one step's record, within the 64 floats srcad passes in
    plan = [p for p in srcad.build.cache.plans[damped] if p.backend == "numba"][-1]
    tapes = plan.compiled.spare[-1]
    assert sum(t.size for t in tapes if isinstance(t, np.ndarray)) <= 64 * len(tapes) < steps


# -- the automatic budget ----------------------------------------------------------------------
def automatic(y0, steps):
    y = y0.copy()
    for k in range(steps):  # a time-stepping loop: carries y, loops over it in each step
        for j in range(len(y)):
            y[j] = y[j] * np.cos(y[j]) + 0.5
    return np.sum(y)


def test_automatic_budget_checkpoints_long_loops(monkeypatch):
    """Without memory=, a loop carrying an array is taped whole while its tape fits the
    default budget, checkpointed (with a warning) beyond it; the gradient is the same."""
    grads = {}
    for budget in (2**28, 500):
        monkeypatch.setattr(checkpointing, "DEFAULT_MEMORY", budget)
        srcad.build.cache.clear()  # the budget is part of the generated code
        for steps in (1, 3, 40):
            g = np.zeros(4)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                autodiff(Reverse, automatic, Duplicated(Y0[:4], g), steps)
            said = [w for w in caught if issubclass(w.category, CheckpointWarning)]
            grads[budget, steps] = g
            # a step tapes the 4 old y[j] (32 bytes): 39 more steps pass 500 bytes, 2 do not
            assert bool(said) == (budget == 500 and steps == 40), said
    srcad.build.cache.clear()
    for steps in (1, 3, 40):
        np.testing.assert_allclose(grads[500, steps], grads[2**28, steps], rtol=1e-12, atol=0)


def rebinding(x):
    y = np.zeros(3)
    for k in range(4):
        y = y + x * y + 0.5 * x
    return y


def test_reverse_jacobian_of_arrays_taped_by_reference():
    """The prepared reverse jacobian keeps its float tape in an array; arrays taped by
    reference stay arrays when popped (they were read back as float(array))."""
    x = np.array([0.1, 0.2, 0.3])
    forward = srcad.jacobian(rebinding, x, mode="forward")
    h = 1e-6
    fd = np.array([(rebinding(x + h * e) - rebinding(x - h * e)) / (2 * h)
                   for e in np.eye(3)]).T
    np.testing.assert_allclose(forward, fd, rtol=1e-6)
    np.testing.assert_allclose(srcad.jacobian(rebinding, x, mode="reverse"), forward,
                               rtol=1e-12)
    np.testing.assert_allclose(srcad.jacobian(rebinding, x, memory=64), forward, rtol=1e-12)
    with pytest.raises(srcad.PreparationMismatchError, match="memory"):
        prep = srcad.prepare_jacobian(rebinding, x, memory=64)
        srcad.jacobian(rebinding, x, prep=prep, memory=128)


def written_after_the_loop(y, p, steps):
    for k in range(steps):
        for j in range(len(y)):
            y[j] = y[j] * np.cos(p[j] * y[(j + 1) % len(y)])
    y[0] = y[0] * 3.0  # the caller sees this too
    return np.sum(y * y)


def test_argument_written_after_the_loop_keeps_the_primal_final_state():
    y_ckpt, g_full, g_ckpt = Y0.copy(), np.zeros(5), np.zeros(5)
    autodiff(Reverse, written_after_the_loop, Duplicated(Y0.copy(), g_full), P, 6)
    autodiff(Reverse, written_after_the_loop, Duplicated(y_ckpt, g_ckpt), P, 6, memory=100)
    expected = Y0.copy()
    written_after_the_loop(expected, P, 6)
    np.testing.assert_array_equal(y_ckpt, expected)
    np.testing.assert_allclose(g_ckpt, g_full, rtol=1e-12, atol=0)
