"""The fused loop nests (srcad/runtime/numba_fusion.py) and `sum_to`
(srcad/runtime/numba_sum_to.py) compiled by numba, against NumPy: each reduction kind with
axes and keepdims, rows and columns broadcast, NaN and infinities, NumPy's division by zero
in array operations and numba's (Python's) in operations of numbers alone, and the leaf types
left to the unfused expression."""

import numpy as np
import pytest

from srcad.runtime.array_runtime import unbroadcast

numba = pytest.importorskip("numba")

from srcad.runtime.numba_fusion import fused_kernel  # noqa: E402 - needs numba
from srcad.runtime.numba_semantics import added_into  # noqa: E402
from srcad.runtime.numba_sum_to import sum_to  # noqa: E402

RNG = np.random.default_rng(3)


def _compiled(kernel, arity):
    names = ", ".join(f"a{k}" for k in range(arity))
    scope = {"kernel": kernel}
    exec(f"def call({names}):\n    return kernel({names})", scope)
    return numba.njit(scope["call"])


def test_sum_to_adds_each_element_into_its_broadcast_place():
    call = _compiled(sum_to, 2)
    g = RNG.standard_normal((2, 3, 4))
    for shape in [(3, 4), (1, 4), (3, 1), (4,), (1, 1), (2, 1, 4), (2, 3, 4)]:
        np.testing.assert_allclose(call(g, shape), unbroadcast(g, shape), rtol=1e-14)
    with pytest.raises(ValueError, match="shapes do not broadcast"):
        call(g, (2, 4))
    with pytest.raises(ValueError, match="narrower"):
        call(g[0], (2, 3, 4))


CASES = [  # (expression, reduction, leaves)
    ("np.exp(a0 - a1)", ("sum", None, False), lambda: (RNG.random((3, 4)), RNG.random(4))),
    ("np.exp(a0 - a1)", ("sum", 1, True), lambda: (RNG.random((3, 4)), RNG.random((3, 1)))),
    ("(a0 * a1)", ("sum", 3, False),
     lambda: (RNG.random((1, 2, 3, 3)), RNG.random((4, 2, 1, 3)))),
    ("np.log((1.0 + a0))", ("mean", (0, 2), False), lambda: (RNG.random((2, 3, 4)),)),
    ("(-(a0 * a1))", ("max", 0, False), lambda: (RNG.random((3, 4)), 2)),
    ("np.sqrt((a0 + a1))", ("min", -1, True), lambda: (RNG.random((3, 4)), 0.5)),
    ("np.tanh(a0) ** 2.0", ("sum", None, False), lambda: (RNG.standard_normal(5),)),
]


@pytest.mark.slow  # one numba compilation per case
@pytest.mark.parametrize("expression, reduction, leaves", CASES)
def test_fused_reduction_equals_numpy(expression, reduction, leaves):
    args = leaves()
    kernel = fused_kernel(expression, reduction, len(args))
    want = eval(expression, {"np": np}, {f"a{k}": a for k, a in enumerate(args)})
    want = getattr(np, reduction[0])(want, axis=reduction[1], keepdims=reduction[2])
    np.testing.assert_allclose(_compiled(kernel, len(args))(*args), want, rtol=1e-13)
    np.testing.assert_allclose(kernel(*args), want, rtol=1e-13)  # the interpreter's


@pytest.mark.slow  # numba compiles the kernel for five shapes
def test_fused_adjoint_of_broadcasting_sums_rows_and_columns():
    kernel = fused_kernel("(a0 * (a1 / a2))", ("unbroadcast",), 3)
    call = _compiled(kernel, 4)
    g, row, column = RNG.random((3, 4)), RNG.random(4), 1.0 + RNG.random((3, 1))
    for shape in [(4,), (3, 1), (1, 4), (3, 4), ()]:
        want = unbroadcast(g * (row / column), shape)
        np.testing.assert_allclose(call(g, row, column, shape), want, rtol=1e-13)


@pytest.mark.slow
def test_fused_kernels_keep_numpy_and_numba_semantics_at_special_values():
    maximum = _compiled(fused_kernel("(a0 * a1)", ("max", None, False), 2), 2)
    assert np.isnan(maximum(np.array([1.0, np.nan, 3.0]), 2.0))
    assert maximum(np.array([1.0, np.inf]), 2.0) == np.inf
    with pytest.raises(ValueError, match="zero-size"):
        maximum(np.zeros(0), 2.0)
    divided = _compiled(fused_kernel("(a0 / a1)", ("sum", None, False), 2), 2)
    assert divided(np.array([1.0, 2.0]), np.array([0.0, 1.0])) == np.inf  # NumPy's
    numbers = _compiled(fused_kernel("((a0 / a1) * a2)", ("sum", None, False), 3), 3)
    with pytest.raises(ZeroDivisionError):  # a number by a number: as numba computes it
        numbers(1.0, 0.0, np.ones(2))


@pytest.mark.slow
def test_leaves_that_are_not_float_arrays_get_the_unfused_expression():
    ints = np.arange(6).reshape(3, 2)
    by_axis = _compiled(fused_kernel("(a0 * a1)", ("sum", 0, False), 2), 2)
    np.testing.assert_array_equal(by_axis(ints, ints), np.sum(ints * ints, axis=0))
    whole = _compiled(fused_kernel("(a0 * a1)", ("sum", None, False), 2), 2)
    assert whole(ints, ints) == np.sum(ints * ints)
    assert isinstance(whole(ints, ints), (int, np.integer))  # numba's np.sum of ints


@pytest.mark.slow
def test_fused_kernels_read_strided_and_transposed_views():
    summed = _compiled(fused_kernel("(a0 * a1)", ("sum", 0, False), 2), 2)
    adjoint = _compiled(fused_kernel("(a0 - a1)", ("unbroadcast",), 2), 3)
    x, y = np.arange(24.0).reshape(6, 4), np.arange(4.0) + 1.0
    np.testing.assert_allclose(summed(x[::2, ::-1], y[::-1]),
                               np.sum(x[::2, ::-1] * y[::-1], axis=0), rtol=1e-14)
    np.testing.assert_allclose(adjoint(x.T, y[:, None], (4, 1)),
                               np.sum(x.T - y[:, None], axis=1, keepdims=True), rtol=1e-14)
    mean = _compiled(fused_kernel("(a0 * 2.0)", ("mean", None, False), 1), 1)
    assert np.isnan(mean(np.zeros(0)))  # NumPy's mean of no element


def _typed_implementations(function, *args):
    """(How many implementations of srcad's fused loops (functions `impl` made from source)
    numba typed while compiling `function` for `args`, its result)."""
    from numba.core import event

    recorder = event.RecordingListener()
    with event.install_listener("numba:run_pass", recorder):
        result = function(*args)
    return sum(1 for _, ev in recorder.buffer if ev.is_start
               and ev.data["name"].startswith("nopython_type_inference")
               and (ev.data["module"], ev.data["qualname"]) == ("<dynamic>", "impl")), result


def test_calls_of_the_same_fused_loop_share_one_compiled_implementation():
    # a generated module binds a name per call site: two names for the same loop nest (and
    # the same reduction) are one function, whose implementation numba types once per
    # argument types
    # an expression no other test compiles: the process has not typed it yet
    first = fused_kernel("((a0 * a0) - 0.3125)", ("sum", None, False), 1)
    second = fused_kernel("((a0 * a0) - 0.3125)", ("sum", None, False), 1)
    assert first is second
    from srcad.runtime.numba_arrays import reducer

    assert reducer("sum", 1, False) is reducer("sum", 1, False)

    scope = {"first": first, "second": second}
    exec("def call(x, y):\n    return first(x) + second(y)", scope)
    x, y = np.arange(6.0).reshape(2, 3), np.ones((3, 2))
    typed, result = _typed_implementations(numba.njit(scope["call"]), x, y)
    assert typed == 1
    np.testing.assert_allclose(result, np.sum(x * x - 0.3125) + np.sum(y * y - 0.3125),
                               rtol=1e-14)


MAPS = [  # (expression, leaves): the map kernel against NumPy's expression
    ("np.tanh((a0 + a1))", lambda: (RNG.standard_normal((5, 4)), RNG.standard_normal(4))),
    ("np.exp((a0 - a1))", lambda: (RNG.standard_normal((5, 4)), RNG.standard_normal((5, 1)))),
    ("(a0 * (1.0 - (a1 * a1)))", lambda: (RNG.standard_normal((5, 4)).T,  # a transposed view
                                          RNG.standard_normal((4, 5))[:, ::-1])),
    ("((a0 * a1) + a2)", lambda: (RNG.standard_normal((1, 3, 4)), RNG.standard_normal((2, 1, 4)),
                                  RNG.standard_normal((3, 1)))),
    ("np.log((a0 / a1))", lambda: (RNG.random(7), 2.0)),
    ("(a0 / (a1 - 1.0))", lambda: (np.array([[1.0, -1.0, np.nan]]), np.array([[1.0], [2.0]]))),
    ("(a0 * (a1 + 2.0))", lambda: (np.zeros((0, 3)), np.ones(3))),
    ("(a0 * np.sqrt(a1))", lambda: (RNG.standard_normal((3, 4))[::2, ::2],  # strided, rank 2
                                    RNG.random((2, 1)))),
]


@pytest.mark.slow  # one numba compilation per case
@pytest.mark.parametrize("expression, leaves", MAPS)
def test_fused_map_equals_numpy_for_rows_columns_views_and_special_values(expression, leaves):
    args = leaves()
    kernel = fused_kernel(expression, ("map",), len(args))
    with np.errstate(divide="ignore", invalid="ignore"):
        want = eval(expression, {"np": np}, {f"a{k}": a for k, a in enumerate(args)})
    got = _compiled(kernel, len(args))(*args)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=4e-15, atol=0.0)  # simd_tanh 1 ulp, NumPy's 2


@pytest.mark.slow
def test_fused_map_of_numbers_or_ints_is_the_unfused_expression():
    numbers = _compiled(fused_kernel("((a0 * a1) + 1.0)", ("map",), 2), 2)
    assert numbers(2.0, 3.0) == 7.0
    ints = np.arange(6).reshape(3, 2)
    np.testing.assert_array_equal(numbers(ints, ints), ints * ints + 1.0)
    with pytest.raises(ValueError, match="broadcast"):
        numbers(np.ones((3, 2)), np.ones((2, 3)))


@pytest.mark.slow
def test_first_adjoint_is_the_contribution_itself_a_copy_or_zeros_plus_it():
    from srcad.runtime.numba_semantics import assigned_adjoint, copied_adjoint

    assigned, copied = _compiled(assigned_adjoint, 2), _compiled(copied_adjoint, 2)
    v, e = np.ones((3, 2)), RNG.standard_normal((3, 2))
    assert assigned(v, e) is e  # a new array the code made: taken as it is
    held = copied(v, e)
    assert held is not e and np.shares_memory(held, e) is False
    np.testing.assert_array_equal(held, e)
    row = RNG.standard_normal(2)[None, :]  # broadcast to v's shape: the zeros plus it
    np.testing.assert_array_equal(assigned(v, row), np.zeros((3, 2)) + row)
    np.testing.assert_array_equal(copied(v, e.T.T[:, ::-1]), e[:, ::-1])  # a view: copied
    np.testing.assert_array_equal(assigned(v, 2.5), np.full((3, 2), 2.5))  # a number
    spread = copied(v, -0.0)  # a number spread over v: 0.0 + it, a positive zero as the sum
    assert spread.shape == (3, 2) and not np.signbit(spread).any()
    np.testing.assert_array_equal(copied(v, 3), np.full((3, 2), 3.0))
    assert copied(v, 3).dtype == np.float64


@pytest.mark.slow  # numba compiles each kernel for a few ranks and layouts
def test_maps_of_short_and_long_rows_and_unbroadcasts_to_their_own_shape_equal_numpy():
    # rows shorter than SHORT_ROW: one plain nest when the element is arithmetic, rows
    # otherwise; the same expressions on long rows take the row loops
    from srcad.runtime.numba_fusion import SHORT_ROW

    arithmetic = _compiled(fused_kernel("((a0 * a1) + (a2 / 2.0))", ("map",), 3), 3)
    with_exp = _compiled(fused_kernel("np.exp((a0 - a1))", ("map",), 2), 2)
    for d in (1, 3, SHORT_ROW - 1, SHORT_ROW, 40):
        x, lx = RNG.standard_normal((5, 4, d)), RNG.standard_normal((5, 4, d))
        diag, column = RNG.standard_normal((4, d)), RNG.standard_normal((5, 4))
        for a0, a1, a2 in [(diag[None, :, :], x, lx), (column[:, :, None], x, x[:, :1, :]),
                           (x.transpose(1, 0, 2).copy().transpose(1, 0, 2), 2.0, diag)]:
            want = a0 * a1 + a2 / 2.0
            np.testing.assert_array_equal(arithmetic(a0, a1, a2), want)
        np.testing.assert_array_max_ulp(with_exp(x, column[:, :, None]),
                                        np.exp(x - column[:, :, None]), maxulp=1)
    adjoint = _compiled(fused_kernel("(a0 * a1)", ("unbroadcast",), 2), 3)
    g, x = RNG.standard_normal((5, 4, 3)), RNG.standard_normal((4, 3))
    for shape in [(5, 4, 3), (1, 4, 3), (4, 3)]:
        np.testing.assert_allclose(adjoint(g, x[None], shape), unbroadcast(g * x, shape),
                                   rtol=1e-13)


def test_a_map_of_short_rows_is_one_plain_nest_only_for_arithmetic():
    import ast

    from numba import types

    from srcad.runtime.numba_fusion import SHORT_ROW, _map_nest
    from srcad.runtime.numba_fusion_elements import Element

    leaves = [types.Array(types.float64, 3, "A"), types.Array(types.float64, 3, "C")]

    def lines(expression):
        tree = ast.parse(expression, mode="eval").body
        row = Element({0, 1}, 3, "r{k}[j]").visit(tree)
        return _map_nest("a0, a1", [0, 1], 3, row, leaves, Element({0, 1}, 3).visit(tree))

    plain = lines("(2.0 * (a0 * a1))")
    assert f"    if n < {SHORT_ROW}:" in plain
    assert "out[i0, i1, i2] = (2.0 * (b0[i0, i1, i2] * b1[i0, i1, i2]))" in [
        line.strip() for line in plain]
    assert not any("if n <" in line for line in lines("np.tanh((a0 * a1))"))


def _added_unbroadcast(leaves, shape, t):
    """NumPy's `t += unbroadcast(a0 * a1, shape)`, on a copy of t's base."""
    want = t.copy()
    want += unbroadcast(leaves[0] * leaves[1], shape)
    return want


@pytest.mark.slow  # numba compiles the rank-4 contraction (tens of seconds on a loaded machine)
def test_an_unbroadcast_added_into_a_view_is_added_in_place_by_blas():
    """gmm's adjoint of its centered points, x_bar[:, :, None, :] += unbroadcast(L[None] * g,
    ...): the matrix products add into the view itself (no sum array made)."""
    into = _compiled(fused_kernel("(a0 * a1)", ("unbroadcast_into",), 2), 4)
    lower, g = RNG.standard_normal((5, 12, 12)), RNG.standard_normal((40, 5, 12, 1))
    x_bar = RNG.standard_normal((40, 5, 12))
    view = x_bar[:, :, None, :]
    leaves = (lower[None, :, :, :], g)
    want = _added_unbroadcast(leaves, view.shape, view)
    assert into(*leaves, view.shape, view) is not None
    np.testing.assert_allclose(view, want, rtol=1e-12, atol=1e-12)
    # one allocation fewer than the sum made, then added (the same arguments unboxed)
    made = fused_kernel("(a0 * a1)", ("unbroadcast",), 2)

    @numba.njit
    def made_then_added(a0, a1, shape, t):
        t = added_into(t, made(a0, a1, shape))
        return t

    made_then_added(*leaves, view.shape, view)
    nrt = pytest.importorskip("numba.core.runtime._nrt_python")
    was_on = nrt.memsys_stats_enabled()
    nrt.memsys_enable_stats()
    try:
        counts = []
        for call in (into, made_then_added):
            before = nrt.memsys_get_stats_alloc()
            call(*leaves, view.shape, view)
            counts.append(nrt.memsys_get_stats_alloc() - before)
        assert counts[0] == counts[1] - 1
    finally:
        if not was_on:
            nrt.memsys_disable_stats()


@pytest.mark.slow  # numba compiles the kernel for a few ranks and layouts
def test_an_unbroadcast_added_into_a_name_equals_numpy_also_where_it_cannot_add_in_place():
    into = _compiled(fused_kernel("(a0 * a1)", ("unbroadcast_into",), 2), 4)
    a, row = RNG.standard_normal((6, 7)), RNG.standard_normal(7)
    cases = [
        ((a, row), (1, 7), RNG.standard_normal((1, 7))),  # the loop nest summing rows
        ((a, row), (6, 7), RNG.standard_normal((6, 7))),  # nothing summed
        ((a, row), (1, 7), RNG.standard_normal((6, 7))),  # t wider than the sum: made, added
        ((a, row), (7,), RNG.standard_normal(7)),  # a leading axis summed
    ]
    for leaves, shape, t in cases:
        want = t + unbroadcast(leaves[0] * leaves[1], shape)
        into(*leaves, shape, t)
        np.testing.assert_allclose(t, want, rtol=1e-13)
    b = RNG.standard_normal((6, 7))  # t is a leaf: the loop would read what it wrote
    want = b + b * row
    into(b, row, (6, 7), b)
    np.testing.assert_allclose(b, want, rtol=1e-13)
    b = RNG.standard_normal((6, 7))
    want = b.copy()
    want[:, :3] += b[:, 2:5] * 2.0
    into(b[:, 2:5], np.full(3, 2.0), (6, 3), b[:, :3])  # overlapping views of one array
    np.testing.assert_allclose(b, want, rtol=1e-13)
    t = np.ones((2, 3))  # the Python reference
    fused_kernel("(a0 * a1)", ("unbroadcast_into",), 2)(np.ones((2, 3)), 2.0, (2, 3), t)
    np.testing.assert_array_equal(t, np.full((2, 3), 3.0))
