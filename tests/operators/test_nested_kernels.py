"""The numba kernels of nested gradients: no allocation per call beyond their results (a
workspace the outer function creates once, srcad/operators/nested_kernels.py), one
second-order pass for the sum of a gradient's tangents (nested_tangent_sums.py) and for a
gradient with its tangent (nested_gradient_pairs.py). The rewrites are checked on trees
(fast); the compiled code against central differences and JAX's nested jax.grad in every
combination of outer and inner mode, and its allocations counted with numba's own
statistics (NRT)."""

import math

import gast
import numpy as np
import pytest

import srcad
from srcad.build.codegen import to_source
from srcad.operators.nested_gradient_pairs import merged_gradient_pairs
from srcad.operators.nested_kernels import KernelWriter
from srcad.operators.nested_scratch_results import scratch_results
from srcad.operators.nested_tangent_sums import merged_tangent_sums


def rewritten(rewrite, source):
    tree = gast.parse(source)
    return rewrite(tree), to_source(tree)


# -- the sum of a gradient's tangents -----------------------------------------------------


def test_the_tangents_of_every_operand_are_one_call():
    merged, code = rewritten(merged_tangent_sums, (
        "t = -(srcad_nested_tangent_2_0(x, p, q, x_dot) + srcad_nested_tangent_2_1(x, p, q, "
        "p_dot) + srcad_nested_tangent_2_2(x, p, q, q_dot))\n"))
    assert merged == [(2, (0, 1, 2))]
    assert code.strip() == "t = -srcad_nested_tangents_2_0_1_2(x, p, q, x_dot, p_dot, q_dot)"


@pytest.mark.parametrize("source", [
    "t = srcad_nested_tangent_2_0(x, p, x_dot) + srcad_nested_tangent_2_1(y, p, p_dot)\n",
    "t = srcad_nested_tangent_2_0(x, p, x_dot) + srcad_nested_tangent_3_1(x, p, p_dot)\n",
    "t = srcad_nested_tangent_2_0(x, p, x_dot) + srcad_nested_tangent_2_0(x, p, p_dot)\n",
    "t = srcad_nested_tangent_2_0(x, p, x_dot) - srcad_nested_tangent_2_1(x, p, p_dot)\n",
], ids=["other-operands", "other-token", "same-operand", "difference"])
def test_tangents_that_may_differ_keep_their_own_calls(source):
    merged, code = rewritten(merged_tangent_sums, source)
    assert merged == []
    assert "srcad_nested_tangents_" not in code


def test_a_sum_with_other_terms_merges_its_tangent_calls():
    merged, code = rewritten(merged_tangent_sums, (
        "t = srcad_nested_tangent_2_0(x, p, x_dot) + srcad_nested_tangent_2_1(x, p, p_dot)"
        " + 2.0 * x_dot\n"))
    assert merged == [(2, (0, 1))]
    assert code.strip() == "t = srcad_nested_tangents_2_0_1(x, p, x_dot, p_dot) + 2.0 * x_dot"


# -- a gradient with its tangent ----------------------------------------------------------


def test_a_gradient_and_its_tangent_at_the_same_operands_are_one_call():
    merged, code = rewritten(merged_gradient_pairs, (
        "def f(x, p, x_dot, p_dot):\n"
        "    g = -1.0 * srcad_nested_gradient_2(x, p)\n"
        "    g_dot = -srcad_nested_tangents_2_0_1(x, p, x_dot, p_dot)\n"))
    assert merged == [(2, (0, 1))]
    lines = [line.strip() for line in code.strip().splitlines()[1:]]
    assert lines == ["srcad_pair_1 = srcad_nested_gradient_tangents_2_0_1(x, p, x_dot, p_dot)",
                     "g = -1.0 * srcad_pair_1[0]", "g_dot = -srcad_pair_1[1]"]


def test_a_gradient_bound_to_a_name_shares_the_call_with_its_first_lane():
    """A name rebound (not written into) may be anything before: the vector mode's lanes
    after the first keep their own tangent calls."""
    merged, code = rewritten(merged_gradient_pairs, (
        "def f(x, p, x_dot_0, x_dot_1):\n"
        "    g = x\n"
        "    g = srcad_nested_gradient_2(x, p)\n"
        "    g_dot_0 = srcad_nested_tangent_2_0(x, p, x_dot_0)\n"
        "    g_dot_1 = srcad_nested_tangent_2_0(x, p, x_dot_1)\n"))
    assert merged == [(2, (0,))]
    assert "g = srcad_pair_1[0]" in code and "g_dot_0 = srcad_pair_1[1]" in code
    assert "g_dot_1 = srcad_nested_tangent_2_0(x, p, x_dot_1)" in code


@pytest.mark.parametrize("body", [
    # the gradient rebinds an operand the tangent reads
    "    x = srcad_nested_gradient_2(x, p)\n"
    "    x_dot_1 = srcad_nested_tangent_2_0(x, p, x_dot)\n",
    # the tangent first, rebinding an operand the gradient reads
    "    p = srcad_nested_tangent_2_0(x, p, x_dot)[0]\n"
    "    g = srcad_nested_gradient_2(x, p)\n",
    # the first statement writes into an array that may be a view of an operand
    "    v = x[0:1]\n"
    "    v[0] = srcad_nested_gradient_2(x, p)[0]\n"
    "    g_dot = srcad_nested_tangent_2_0(x, p, x_dot)\n",
    # not adjacent
    "    g = srcad_nested_gradient_2(x, p)\n"
    "    p = p + 1.0\n"
    "    g_dot = srcad_nested_tangent_2_0(x, p, x_dot)\n",
    # other operands, other tokens
    "    g = srcad_nested_gradient_2(x, p)\n"
    "    g_dot = srcad_nested_tangent_2_0(x, q, x_dot)\n"
    "    h = srcad_nested_gradient_3(x, p)\n"
    "    h_dot = srcad_nested_tangent_2_0(x, p, x_dot)\n",
], ids=["operand-rebound", "operand-rebound-first", "view-written", "apart", "operands-token"])
def test_a_gradient_and_a_tangent_that_may_differ_keep_their_own_calls(body):
    merged, code = rewritten(merged_gradient_pairs, "def f(x, p, q, x_dot):\n" + body)
    assert merged == []
    assert "srcad_pair" not in code


# -- results used at once: views of the workspace ------------------------------------------


KERNELS = {"srcad_nested_gradient_2", "srcad_nested_gradient_3",
           "srcad_nested_gradient_tangents_2_0"}


def test_a_result_used_at_once_is_a_view_of_the_workspace():
    renamed, code = rewritten(lambda tree: scratch_results(tree, KERNELS), (
        "def f(x, p, x_dot, x_bar):\n"
        "    g = -1.0 * srcad_nested_gradient_2(x, p)\n"
        "    x_bar += unshared(x_bar, srcad_nested_gradient_3(x, p))\n"
        "    srcad_pair_1 = srcad_nested_gradient_tangents_2_0(x, p, x_dot)\n"
        "    h = 2.0 * srcad_pair_1[0]\n"
        "    h_dot = -srcad_pair_1[1]\n"))
    assert renamed == KERNELS
    assert code.count("_scratch(") == 3


@pytest.mark.parametrize("body", [
    "    g = srcad_nested_gradient_2(x, p)\n",  # kept by a name
    "    g = f(srcad_nested_gradient_2(x, p))\n",  # passed on
    "    g = srcad_nested_gradient_2(x, p) * srcad_nested_gradient_3(x, p)\n",  # two at once
    "    srcad_pair_1 = srcad_nested_gradient_tangents_2_0(x, p, x_dot)\n"
    "    h = srcad_pair_1[0]\n"  # one of the results kept
    "    h_dot = -srcad_pair_1[1]\n",
    "    srcad_pair_1 = srcad_nested_gradient_tangents_2_0(x, p, x_dot)\n"
    "    h = 2.0 * srcad_pair_1[0] + srcad_nested_gradient_3(x, p)\n"  # another call there
    "    h_dot = -srcad_pair_1[1]\n",
], ids=["bound", "passed", "two-calls", "pair-bound", "pair-beside-a-call"])
def test_a_result_that_may_outlive_the_next_call_is_fresh(body):
    _, code = rewritten(lambda tree: scratch_results(tree, KERNELS),
                        "def f(x, p, x_dot):\n" + body)
    assert "srcad_nested_gradient_2_scratch" not in code
    assert "srcad_nested_gradient_tangents_2_0_scratch" not in code
    # used at once beside the pair's results, which stay fresh
    assert ("srcad_nested_gradient_3_scratch" in code) == ("2.0 * srcad_pair_1[0] +" in body)


# -- the kernels' prologue -----------------------------------------------------------------


def test_a_kernel_reads_the_workspace_once_and_grows_it_only_when_short():
    """A read of the workspace list costs an atomic reference count (~10 ns) and the helper
    call read it four times more: the buffer is read once, the helper runs behind the size
    test, the tapes' test only for a g whose code has tapes."""
    writer = KernelWriter(count=2, floats=(1,), differentiated=[0, 1], argnum=0, vectors=[0])
    code = writer.second("k", ["o0", "o1"], "g_second", [], [0], 0)
    lines = [line.strip() for line in code.splitlines()]
    assert code.count("space[0]") == 1 and "len(" not in code
    helper = [k for k, line in enumerate(lines) if "srcad_nested_space(" in line]
    assert len(helper) == 1 and lines[helper[0] - 1].startswith("if buf.shape[0] < ")
    taped = writer.second("k", ["o0", "o1"], "g_second", ["tape", "int_tape"], [0], 0)
    assert "if len(space) < 2 or len(int_space) < 1:" in taped


def test_a_vector_argument_is_a_plain_slice_of_the_workspace():
    """numba's reshape calls a C helper per view; a slice of a 1-D argument's size is its
    shape already. Other arrays keep the reshape."""
    writer = KernelWriter(count=3, floats=(1,), differentiated=[0, 1, 2], argnum=0,
                          vectors=[0])
    code = writer.second("k", ["o0", "o1", "o2"], "g_second", [], [0], 2)
    assert "reshape(a0.shape)" not in code
    assert "a0_bar = buf[0:a0.size]" in code and "a0_bar[:] = 0.0" in code
    assert "reshape(a2.shape)" in code


def test_inner_derivative_code_is_compiled_into_its_kernels():
    """g's derivative code is numba-inlined into each kernel (a call passing the carved
    views and boxes cost about as much as the code it ran)."""
    from srcad.build.module_names import helper_units
    from srcad.operators.nested_numba import _renamed

    class Compiled:
        source = "def g_reverse(x, x_bar):\n    x_bar[0] += 1.0\n"

    text = _renamed(Compiled(), "srcad_nested_1_reverse")
    assert text.startswith("@srcad_inlined_jit\ndef srcad_nested_1_reverse(")
    assert [unit[0] for unit in helper_units(text)] == [["srcad_nested_1_reverse"]]


# -- compiled: values and allocations -----------------------------------------------------


def potential(x, w):
    return 1.0 / math.sqrt((x[0] - 10.0) ** 2 + (x[1] - (10.0 - w)) ** 2) \
        + 1.0 / math.sqrt((x[0] - 10.0) ** 2 + x[1] ** 2)


def field_work(w, x0, steps):
    """A particle's path under the force of `potential` (a reverse-mode inner gradient)."""
    x = x0.copy()
    s = 0.0
    for _ in range(steps):
        force = srcad.grad(potential)(x, w)
        s += force[0] * force[1]
        x = x - 0.5 * force
    return s + x[1]


def field_work_forward_inner(w, x0, steps):
    """`field_work`, the force by a forward-mode inner gradient."""
    x = x0.copy()
    s = 0.0
    for _ in range(steps):
        force = srcad.gradient(potential, x, srcad.Constant(w), mode="forward")
        s += force[0] * force[1]
        x = x - 0.5 * force
    return s + x[1]


def field_work_jax(w, x0, steps):
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    jax.config.update("jax_enable_x64", True)

    def p(x, w):
        return 1.0 / jnp.sqrt((x[0] - 10.0) ** 2 + (x[1] - (10.0 - w)) ** 2) \
            + 1.0 / jnp.sqrt((x[0] - 10.0) ** 2 + x[1] ** 2)

    def work(w):
        x, s = jnp.asarray(x0), 0.0
        for _ in range(steps):
            force = jax.grad(p)(x, w)
            s += force[0] * force[1]
            x = x - 0.5 * force
        return s + x[1]

    return float(jax.grad(work)(w))


def outer_derivative(function, outer, w, x0, steps):
    if outer == "reverse":
        return srcad.autodiff(srcad.Reverse, function, srcad.Active(w), srcad.Const(x0),
                              steps, backend="numba")[0]
    return srcad.autodiff(srcad.Forward, function, srcad.Duplicated(w, 1.0), srcad.Const(x0),
                          steps, backend="numba")


X0 = np.array([1.0, 3.0])


def test_forward_over_an_inner_gradient_on_numba_matches_jax_and_differences():
    """The smoke test of the family (one numba compilation): the forward outer mode runs
    the gradient-and-tangent kernel."""
    pytest.importorskip("numba")
    w, steps, h = 0.3, 6, 1e-4
    want = (field_work(w + h, X0, steps) - field_work(w - h, X0, steps)) / (2 * h)
    got = outer_derivative(field_work, "forward", w, X0, steps)
    assert got == pytest.approx(want, rel=1e-6)
    assert got == pytest.approx(field_work_jax(w, X0, steps), rel=1e-12)


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("outer", ["forward", "reverse"])
@pytest.mark.parametrize("function", [field_work, field_work_forward_inner],
                         ids=["inner-reverse", "inner-forward"])
def test_every_mode_combination_on_numba_matches_jax_and_differences(outer, function):
    pytest.importorskip("numba")
    w, steps, h = -0.2, 5, 1e-4
    want = (field_work(w + h, X0, steps) - field_work(w - h, X0, steps)) / (2 * h)
    got = outer_derivative(function, outer, w, X0, steps)
    assert got == pytest.approx(want, rel=1e-6)
    assert got == pytest.approx(field_work_jax(w, X0, steps), rel=1e-12)
    assert got == pytest.approx(srcad.autodiff(  # the python backend's second-order code
        srcad.Forward, function, srcad.Duplicated(w, 1.0), srcad.Const(X0), steps), rel=1e-12)


def scalar_work(w, x0, steps):
    """Per step only the nested gradient's result is an array, written into the one of the
    step before: the rest is float code."""
    s = 0.0
    for k in range(steps):
        force = srcad.grad(potential)(x0, w + 0.1 * k)
        s += force[0] * force[1] + s * w
    return s


def scaled_work(w, x0, steps):
    """`scalar_work` with the gradient used at once: the kernel returns views."""
    s = 0.0
    for k in range(steps):
        force = -1.0 * srcad.grad(potential)(x0, w + 0.1 * k)
        s += force[0] * force[1] + s * w
    return s


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_the_kernels_allocate_only_their_results():
    """Forward outer mode: per step one kernel call writing the gradient and its tangent into
    the arrays of the step before (two new arrays per step before that; before the workspace
    the two kernel calls of a step allocated 9: boxes, adjoints, zero directions, a tape)."""
    pytest.importorskip("numba")
    nrt = pytest.importorskip("numba.core.runtime._nrt_python")
    x0 = np.array([1.0, 3.0])

    def allocations(function, steps):
        outer_derivative(function, "forward", 0.3, x0, steps)
        before = nrt.memsys_get_stats_alloc()
        outer_derivative(function, "forward", 0.3, x0, steps)
        return nrt.memsys_get_stats_alloc() - before

    was_on = nrt.memsys_stats_enabled()
    nrt.memsys_enable_stats()
    try:
        per_step = [(allocations(f, 30) - allocations(f, 10)) / 20
                    for f in (scalar_work, scaled_work)]
    finally:
        if not was_on:
            nrt.memsys_disable_stats()
    # scalar_work: none (the gradient and its tangent, kept by `force`, `force_dot`, are
    # written into the arrays of the step before: srcad/operators/nested_result_reuse.py);
    # scaled_work: none either, `-1.0 *` of the kernel's views are numbers (the code is
    # specialized for x0's two elements: srcad/build/length_specialization.py; 2 arrays a step
    # before, the results and the products before that)
    assert per_step == [0, 0]
    h = 1e-4
    for function in (scalar_work, scaled_work):
        want = (function(0.3 + h, x0, 7) - function(0.3 - h, x0, 7)) / (2 * h)
        assert outer_derivative(function, "forward", 0.3, x0, 7) == pytest.approx(want,
                                                                                  rel=1e-6)


def curvature(v, w):
    """A loop (g's derivative code has tapes) over the first two entries of v."""
    s = 0.0
    for i in range(2):
        s += math.sin(v[i] * w) + v[i] * v[i] * w
    return s


def matrix_energy(m, w):
    return m[0, 0] * m[0, 0] * w + m[0, 1] * w * w + m[1, 2] * m[1, 1]


def growing_and_matrix_steps(w, m0, steps):
    """Nested gradients at a vector that doubles after a shorter call (the workspace grows
    inside one call of the outer derivative) and at a matrix (views reshaped)."""
    m, v = m0.copy(), m0[0].copy()
    s = 0.0
    for _ in range(steps):
        f = srcad.grad(matrix_energy)(m, w)
        m = m - 0.1 * f
        d = srcad.grad(curvature)(v, w)
        e = srcad.grad(curvature)(np.concatenate((v, v * 0.5)), w)
        v = v - 0.1 * d
        s += f[1, 0] * e[1] + d[0] + e[2] * e[0] + e[4]
    return s + m[0, 0] * v[1]


@pytest.mark.slow  # numba compilations: make test-all
@pytest.mark.parametrize("outer", ["forward", "reverse"])
def test_a_growing_workspace_and_matrix_operands_on_numba_match_differences(outer):
    pytest.importorskip("numba")
    m0 = np.array([[1.0, 0.5, -0.3], [0.2, -0.7, 0.4]])
    w, h = 0.7, 1e-5
    want = (growing_and_matrix_steps(w + h, m0, 3)
            - growing_and_matrix_steps(w - h, m0, 3)) / (2 * h)
    got = outer_derivative(growing_and_matrix_steps, outer, w, m0, 3)
    assert got == pytest.approx(want, rel=1e-7)
    assert got == pytest.approx(srcad.autodiff(  # the python backend's second-order code
        srcad.Forward, growing_and_matrix_steps, srcad.Duplicated(w, 1.0), srcad.Const(m0),
        3), rel=1e-12)


def summed_matrix_energy(m, w):
    """g's numba code fuses `np.sum(m * m)` into a loop nest of its own."""
    return np.sum(m * m) * w + m[0, 1] * w * w


def matrix_work(w, m):
    d = srcad.grad(summed_matrix_energy)(m, w)
    return np.sum(d * m) + w  # the outer code's own fused loop, of other operands


@pytest.mark.slow  # numba compilations: make test-all
def test_a_nested_gradient_whose_code_fuses_a_reduction_compiles():
    """The kernels' fused loop nests are named after the kernel and defined in the outer
    module: g's `fused_sum_all` was undefined there ("Invalid use of none"), or here the
    outer code's own of two operands ("missing a required argument")."""
    pytest.importorskip("numba")
    m = np.arange(6.0).reshape(2, 3) / 5
    want = 2.0 * np.sum(m * m) + 2.0 * 0.7 * m[0, 1] + 1.0  # by hand
    assert srcad.autodiff(srcad.Reverse, matrix_work, srcad.Active(0.7), m,
                          backend="numba")[0] == pytest.approx(want, rel=1e-12)
    assert srcad.autodiff(srcad.Forward, matrix_work, srcad.Duplicated(0.7, 1.0), m,
                          backend="numba") == pytest.approx(want, rel=1e-12)
