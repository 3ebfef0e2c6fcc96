"""Every public keyword either works or is refused with a SrcadError naming what it takes.

Each refusal here was a silently ignored or misread option before (a `mode="Forward"` that ran
reverse mode, a forward-mode `seed=` that changed nothing, an integer `out=` that truncated the
Jacobian), or a bare TypeError from inside srcad. Expected values are derived by hand:

* s2s(x, a) = a x^3 + sin x: d = 3 a x^2 + cos x, d2 = 6 a x - sin x;
* pair(x) = (x0 x1, x0 + 3 x1): J = [[x1, x0], [1, 3]];
* prod(x) = x0^2 x1: grad = (2 x0 x1, x0^2), H = [[2 x1, 2 x0], [2 x0, 0]].
"""

import importlib.util
import math

import numpy as np
import pytest

import srcad
from srcad import (
    Active,
    BatchDuplicated,
    BatchDuplicatedNoNeed,
    Constant,
    Duplicated,
    DuplicatedNoNeed,
    Forward,
    ForwardWithPrimal,
    Reverse,
    ReverseWithPrimal,
)

HAVE_NUMBA = importlib.util.find_spec("numba") is not None
BACKENDS = ["python", pytest.param("numba", marks=pytest.mark.skipif(
    not HAVE_NUMBA, reason="numba is not installed"))]


def s2s(x, a):
    return a * x ** 3 + math.sin(x)


def pair(x):
    y = np.zeros(2)
    y[0] = x[0] * x[1]
    y[1] = x[0] + 3.0 * x[1]
    return y


def prod(x):
    return x[0] * x[0] * x[1]


def pair_into(y, x):
    y[0] = x[0] * x[1]
    y[1] = x[0] + 3.0 * x[1]


X = np.array([1.5, -2.0])
PAIR_J = np.array([[-2.0, 1.5], [1.0, 3.0]])
PROD_GRAD = np.array([2 * 1.5 * -2.0, 1.5 ** 2])
PROD_H = np.array([[2 * -2.0, 2 * 1.5], [2 * 1.5, 0.0]])


def d_s2s(x, a):
    return 3 * a * x ** 2 + math.cos(x)


def refused(call, *words):
    with pytest.raises(srcad.SrcadError) as err:
        call()
    for word in words:
        assert word in str(err.value), str(err.value)
    return str(err.value)


# -- operator mode= ------------------------------------------------------------------------------
# (operator, f, args, keywords): one call of each operator and its prepare twin
OPERATORS = [
    ("gradient", prod, (X,), {}),
    ("value_and_gradient", prod, (X,), {}),
    ("jacobian", pair, (X,), {}),
    ("value_and_jacobian", pair, (X,), {}),
    ("derivative", s2s, (0.5, Constant(2.0)), {}),
    ("pushforward", pair, (X,), dict(tangent=np.ones(2))),
    ("pullback", pair, (X,), dict(cotangent=np.ones(2))),
    ("hvp", prod, (X,), dict(tangent=np.ones(2))),
    ("hessian", prod, (X,), {}),
    ("second_derivative", s2s, (0.5, Constant(2.0)), {}),
]
ALLOWED_MODES = {"gradient": "'forward' or 'reverse'", "jacobian": "'forward' or 'reverse'",
                 "derivative": "'forward'", "pushforward": "'forward'",
                 "pullback": "'reverse'", "hvp": "'forward-over-reverse'",
                 "hessian": "'forward-over-reverse'",
                 "second_derivative": "'forward-over-reverse'"}


def _operator_ids():
    return [case[0] for case in OPERATORS]


@pytest.mark.parametrize("name, f, args, kw", OPERATORS, ids=_operator_ids())
@pytest.mark.parametrize("mode", ["Forward", "bogus", "REVERSE"])
@pytest.mark.parametrize("prepare", [False, True])
def test_unknown_mode_is_refused_naming_the_allowed_modes(name, f, args, kw, mode, prepare):
    base = name.replace("value_and_", "")
    op = getattr(srcad, "prepare_" + base if prepare else name)
    refused(lambda: op(f, *args, mode=mode, **kw), "mode=", ALLOWED_MODES[base], repr(mode))


@pytest.mark.parametrize("name, mode, hint", [("pushforward", "reverse", "jacobian"),
                                              ("derivative", "reverse", "jacobian"),
                                              ("pullback", "forward", "jacobian"),
                                              ("hvp", "forward", "forward-over-reverse"),
                                              ("hessian", "reverse", "forward-over-reverse")])
def test_mode_an_operator_does_not_run_is_refused(name, mode, hint):
    f, args, kw = next((f, a, k) for n, f, a, k in OPERATORS if n == name)
    refused(lambda: getattr(srcad, name)(f, *args, mode=mode, **kw), hint)


def test_the_modes_an_operator_runs_give_the_derivative():
    np.testing.assert_allclose(srcad.pushforward(pair, X, tangent=np.array([1.0, 2.0]),
                                                 mode="forward"), PAIR_J @ [1.0, 2.0])
    np.testing.assert_allclose(srcad.pullback(pair, X, cotangent=np.array([1.0, 2.0]),
                                              mode="reverse"), np.array([1.0, 2.0]) @ PAIR_J)
    assert srcad.derivative(s2s, 0.5, Constant(2.0), mode="forward") == pytest.approx(
        d_s2s(0.5, 2.0), rel=1e-14)
    np.testing.assert_allclose(srcad.hessian(prod, X, mode="forward-over-reverse"), PROD_H)
    for mode in ("forward", "reverse"):
        np.testing.assert_allclose(srcad.gradient(prod, X, mode=mode), PROD_GRAD)
        np.testing.assert_allclose(srcad.jacobian(pair, X, mode=mode), PAIR_J)


# -- chunk= --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["derivative", "pushforward", "pullback", "hvp",
                                  "second_derivative"])
@pytest.mark.parametrize("prepare", [False, True])
def test_chunk_is_refused_where_there_are_no_lanes_to_choose(name, prepare):
    f, args, kw = next((f, a, k) for n, f, a, k in OPERATORS if n == name)
    op = getattr(srcad, "prepare_" + name if prepare else name)
    refused(lambda: op(f, *args, chunk=2, **kw), "chunk=")


@pytest.mark.parametrize("chunk", [0, -3, 2.5, True, "4"])
def test_chunk_that_is_not_a_positive_integer_is_refused(chunk):
    refused(lambda: srcad.gradient(prod, X, mode="forward", chunk=chunk), "positive integer")
    refused(lambda: srcad.hessian(prod, X, chunk=chunk), "positive integer")


def test_chunk_in_reverse_mode_is_refused():
    refused(lambda: srcad.gradient(prod, X, chunk=1), "reverse", "mode='forward'")
    refused(lambda: srcad.gradient(prod, X, mode="reverse", chunk=1), "reverse")
    # (jacobian with mode="reverse" and chunk=W pulls back W rows per sweep:
    # tests/operators/test_batched_reverse.py)
    # mode=None picks reverse for a jacobian of many more inputs than outputs (30 for 2)
    refused(lambda: srcad.jacobian(pair, np.ones(30), chunk=2), "reverse")


def test_chunk_in_forward_mode_gives_the_derivative():
    for chunk in (1, 2, np.int64(1)):
        np.testing.assert_allclose(srcad.gradient(prod, X, mode="forward", chunk=chunk),
                                   PROD_GRAD)
        np.testing.assert_allclose(srcad.hessian(prod, X, chunk=chunk), PROD_H)


# -- backend= ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, f, args, kw", OPERATORS, ids=_operator_ids())
def test_unknown_backend_is_refused_naming_the_backends(name, f, args, kw):
    refused(lambda: getattr(srcad, name)(f, *args, backend="bogus", **kw), "'python'",
            "'numba'")


# -- options given with prep= --------------------------------------------------------------------
def test_options_given_with_prep_must_be_the_preparations():
    prep = srcad.prepare_gradient(prod, X)  # reverse
    with pytest.raises(srcad.PreparationMismatchError, match="mode='reverse'"):
        srcad.gradient(prod, X, prep=prep, mode="forward")
    np.testing.assert_allclose(srcad.gradient(prod, X, prep=prep, mode="reverse"), PROD_GRAD)
    prep = srcad.prepare_jacobian(pair, X, mode="forward", chunk=1)
    with pytest.raises(srcad.PreparationMismatchError, match="chunk=1"):
        srcad.jacobian(pair, X, prep=prep, chunk=2)
    with pytest.raises(srcad.PreparationMismatchError, match="backend='python'"):
        srcad.jacobian(pair, X, prep=prep, backend="numba")
    prep = srcad.prepare_hessian(prod, X, chunk=1)
    with pytest.raises(srcad.PreparationMismatchError, match="chunk=1"):
        srcad.hessian(prod, X, prep=prep, chunk=2)
    prep = srcad.prepare_derivative(s2s, 0.5, Constant(2.0))
    with pytest.raises(srcad.PreparationMismatchError):
        srcad.derivative(s2s, 0.5, Constant(2.0), prep=prep, backend="numba")


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")
def test_prep_backend_is_used_when_the_call_names_none():
    prep = srcad.prepare_gradient(prod, X, backend="numba")
    np.testing.assert_allclose(srcad.gradient(prod, X, prep=prep), PROD_GRAD)
    with pytest.raises(srcad.PreparationMismatchError, match="backend='numba'"):
        srcad.gradient(prod, X, prep=prep, backend="python")


# -- out= ----------------------------------------------------------------------------------------
def test_out_for_a_float_result_is_refused():
    refused(lambda: srcad.gradient(s2s, 0.5, Constant(2.0), out=np.zeros(())), "out=", "float")
    refused(lambda: srcad.derivative(s2s, 0.5, Constant(2.0), out=np.zeros(())), "out=")
    refused(lambda: srcad.second_derivative(s2s, 0.5, Constant(2.0), out=np.zeros(1)), "out=")
    refused(lambda: srcad.hvp(s2s, 0.5, Constant(2.0), tangent=1.0, out=np.zeros(())), "out=")
    refused(lambda: srcad.pullback(s2s, 0.5, Constant(2.0), cotangent=1.0, out=np.zeros(())),
            "out=")
    refused(lambda: srcad.pushforward(prod, X, tangent=X, out=np.zeros(())), "out=")


@pytest.mark.parametrize("bad", [np.zeros((2, 2), dtype=np.int64), [[0.0, 0.0], [0.0, 0.0]],
                                 np.zeros((2, 2), dtype=complex)], ids=["int", "list", "complex"])
def test_out_that_is_not_a_float_array_is_refused(bad):
    refused(lambda: srcad.jacobian(pair, X, out=bad), "out=", "float NumPy array")
    refused(lambda: srcad.hessian(prod, X, out=bad), "out=")
    vector = bad[0] if isinstance(bad, np.ndarray) else bad[0]
    refused(lambda: srcad.gradient(prod, X, out=vector), "out=")
    refused(lambda: srcad.gradient(prod, X, mode="forward", out=vector), "out=")
    refused(lambda: srcad.pullback(pair, X, cotangent=X, out=vector), "out=")
    refused(lambda: srcad.pushforward(pair, X, tangent=X, out=vector), "out=")
    refused(lambda: srcad.hvp(prod, X, tangent=X, out=vector), "out=")


def test_pushforward_batch_out_is_a_tuple_of_arrays():
    tangents = (np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    refused(lambda: srcad.pushforward(pair, X, tangent=tangents, out=np.zeros((2, 2))),
            "tuple of 2")
    out = (np.zeros(2), np.zeros(2))
    got = srcad.pushforward(pair, X, tangent=tangents, out=out)
    assert got[0] is out[0] and got[1] is out[1]
    np.testing.assert_allclose(np.column_stack(got), PAIR_J)


# -- autodiff seed= and batch= -------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_forward_mode_refuses_a_seed(backend):
    for mode in (Forward, ForwardWithPrimal):
        for _ in range(2):  # the checked call and the fast path of a repeated call
            refused(lambda mode=mode: srcad.autodiff(
                mode, s2s, Duplicated(0.5, 1.0), 2.0, seed=3.0, backend=backend),
                "seed=", "forward", "Duplicated")
            srcad.autodiff(mode, s2s, Duplicated(0.5, 1.0), 2.0, backend=backend)
    refused(lambda: srcad.autodiff(Forward, s2s, BatchDuplicated(0.5, [1.0, 2.0]), 2.0,
                                   seed=1.0, backend=backend), "seed=")


@pytest.mark.parametrize("backend", BACKENDS)
def test_reverse_seed_scales_the_derivative(backend):
    for _ in range(2):
        (d, _a), value = srcad.autodiff(ReverseWithPrimal, s2s, Active(0.5), 2.0, seed=3.0,
                                        backend=backend)
        assert d == pytest.approx(3.0 * d_s2s(0.5, 2.0), rel=1e-14)
        assert value == pytest.approx(2.0 * 0.125 + math.sin(0.5), rel=1e-14)
    dx = np.zeros(2)
    srcad.autodiff(Reverse, pair, Duplicated(X, dx), seed=np.array([1.0, 2.0]), backend=backend)
    np.testing.assert_allclose(dx, np.array([1.0, 2.0]) @ PAIR_J)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reverse_seed_of_a_function_returning_nothing_is_refused(backend):
    for _ in range(2):
        dx, dy = np.zeros(2), np.array([1.0, 2.0])
        refused(lambda dx=dx, dy=dy: srcad.autodiff(
            Reverse, pair_into, Duplicated(np.zeros(2), dy), Duplicated(X, dx), seed=2.0,
            backend=backend),
                "seed=", "returns nothing")
        dy = np.array([1.0, 2.0])
        srcad.autodiff(Reverse, pair_into, Duplicated(np.zeros(2), dy), Duplicated(X, dx),
                       backend=backend)
        np.testing.assert_allclose(dx, np.array([1.0, 2.0]) @ PAIR_J)


@pytest.mark.parametrize("seed", ["3", [1.0], object()])
def test_reverse_seed_that_is_not_a_number_is_refused(seed):
    for _ in range(2):
        refused(lambda: srcad.autodiff(Reverse, s2s, Active(0.5), 2.0, seed=seed), "seed=")


def test_batch_without_batch_duplicated_is_refused():
    for mode in (Reverse, ReverseWithPrimal):
        refused(lambda mode=mode: srcad.autodiff(mode, s2s, Active(0.5), 2.0, batch="stacked"),
                "batch=", "BatchDuplicated")
    refused(lambda: srcad.autodiff(Forward, s2s, Duplicated(0.5, 1.0), 2.0, batch="unrolled"),
            "batch=")
    refused(lambda: srcad.source(s2s, Reverse, Active(0.5), 2.0, batch="stacked"), "batch=")


@pytest.mark.parametrize("batch", ["unrolled", "stacked"])
def test_batch_layouts_give_the_same_tangents(batch):
    got = srcad.autodiff(Forward, s2s, BatchDuplicated(0.5, [1.0, -2.0]), 2.0, batch=batch)
    np.testing.assert_allclose(got, [d_s2s(0.5, 2.0), -2.0 * d_s2s(0.5, 2.0)], rtol=1e-14)


def test_source_refuses_a_mode_that_is_not_a_mode():
    refused(lambda: srcad.source(s2s, "Reverse", Active(0.5), 2.0), "srcad.Reverse")


# -- decorators ----------------------------------------------------------------------------------
def test_reverse_decorator_with_seed_shows_its_source_and_scales():
    cube = srcad.reverse(seed=3.0)(s2s)
    assert cube.source(Active(0.5), 2.0) == srcad.source(s2s, Reverse, Active(0.5), 2.0)
    assert cube(Active(0.5), 2.0)[0] == pytest.approx(3.0 * d_s2s(0.5, 2.0), rel=1e-14)
    assert cube(0.5, 2.0) == s2s(0.5, 2.0)


def test_forward_decorator():
    fs2s = srcad.forward(s2s)
    assert fs2s(0.5, 2.0) == s2s(0.5, 2.0)  # a plain call runs f
    assert fs2s(Duplicated(0.5, -2.0), 2.0) == pytest.approx(-2.0 * d_s2s(0.5, 2.0), rel=1e-14)
    assert "s2s_forward" in fs2s.source(Duplicated(0.5, 1.0), 2.0)
    stacked = srcad.forward(batch="stacked")(s2s)
    np.testing.assert_allclose(stacked(BatchDuplicated(0.5, [1.0, 2.0]), 2.0),
                               [d_s2s(0.5, 2.0), 2.0 * d_s2s(0.5, 2.0)], rtol=1e-14)
    assert "forward_2" in stacked.source(BatchDuplicated(0.5, [1.0, 2.0]), 2.0)
    assert srcad.autodiff(Forward, fs2s, Duplicated(0.5, 1.0), 2.0) == pytest.approx(
        d_s2s(0.5, 2.0), rel=1e-14)


def test_forward_decorator_refuses_a_seed():
    refused(lambda: srcad.forward(seed=2.0)(s2s), "seed=", "forward")
    refused(lambda: srcad.forward(s2s)(Duplicated(0.5, 1.0), 2.0, seed=2.0), "seed=")


def test_decorated_call_refuses_an_unknown_keyword():
    refused(lambda: srcad.reverse(s2s)(Active(0.5), a=2.0), "'a'", "seed, batch, backend",
            "positionally")
    refused(lambda: srcad.forward(s2s)(Duplicated(0.5, 1.0), 2.0, sed=1.0), "'sed'",
            "batch, backend")
    refused(lambda: srcad.reverse(sed=1.0), "'sed'")
    assert srcad.reverse(s2s)(0.5, a=2.0) == s2s(0.5, 2.0)  # plain calls pass keywords to f


# -- annotations without a test before -----------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_duplicated_no_need_accumulates_like_duplicated(backend):
    dx = np.array([10.0, 20.0])
    for _ in range(2):
        out = srcad.autodiff(Reverse, prod, DuplicatedNoNeed(X, dx), backend=backend)
        assert out == (None,)
    np.testing.assert_allclose(dx, np.array([10.0, 20.0]) + 2 * PROD_GRAD)
    tangent = srcad.autodiff(Forward, prod, DuplicatedNoNeed(X, np.array([1.0, -1.0])),
                             backend=backend)
    assert tangent == pytest.approx(PROD_GRAD @ [1.0, -1.0], rel=1e-14)
    assert srcad.autodiff(Forward, s2s, DuplicatedNoNeed(0.5, 2.0), 2.0, backend=backend) \
        == pytest.approx(2.0 * d_s2s(0.5, 2.0), rel=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("batch", [None, "unrolled", "stacked"])
def test_batch_duplicated_no_need_propagates_every_lane(backend, batch):
    lanes = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, -1.0]])
    for _ in range(2):
        got = srcad.autodiff(Forward, prod, BatchDuplicatedNoNeed(X, lanes), batch=batch,
                             backend=backend)
        np.testing.assert_allclose(got, lanes @ PROD_GRAD, rtol=1e-14)
        got = srcad.autodiff(Forward, s2s, BatchDuplicatedNoNeed(0.5, [1.0, -3.0]), 2.0,
                             batch=batch, backend=backend)
        np.testing.assert_allclose(got, [d_s2s(0.5, 2.0), -3.0 * d_s2s(0.5, 2.0)], rtol=1e-14)


@pytest.mark.parametrize("backend", BACKENDS)
def test_forward_with_primal_returns_tangent_then_value(backend):
    """Distinct nonzero tangent and value, so swapping them cannot pass: at x = 0.5, a = 2.0,
    a direction of 4.0: tangent 4 (3 a x^2 + cos x) = 6 + 4 cos 0.5 ~ 9.51, value
    a x^3 + sin x = 0.25 + sin 0.5 ~ 0.729."""
    want_tangent, want_value = 4.0 * d_s2s(0.5, 2.0), 0.25 + math.sin(0.5)
    for _ in range(2):  # the checked call, then the fast path
        tangent, value = srcad.autodiff(ForwardWithPrimal, s2s, Duplicated(0.5, 4.0), 2.0,
                                        backend=backend)
        assert tangent == pytest.approx(want_tangent, rel=1e-14)
        assert value == pytest.approx(want_value, rel=1e-14)
        tangents, value = srcad.autodiff(ForwardWithPrimal, s2s,
                                         BatchDuplicated(0.5, [4.0, -1.0]), 2.0,
                                         backend=backend)
        np.testing.assert_allclose(tangents, [want_tangent, -want_tangent / 4.0], rtol=1e-14)
        assert value == pytest.approx(want_value, rel=1e-14)
        tangent, value = srcad.autodiff(ForwardWithPrimal, pair,
                                        Duplicated(X, np.array([1.0, 2.0])), backend=backend)
        np.testing.assert_allclose(tangent, PAIR_J @ [1.0, 2.0], rtol=1e-14)
        np.testing.assert_allclose(value, [X[0] * X[1], X[0] + 3 * X[1]], rtol=1e-14)


# -- annotations given to the wrong entry point --------------------------------------------------
def test_operator_contexts_in_autodiff_are_refused_with_a_hint():
    for context in (Constant(2.0), srcad.Cache(np.zeros(2)), srcad.Output(np.zeros(2))):
        refused(lambda context=context: srcad.autodiff(Reverse, s2s, Active(0.5), context),
                "for the operators", "Const(")


def test_autodiff_annotations_in_operators_are_refused_with_a_hint():
    refused(lambda: srcad.gradient(s2s, Active(0.5), Constant(2.0)), "x bare")
    refused(lambda: srcad.jacobian(pair, Duplicated(X, np.zeros(2))), "x bare")


# -- check_grads modes= --------------------------------------------------------------------------
@pytest.mark.parametrize("modes", [("forward",), ("rev", "Vec"), (), "rev"])
def test_check_grads_refuses_modes_it_would_not_check(modes):
    """An unknown mode name used to leave that mode unchecked: ("forward",) compared finite
    differences with nothing and passed."""
    from srcad.testing import check_grads
    refused(lambda: check_grads(s2s, Active(0.5), 2.0, modes=modes), "modes=", "'fwd'")


def test_check_grads_takes_each_mode_alone():
    from srcad.testing import check_grads
    for mode in ("fwd", "rev", "vec"):
        check_grads(s2s, Active(0.5), 2.0, modes=(mode,))
        check_grads(s2s, Active(0.5), 2.0, modes=[mode])
