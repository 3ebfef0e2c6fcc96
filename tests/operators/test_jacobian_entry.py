"""The prepared forward jacobian's one-call entry (plans.jacobian_entry) and the analysis that
lets it skip zeroing tangents (analysis/written_first.py).

Every jacobian here is checked against central differences of the primal and against reverse
mode; the buffers the entry may leave unzeroed (out=, Cache) are filled with garbage first, so
a tangent that should have been zeroed shows up as a wrong or NaN entry."""

import math

import numpy as np
import pytest

import srcad
from srcad.analysis.written_first import indexed_only, overwritten_first

N = 20  # python lanes are stacked (the entry's kind) above 16


def scratch(y, x, c):
    """c is scratch storage overwritten before it is read; every y[i] is written."""
    for i in range(len(x)):
        c[i] = x[i]
    for i in range(1, len(c)):
        c[i] = math.exp(c[i]) - math.cos(c[i - 1])
    for i in range(len(y)):
        y[i] = 2.0 * c[i] + 1.0


def partial_output(y, x):
    """y[0] is never written: J's first row is zero."""
    for i in range(1, len(y)):
        y[i] = x[i - 1] * x[i]


def accumulating(y, x, c):
    """y and c are read before they are written (their content on entry has no derivative).
    Reading a Cache breaks its contract (its content should not matter), which only the
    forward jacobian's single call tolerates: the case is here for its tangent's zeroing."""
    for i in range(len(y)):
        c[i] = c[i] + x[i] * x[i]
        y[i] += math.sin(c[i])


def grid_output(y, x):
    """A 2-D Output: its tangent is copied into J."""
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            y[i, j] = x[i] * x[j]


def returned(x):
    y = np.empty(len(x))
    for i in range(len(x)):
        y[i] = x[i] * math.exp(x[i])
    return y


def central_jacobian(f, x, contexts, h=1e-6):
    """Central differences of the output (returned, or the first Output) at x; the Output and
    Cache contents on entry are those of `contexts` each time."""
    columns = []
    for j in range(x.size):
        sides = []
        for sign in (1.0, -1.0):
            xs = x.copy()
            xs[j] += sign * h
            values = [a.value.copy() for a in contexts]
            result = f(*_place(values, xs, contexts))
            outputs = [v for v, a in zip(values, contexts) if isinstance(a, srcad.Output)]
            sides.append(np.reshape(outputs[0] if outputs else result, -1))
        columns.append((sides[0] - sides[1]) / (2.0 * h))
    return np.array(columns).T


def _place(values, x, contexts):
    """f's arguments: the Output first (as these functions take them), x, then the rest."""
    outputs = [v for v, a in zip(values, contexts) if isinstance(a, srcad.Output)]
    others = [v for v, a in zip(values, contexts) if not isinstance(a, srcad.Output)]
    return outputs + [x] + others


CASES = {
    "scratch": (scratch, lambda: [srcad.Output(np.zeros(N)), srcad.Cache(np.full(N, 7.0))]),
    "partial_output": (partial_output, lambda: [srcad.Output(np.full(N, 3.0))]),
    "accumulating": (accumulating, lambda: [srcad.Output(np.full(N, 0.5)),
                                            srcad.Cache(np.full(N, 0.25))]),
    "grid_output": (grid_output, lambda: [srcad.Output(np.zeros((N, N)))]),
    "returned": (returned, lambda: []),
}


def arguments(name, x):
    f, contexts = CASES[name]
    made = contexts()
    return f, made, _place(made, x, made)


@pytest.fixture(scope="module", params=["python", "numba"])
def backend(request):
    if request.param == "numba":
        pytest.importorskip("numba")
    return request.param


@pytest.mark.parametrize("name", sorted(CASES))
def test_entry_jacobian_matches_central_differences_and_reverse(name, backend):
    if backend == "numba" and name not in ("scratch", "partial_output", "accumulating"):
        pytest.skip("the copy paths are the same generated entry on both backends")
    x = np.random.default_rng(3).uniform(0.2, 0.9, N)
    f, contexts, args = arguments(name, x)
    reference = central_jacobian(f, x, contexts)
    prep = srcad.prepare_jacobian(f, *args, mode="forward", backend=backend)
    assert prep.run is not None  # one call of every lane: the entry runs it
    initial = [a.value.copy() for a in contexts]
    J = np.empty(reference.shape)
    for _ in range(2):  # the second call finds the first call's tangents in every buffer
        J.fill(np.nan)  # garbage a skipped zeroing of J would leave behind
        for a, value in zip(contexts, initial):
            a.value[...] = value  # the primal reads them: the same content each call
        assert srcad.jacobian(f, *args, prep=prep, out=J) is J
        np.testing.assert_allclose(J, reference, rtol=1e-6, atol=1e-8)
    if name == "accumulating":
        return  # its Cache's content matters, so a reverse jacobian's repeated passes differ
    _, _, args = arguments(name, x)
    reverse = srcad.jacobian(f, *args, mode="reverse", backend=backend)
    np.testing.assert_allclose(J, reverse, rtol=1e-12, atol=1e-12)


def test_a_single_output_gets_its_tangents_in_J_itself():
    """The code writes J.T: the preparation's own tangent buffer of y stays untouched, and
    neither it nor the Cache's is zeroed per call (both are written before they are read)."""
    x = np.random.default_rng(4).uniform(0.2, 0.9, N)
    f, contexts, args = arguments("scratch", x)
    prep = srcad.prepare_jacobian(f, *args)
    assert prep.engine.zeroed == []
    lanes = prep.engine.output_lanes[0]
    J = srcad.jacobian(f, *args, prep=prep)
    assert not lanes.any()
    np.testing.assert_allclose(J, central_jacobian(f, x, contexts), rtol=1e-6, atol=1e-8)
    value, J2 = srcad.value_and_jacobian(f, *args, prep=prep)
    assert value is contexts[0].value
    np.testing.assert_array_equal(J2, J)


def test_tangents_read_or_partly_written_keep_their_zeroing():
    x = np.random.default_rng(5).uniform(0.2, 0.9, N)
    for name in ("partial_output", "accumulating"):
        _, _, args = arguments(name, x)
        prep = srcad.prepare_jacobian(*(CASES[name][:1]), *args)
        assert len(prep.engine.zeroed) == sum(isinstance(a, (srcad.Output, srcad.Cache))
                                              for a in args)


def test_an_out_the_entry_cannot_take_runs_the_checked_path():
    """A strided or float32 out= is filled by the loop over chunks, as before."""
    x = np.random.default_rng(6).uniform(0.2, 0.9, N)
    f, contexts, args = arguments("scratch", x)
    reference = central_jacobian(f, x, contexts)
    prep = srcad.prepare_jacobian(f, *args)
    wide = np.full((N, 2 * N), np.nan)
    srcad.jacobian(f, *args, prep=prep, out=wide[:, ::2])
    np.testing.assert_allclose(wide[:, ::2], reference, rtol=1e-6, atol=1e-8)


# -- the analysis on hand-written generated code ------------------------------------------------
STACKED = """
def f(y, y_dot, x, x_dot):
    for i in range({bound}):
{before}        y_dot[:, i] = {value}
{after}    return None, ()
"""

LOOPED = """
def f(y, y_dot, x, x_dot):
    lanes = x_dot.shape[0]
    for i in range({bound}):
        for lane in range(lanes):
{before}            y_dot[lane, i] = {value}
{after}    return None, ()
"""


def proven(template, bound="len(y)", before="", value="x_dot[:, i] * 2.0", after="",
           length=3, x_length=3):
    source = template.format(bound=bound, before=before, value=value, after=after)
    shapes = {"y": (length,), "x": (x_length,), "y_dot": (4, length), "x_dot": (4, x_length)}
    return "y_dot" in overwritten_first(source, {"y_dot": length}, shapes)


def test_a_loop_writing_every_element_first_is_proven():
    assert proven(STACKED)
    assert proven(STACKED, bound="len(x)")  # len(x) == len(y) at the preparation's shapes
    assert proven(STACKED, bound="y.shape[0]")
    assert proven(STACKED, bound="0, 3")
    assert proven(STACKED, before="        t = x[i] * 2.0\n")
    assert proven(STACKED, after="        y_dot[:, i] = y_dot[:, i] * 3.0\n")
    assert proven(LOOPED, value="x_dot[lane, i] * 2.0")
    narrow = LOOPED.replace("x_dot.shape[0]", "4")  # narrow lanes are counted by a number
    assert proven(narrow, value="x_dot[lane, i]")
    assert not proven(LOOPED.replace("x_dot.shape[0]", "3"), value="x_dot[lane, i]")


@pytest.mark.parametrize("change", [
    {"bound": "1, len(y)"},  # y_dot[:, 0] is never written
    {"bound": "len(x)", "x_length": 2},  # fewer iterations than elements
    {"bound": "2"},
    {"value": "y_dot[:, i] + x_dot[:, i]"},  # read before written
    {"before": "        t = y_dot[:, i]\n"},
    {"after": "        y_dot[:, i - 1] = 0.0\n"},  # another element named in the loop
    {"before": "        if x[i] > 0.5:\n            continue\n"},  # the write may be skipped
    {"bound": "n"},  # not known at the preparation
    {"after": "        if x[i] > 0.5:\n            break\n"},  # later elements may be skipped
])
def test_anything_else_keeps_the_zeroing(change):
    assert not proven(STACKED, **change)


def test_an_early_return_or_a_rebound_bound_keeps_the_zeroing():
    early = "\ndef f(y, y_dot, x, x_dot):\n    if x[0] > 0.0:\n        return None, ()\n" \
        "    for i in range(len(y)):\n        y_dot[:, i] = x_dot[:, i]\n    return None, ()\n"
    rebound = "\ndef f(y, y_dot, x, x_dot):\n    x = x[:1]\n" \
        "    for i in range(len(x)):\n        y_dot[:, i] = x_dot[:, i]\n    return None, ()\n"
    never = "\ndef f(y, y_dot, x, x_dot):\n    return None, ()\n"
    shapes = {"y": (3,), "x": (3,), "y_dot": (4, 3), "x_dot": (4, 3)}
    fixed = early.replace("    if x[0] > 0.0:\n        return None, ()\n", "")
    assert overwritten_first(fixed, {"y_dot": 3}, shapes) == {"y_dot"}  # the control case
    for source in (early, rebound, never):
        assert overwritten_first(source, {"y_dot": 3}, shapes) == set()
    assert not proven(LOOPED, value="x_dot[lane, i]",
                      before="            lane = 0\n")  # not every lane
    assert not proven(LOOPED.replace("{after}", "            if x[i] > 0.5:\n"
                                     "                break\n{after}"),
                      value="x_dot[lane, i]")  # later lanes may be skipped


@pytest.mark.parametrize("backend_name, n, chunk", [
    ("python", 40, 20),  # equal chunks: the code writes J.T's rows s .. s + 20
    ("python", 40, 17),  # a short last chunk: the lanes are copied into J
    ("numba", 20, 10),
])
def test_chunked_entry_matches_central_differences(backend_name, n, chunk):
    if backend_name == "numba":
        pytest.importorskip("numba")
    x = np.random.default_rng(7).uniform(0.2, 0.9, n)
    contexts = [srcad.Output(np.zeros(n)), srcad.Cache(np.full(n, 7.0))]
    prep = srcad.prepare_jacobian(scratch, contexts[0], x, contexts[1], chunk=chunk,
                                  backend=backend_name)
    assert prep.run is not None and prep.chunk == chunk
    J = np.full((n, n), np.nan)
    srcad.jacobian(scratch, contexts[0], x, contexts[1], prep=prep, out=J)
    np.testing.assert_allclose(J, central_jacobian(scratch, x, contexts), rtol=1e-6, atol=1e-8)


def test_only_a_tangent_the_code_indexes_is_replaced_by_a_transposed_view():
    """A reshape (or any call) of the tangent could copy a transposed view: writes lost."""
    assert indexed_only("def f(y, y_dot):\n    y_dot[0, 1] = y_dot.shape[0]\n", "y_dot")
    assert not indexed_only("def f(y, y_dot):\n    v = y_dot.reshape(-1)\n    v[0] = 1.0\n",
                            "y_dot")
    assert not indexed_only("def f(y, y_dot):\n    helper(y_dot)\n", "y_dot")


def test_a_preparation_of_another_operator_is_refused():
    """A jacobian's preparation runs a whole call too: gradient must not run it (nor jacobian
    a gradient's), with or without other options."""
    def total(x):
        s = 0.0
        for i in range(len(x)):
            s += x[i] * x[i]
        return s
    x = np.linspace(0.5, 1.5, N)
    jacobian_prep = srcad.prepare_jacobian(returned, x)
    gradient_prep = srcad.prepare_gradient(total, x)
    with pytest.raises(srcad.PreparationMismatchError):
        srcad.gradient(returned, x, prep=jacobian_prep)
    with pytest.raises(srcad.PreparationMismatchError):
        srcad.gradient(returned, x, prep=jacobian_prep, mode=None)
    with pytest.raises(srcad.PreparationMismatchError):
        srcad.jacobian(total, x, prep=gradient_prep, mode=None)
