"""Scenario table for the operators (issue 4), in the manner of DifferentiationInterfaceTest.

Every scenario is a function with hand-written closed forms of its value, Jacobian (an
(output size, input size) matrix over C-ordered flattenings) and, for float-valued functions,
Hessian. Every operator that applies is checked against them in every applicable mode:

* preparation at a point x0, calls at x1, x2 and x1 again (a prep must not remember x0);
* x and Constant contexts unchanged afterwards; `out=` results are the very buffer passed;
* Cache and Output buffers are refilled with random garbage before every call (their prior
  content must never change a result);
* a one-shot call (no prep, no out) gives the same result.

Nothing here compares srcad with its own output.
"""

import math
import tracemalloc
from dataclasses import dataclass, field

import numpy as np
import pytest
from helpers.seed_problems import seed002, seed002_value_and_jacobian, square

import srcad
from srcad import Cache, Constant, Output
from srcad.transform import parallel_blocks
from srcad.transform.parallel_blocks import BLOCK_ELEMENTS

RTOL, ATOL = 1e-10, 1e-11
N = 20  # vector size: chunk 3 and 16 leave a partial last chunk, chunk 40 exceeds it
GARBAGE = np.random.default_rng(1234)


# -- the functions ------------------------------------------------------------------------------
def s2s(x, a):
    return a * x ** 3 + math.sin(x)


def s2v(x, t):
    y = np.zeros_like(t)
    for i in range(len(t)):
        y[i] = math.sin(t[i] * x) * x
    return y


def s2v_out(y, x, t):
    for i in range(len(t)):
        y[i] = math.sin(t[i] * x) * x


def v2s(x, a, b):
    s = 0.0
    for i in range(len(x)):
        for j in range(len(x)):
            s += x[i] ** a * x[j] ** b
    return s


def v2s_cache(c, x, w):
    """Float-valued, with scratch storage: c holds w * x^2, then a chained sum reads it."""
    for i in range(len(x)):
        c[i] = w[i] * x[i] * x[i]
    s = 0.0
    for i in range(len(c)):
        s += c[i] * x[len(x) - 1 - i]
    return s


def v2v(x):
    n = len(x)
    y = np.zeros_like(x)
    for i in range(n):
        y[i] = math.exp(x[i]) * x[n - 1 - i]
    return y


def v2v_out(y, x):
    n = len(x)
    for i in range(n):
        y[i] = math.exp(x[i]) * x[n - 1 - i]






def narrow(x, t):
    """Fewer outputs (3) than inputs: mode=None picks reverse above 8 inputs per output."""
    y = np.zeros_like(t)
    for i in range(len(x)):
        for k in range(len(t)):
            y[k] += t[k] * x[i] ** (k + 1.0)
    return y


def m2s(X, W):
    s = 0.0
    for i in range(len(X)):
        for j in range(len(W)):
            s += W[j, i] * X[i, j] ** 3
    return s


def m2m(X, W):
    """X is (p, q), W and the result are (q, p)."""
    Y = np.zeros_like(W)
    for i in range(len(X)):
        for j in range(len(W)):
            Y[j, i] = W[j, i] * X[i, j] ** 2 * X[i, len(W) - 1 - j]
    return Y


def m2m_out(Y, X, W):
    for i in range(len(X)):
        for j in range(len(W)):
            Y[j, i] = W[j, i] * X[i, j] ** 2 * X[i, len(W) - 1 - j]


# -- closed forms -------------------------------------------------------------------------------


def v2s_closed(x, a, b):
    """s = A B with A = sum x^a, B = sum x^b."""
    A, B = np.sum(x ** a), np.sum(x ** b)
    da, db = a * x ** (a - 1), b * x ** (b - 1)
    grad = da * B + db * A
    H = np.outer(da, db) + np.outer(db, da)
    H += np.diag(a * (a - 1) * x ** (a - 2) * B + b * (b - 1) * x ** (b - 2) * A)
    return A * B, grad.reshape(1, -1), H


def v2s_cache_closed(x, w):
    """s = sum_i w_i x_i^2 x_r(i), r(i) = n-1-i."""
    n = len(x)
    r = n - 1 - np.arange(n)
    value = np.sum(w * x ** 2 * x[r])
    grad = np.zeros(n)
    H = np.zeros((n, n))
    for i in range(n):
        j = r[i]
        grad[i] += 2 * w[i] * x[i] * x[j]
        grad[j] += w[i] * x[i] ** 2
        H[i, i] += 2 * w[i] * x[j]
        H[i, j] += 2 * w[i] * x[i]
        H[j, i] += 2 * w[i] * x[i]
    return value, grad.reshape(1, -1), H


def v2v_closed(x):
    n = len(x)
    y, J = np.zeros(n), np.zeros((n, n))
    for i in range(n):
        j = n - 1 - i
        y[i] = math.exp(x[i]) * x[j]
        J[i, i] += math.exp(x[i]) * x[j]
        J[i, j] += math.exp(x[i])
    return y, J


def m2m_closed(X, W):
    p, q = X.shape
    Y, J = np.zeros((q, p)), np.zeros((q * p, p * q))
    for i in range(p):
        for j in range(q):
            jj = q - 1 - j
            Y[j, i] = W[j, i] * X[i, j] ** 2 * X[i, jj]
            row = j * p + i
            J[row, i * q + j] += 2 * W[j, i] * X[i, j] * X[i, jj]
            J[row, i * q + jj] += W[j, i] * X[i, j] ** 2
    return Y, J


# -- the scenario table -------------------------------------------------------------------------
@dataclass
class Scenario:
    name: str
    f: object
    args: object           # x -> the call's arguments (contexts are persistent objects)
    points: tuple          # x0 (preparation), x1, x2
    closed: object         # x -> (value, jacobian (m, n), hessian (n, n) or None)
    out_shape: object      # None for a float-valued f
    constants: list = field(default_factory=list)
    scratch: list = field(default_factory=list)  # Cache and Output arrays: garbage before calls

    @property
    def x_shape(self):
        x = self.points[0]
        return None if isinstance(x, float) else x.shape

    @property
    def float_out(self):
        return self.out_shape is None

    @property
    def has_output(self):
        return any(isinstance(a, Output) for a in self.args(self.points[0]))


def _points(shape, lo=0.3, hi=1.2, seed=0):
    rng = np.random.default_rng(seed)
    if shape is None:
        return tuple(float(v) for v in rng.uniform(lo, hi, 3))
    return tuple(rng.uniform(lo, hi, shape) for _ in range(3))


def _scenarios():
    out = []
    a = 1.7
    out.append(Scenario(
        "s2s-const", s2s, lambda x: (x, Constant(a)), _points(None),
        lambda x: (a * x ** 3 + math.sin(x), np.array([[3 * a * x ** 2 + math.cos(x)]]),
                   np.array([[6 * a * x - math.sin(x)]])), None))

    t = np.linspace(0.5, 2.0, 5)

    def s2v_closed(x):
        y = np.sin(t * x) * x
        return y, (t * np.cos(t * x) * x + np.sin(t * x)).reshape(-1, 1), None

    out.append(Scenario("s2v-returned", s2v, lambda x: (x, Constant(t)), _points(None),
                        s2v_closed, (5,), constants=[t]))
    y5 = np.zeros(5)
    out.append(Scenario("s2v-Output", s2v_out, lambda x: (Output(y5), x, Constant(t)),
                        _points(None), s2v_closed, (5,), constants=[t], scratch=[y5]))

    out.append(Scenario("v2s-doubleloop", v2s, lambda x: (x, Constant(1.5), Constant(2.5)),
                        _points((N,)), lambda x: v2s_closed(x, 1.5, 2.5), None))
    w = np.linspace(-1.0, 2.0, N)
    cN = np.zeros(N)
    out.append(Scenario("v2s-Cache", v2s_cache, lambda x: (Cache(cN), x, Constant(w)),
                        _points((N,)), lambda x: v2s_cache_closed(x, w), None,
                        constants=[w], scratch=[cN]))

    out.append(Scenario("v2v-returned", v2v, lambda x: (x,), _points((N,), -1.0, 1.0),
                        lambda x: (*v2v_closed(x), None), (N,)))
    yN = np.zeros(N)
    out.append(Scenario("v2v-Output", v2v_out, lambda x: (Output(yN), x),
                        _points((N,), -1.0, 1.0), lambda x: (*v2v_closed(x), None), (N,),
                        scratch=[yN]))
    y2, c2 = np.zeros(N), np.zeros(N)
    out.append(Scenario("seed002-Output-Cache", seed002, lambda x: (Output(y2), x, Cache(c2)),
                        _points((N,), 0.0, 1.0),
                        lambda x: (*seed002_value_and_jacobian(x), None), (N,),
                        scratch=[y2, c2]))
    out.append(Scenario("seed000-square", square, lambda x: (x,), _points((N,), -1.0, 1.0),
                        lambda x: (x ** 2, np.diag(2 * x), None), (N,)))
    t3 = np.array([1.0, -2.0, 0.5])

    def narrow_closed(x):
        k = np.arange(3)
        y = np.array([t3[j] * np.sum(x ** (j + 1.0)) for j in k])
        J = np.array([t3[j] * (j + 1.0) * x ** j for j in k])
        return y, J, None

    out.append(Scenario("v2v-narrow", narrow, lambda x: (x, Constant(t3)), _points((N,)),
                        narrow_closed, (3,), constants=[t3]))

    W34 = np.linspace(0.5, 2.0, 12).reshape(3, 4)

    def m2s_closed(X):
        Wt = W34.T
        return (np.sum(Wt * X ** 3), (3 * Wt * X ** 2).reshape(1, -1),
                np.diag((6 * Wt * X).reshape(-1)))

    out.append(Scenario("m2s", m2s, lambda X: (X, Constant(W34)), _points((4, 3)), m2s_closed,
                        None, constants=[W34]))
    W43 = np.linspace(-1.0, 1.5, 12).reshape(4, 3)
    out.append(Scenario("m2m-returned", m2m, lambda X: (X, Constant(W43)), _points((3, 4)),
                        lambda X: (*m2m_closed(X, W43), None), (4, 3), constants=[W43]))
    Y43 = np.zeros((4, 3))
    out.append(Scenario("m2m-Output", m2m_out, lambda X: (Output(Y43), X, Constant(W43)),
                        _points((3, 4)), lambda X: (*m2m_closed(X, W43), None), (4, 3),
                        constants=[W43], scratch=[Y43]))
    return out


SCENARIOS = _scenarios()
FORWARD = [dict(mode="forward", chunk=c) for c in (1, 3, 16, 40)]
JACOBIAN_MODES = [{}, *FORWARD, dict(mode="reverse")]
GRADIENT_MODES = [{}, dict(mode="reverse"), *FORWARD]
HESSIAN_MODES = [{}, *(dict(chunk=c) for c in (1, 3, 16, 40))]


def _cases():
    cases = []
    for sc in SCENARIOS:
        scalar_x = sc.x_shape is None
        ops = []
        if scalar_x:
            ops.append(("derivative", {}))
        if sc.float_out:
            ops += [(op, m) for op in ("gradient", "value_and_gradient") for m in GRADIENT_MODES]
            if not sc.has_output:
                ops += [("hvp", {})] + [("hessian", m) for m in HESSIAN_MODES]
                if scalar_x:
                    ops.append(("second_derivative", {}))
        else:
            ops += [(op, m) for op in ("jacobian", "value_and_jacobian") for m in JACOBIAN_MODES]
        ops += [("pushforward", {}), ("pullback", {})]
        if not scalar_x and not sc.float_out:
            ops += [("pushforward", dict(batch=3)), ("pushforward", dict(batch=20))]
        for op, opts in ops:
            tag = ",".join(f"{k}={v}" for k, v in opts.items()) or "default"
            cases.append(pytest.param(sc, op, opts, id=f"{sc.name}-{op}-{tag}"))
    return cases


# -- running one case ---------------------------------------------------------------------------
def _tangents(sc, count):
    rng = np.random.default_rng(7)
    if sc.x_shape is None:
        return tuple(float(v) for v in rng.standard_normal(count))
    return tuple(rng.standard_normal(sc.x_shape) for _ in range(count))


def _cotangent(sc):
    rng = np.random.default_rng(8)
    return float(rng.standard_normal()) if sc.float_out else rng.standard_normal(sc.out_shape)


def _as_out(sc, flat):
    """A flat output-sized vector in the output's shape (a float for a float output)."""
    return float(flat[0]) if sc.float_out else flat.reshape(sc.out_shape)


def _as_x(sc, flat):
    return float(flat[0]) if sc.x_shape is None else flat.reshape(sc.x_shape)


def _flat(v):
    return np.reshape(np.asarray(v, dtype=float), -1)


def _expected(sc, op, x, opts, tangent, cotangent):
    value, J, H = sc.closed(x)
    if op == "derivative":
        return _as_out(sc, J[:, 0])
    if op in ("gradient", "pullback"):
        u = np.ones(1) if op == "gradient" else _flat(cotangent)
        return _as_x(sc, u @ J)
    if op == "value_and_gradient":
        return (value, _as_x(sc, J[0]))
    if op == "jacobian":
        return J
    if op == "value_and_jacobian":
        return (value, J)
    if op == "pushforward":
        results = tuple(_as_out(sc, J @ _flat(t)) for t in tangent)
        return results if "batch" in opts else results[0]
    if op == "hvp":
        return _as_x(sc, H @ _flat(tangent[0]))
    if op == "hessian":  # of a float x: a float, as JAX's
        return float(H[0, 0]) if sc.x_shape is None else H
    if op == "second_derivative":
        return float(H[0, 0])
    raise AssertionError(op)


def _out_buffer(sc, op, opts):
    """A buffer for out= filled with garbage, or None where the result is a float."""
    n = 1 if sc.x_shape is None else int(np.prod(sc.x_shape))
    m = 1 if sc.float_out else int(np.prod(sc.out_shape))
    if op in ("jacobian", "value_and_jacobian"):
        shape = (m, n)
    elif op == "hessian":  # the Hessian of a float x is a float, as in JAX
        shape = None if sc.x_shape is None else (n, n)
    elif op in ("gradient", "value_and_gradient", "pullback", "hvp"):
        shape = sc.x_shape
    elif op in ("pushforward", "derivative"):
        shape = sc.out_shape
    else:
        shape = None
    if shape is None:
        return None
    if op == "pushforward" and "batch" in opts:
        return tuple(np.full(shape, 13.0) for _ in range(opts["batch"]))
    return np.full(shape, 13.0)


def _call(sc, op, opts, x, prep, out, tangent, cotangent):
    fn = getattr(srcad, op)
    kwargs = {k: v for k, v in opts.items() if k in ("mode", "chunk")}
    if op in ("pushforward", "hvp"):
        kwargs["tangent"] = tangent if "batch" in opts else tangent[0]
    if op == "pullback":
        kwargs["cotangent"] = cotangent
    if prep is not None:
        kwargs["prep"] = prep
    if out is not None:
        kwargs["out"] = out
    for buf in sc.scratch:  # Cache and Output: their content on entry must not matter
        buf[...] = GARBAGE.uniform(-5.0, 5.0, buf.shape)
    return fn(sc.f, *sc.args(x), **kwargs)


def _prepare(sc, op, opts, x, tangent, cotangent):
    # value_and_X shares X's preparation (DifferentiationInterface does the same)
    fn = getattr(srcad, "prepare_" + op.replace("value_and_", ""))
    kwargs = {k: v for k, v in opts.items() if k in ("mode", "chunk")}
    if op in ("pushforward", "hvp"):
        kwargs["tangent"] = tangent if "batch" in opts else tangent[0]
    if op == "pullback":
        kwargs["cotangent"] = cotangent
    return fn(sc.f, *sc.args(x), **kwargs)


def _check_equal(got, want, what):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for g, w in zip(got, want):
            _check_equal(g, w, what)
        return
    if isinstance(want, float):
        assert isinstance(got, (float, np.floating)), f"{what}: expected a float, got {got!r}"
    else:
        assert np.shape(got) == np.shape(want), f"{what}: shape {np.shape(got)} != " \
                                                f"{np.shape(want)}"
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=what)


def _check_is_out(got, out, op):
    if out is None:
        return
    result = got[1] if op.startswith("value_and") else got
    if isinstance(out, tuple):
        assert all(r is o for r, o in zip(result, out)), "out= buffers not returned"
    else:
        assert result is out, "out= buffer not returned"


@pytest.mark.parametrize("sc, op, opts", _cases())
def test_operator(sc, op, opts):
    x0, x1, x2 = sc.points
    tangent = _tangents(sc, opts.get("batch", 1))
    cotangent = _cotangent(sc)
    prep = _prepare(sc, op, opts, x0, tangent, cotangent)
    out = _out_buffer(sc, op, opts)
    constants_before = [c.copy() for c in sc.constants]
    for x in (x1, x2, x1):
        x_before = np.copy(x)
        want = _expected(sc, op, x, opts, tangent, cotangent)
        got = _call(sc, op, opts, x, prep, out, tangent, cotangent)
        _check_equal(got, want, f"{op} at a prepared call")
        _check_is_out(got, out, op)
        np.testing.assert_array_equal(x, x_before, err_msg="x was modified")
        for c, before in zip(sc.constants, constants_before):
            np.testing.assert_array_equal(c, before, err_msg="a Constant was modified")
        if sc.has_output and op not in ("pullback",):  # the primal ran: y holds f(x)
            output = next(a.value for a in sc.args(x) if isinstance(a, Output))
            np.testing.assert_allclose(output, sc.closed(x)[0], rtol=RTOL, atol=ATOL,
                                       err_msg="Output does not hold f(x)")
    # one-shot: no prep, no out
    got = _call(sc, op, opts, x2, None, None, tangent, cotangent)
    _check_equal(got, _expected(sc, op, x2, opts, tangent, cotangent), f"{op} unprepared")


def test_cases_cover_every_operator():
    ops = {p.values[1] for p in _cases()}
    assert ops == {"derivative", "gradient", "value_and_gradient", "jacobian",
                   "value_and_jacobian", "pushforward", "pullback", "hvp", "hessian",
                   "second_derivative"}


@pytest.mark.parametrize("op", ["value_and_gradient", "value_and_jacobian"])
def test_every_operator_has_a_prepare_twin(op):
    """Issue 4: each operator has a `prepare_<operator>` twin."""
    assert hasattr(srcad, "prepare_" + op)


# -- mode and chunk choices ---------------------------------------------------------------------
def test_default_modes_and_chunks():
    """mode=None: forward while len(x) <= 8 len(y) (python, code written element by element:
    srcad/operators/jacobian_mode.py), else reverse; gradient: reverse.
    chunk=None (python backend): all lanes in one call (unrolled up to 16, stacked above)."""
    x = np.random.default_rng(0).random(N)
    y, c = np.zeros(N), np.zeros(N)
    prep = srcad.prepare_jacobian(seed002, Output(y), x, Cache(c))
    assert (prep.mode, prep.chunk, prep.engine.stacked) == ("forward", N, N > 16)
    prep = srcad.prepare_jacobian(square, np.ones(5))
    assert (prep.mode, prep.chunk) == ("forward", 5)
    prep = srcad.prepare_jacobian(narrow, x, Constant(np.ones(3)))
    assert prep.mode == "forward"  # 20 inputs, 3 outputs: below 8 inputs per output
    prep = srcad.prepare_jacobian(narrow, np.ones(25), Constant(np.ones(3)))
    assert prep.mode == "reverse"  # above
    prep = srcad.prepare_gradient(v2s, x, Constant(1.5), Constant(2.5))
    assert prep.mode == "reverse"
    prep = srcad.prepare_jacobian(seed002, Output(y), x, Cache(c), mode="reverse")
    assert prep.mode == "reverse"
    prep = srcad.prepare_jacobian(seed002, Output(y), x, Cache(c), chunk=3)
    assert (prep.mode, prep.chunk) == ("forward", 3)


def test_jacobian_chunk_40_with_remainder():
    """n = 50 > 40: two stacked chunks, the second partial."""
    x = np.random.default_rng(3).uniform(0.0, 1.0, 50)
    y, c, J = np.zeros(50), np.zeros(50), np.zeros((50, 50))
    prep = srcad.prepare_jacobian(seed002, Output(y), x + 0.1, Cache(c), mode="forward",
                                  chunk=40)
    for _ in range(2):
        c[...] = GARBAGE.uniform(-5, 5, 50)
        assert srcad.jacobian(seed002, Output(y), x, Cache(c), prep=prep, out=J) is J
        np.testing.assert_allclose(J, seed002_value_and_jacobian(x)[1], rtol=RTOL, atol=ATOL)


def test_pushforward_batch_out_tuple_and_float_input():
    t = np.linspace(0.5, 2.0, 5)
    tangents = (1.0, -2.0, 0.5)
    res = srcad.pushforward(s2v, 0.7, Constant(t), tangent=tangents)
    d = t * np.cos(t * 0.7) * 0.7 + np.sin(t * 0.7)
    assert isinstance(res, tuple) and len(res) == 3
    for r, v in zip(res, tangents):
        np.testing.assert_allclose(r, v * d, rtol=RTOL)


# -- preparation mismatches ---------------------------------------------------------------------
def v2v_other(x):
    n = len(x)
    y = np.zeros_like(x)
    for i in range(n):
        y[i] = math.exp(x[i]) * x[n - 1 - i]
    return y


def _mismatch(call):
    with pytest.raises(srcad.PreparationMismatchError) as err:
        call()
    return str(err.value)


def test_mismatch_other_function():
    x = np.linspace(0.1, 1.0, 6)
    prep = srcad.prepare_jacobian(v2v, x)
    msg = _mismatch(lambda: srcad.jacobian(v2v_other, x, prep=prep))
    assert "v2v" in msg


def test_mismatch_other_operator():
    x = np.linspace(0.1, 1.0, 6)
    prep = srcad.prepare_gradient(v2s, x, Constant(1.5), Constant(2.5))
    msg = _mismatch(lambda: srcad.hvp(v2s, x, Constant(1.5), Constant(2.5), tangent=x,
                                      prep=prep))
    assert "gradient" in msg


@pytest.mark.parametrize("op", ["jacobian", "pushforward", "pullback"])
def test_mismatch_shape_names_argument(op):
    n = 6
    x, y, c = np.linspace(0.1, 1.0, n), np.zeros(n), np.zeros(n)
    kw = {"pushforward": dict(tangent=x), "pullback": dict(cotangent=y)}.get(op, {})
    prep = getattr(srcad, "prepare_" + op)(seed002, Output(y), x, Cache(c), **kw)
    # x has another shape: argument 1
    x7 = np.linspace(0.1, 1.0, n + 1)
    kw7 = {"pushforward": dict(tangent=x7), "pullback": dict(cotangent=y)}.get(op, {})
    msg = _mismatch(lambda: getattr(srcad, op)(seed002, Output(y), x7, Cache(c), prep=prep,
                                               **kw7))
    assert "argument 1" in msg and "(7,)" in msg
    # the Cache has another shape: argument 2
    msg = _mismatch(lambda: getattr(srcad, op)(seed002, Output(y), x, Cache(np.zeros(n + 1)),
                                               prep=prep, **kw))
    assert "argument 2" in msg and "(7,)" in msg


def _bad_rows(msg):
    """The rows of the message that name a mismatched argument."""
    rows = [line.split(" (call prepare_")[0] for line in msg.splitlines()]
    return [row for row in rows if row.strip().startswith("argument")
            and not row.rstrip().endswith(": matches")]


def test_mismatch_dtype_names_argument():
    n = 6
    x, y, c = np.linspace(0.1, 1.0, n), np.zeros(n), np.zeros(n)
    prep = srcad.prepare_jacobian(seed002, Output(y), x, Cache(c))
    msg = _mismatch(lambda: srcad.jacobian(seed002, Output(y), x.astype(np.float32), Cache(c),
                                           prep=prep))
    rows = _bad_rows(msg)
    assert len(rows) == 1 and "argument 1" in rows[0], msg


def test_mismatch_kind_names_argument():
    n = 6
    x, y, c = np.linspace(0.1, 1.0, n), np.zeros(n), np.zeros(n)
    prep = srcad.prepare_jacobian(seed002, Output(y), x, Cache(c))
    msg = _mismatch(lambda: srcad.jacobian(seed002, Output(y), x, Constant(c), prep=prep))
    rows = _bad_rows(msg)
    assert len(rows) == 1 and "argument 2" in rows[0] and "cache" in rows[0], msg
    # a float input where an array was prepared (and the other way round)
    prep = srcad.prepare_gradient(s2s, 0.5, Constant(1.0))
    msg = _mismatch(lambda: srcad.gradient(s2s, np.float32(0.5), Constant(1.0), prep=prep))
    assert "argument 0" in _bad_rows(msg)[0], msg


@pytest.mark.parametrize("op", ["derivative", "second_derivative", "hvp", "hessian",
                                "gradient", "value_and_gradient"])
def test_mismatch_every_operator(op):
    if op in ("derivative", "second_derivative"):
        args, other = (0.5, Constant(1.0)), (0.5, Constant(np.ones(2)))
    else:
        args, other = (np.ones(4), Constant(1.5), Constant(2.5)), (np.ones(5), Constant(1.5),
                                                                   Constant(2.5))
    f = s2s if op in ("derivative", "second_derivative") else v2s
    kw = dict(tangent=np.ones(4)) if op == "hvp" else {}
    prep_op = op.replace("value_and_", "")
    prep = getattr(srcad, "prepare_" + prep_op)(f, *args, **kw)
    msg = _mismatch(lambda: getattr(srcad, op)(f, *other, prep=prep, **kw))
    rows = _bad_rows(msg)
    assert len(rows) == 1 and rows[0].strip().startswith(
        "argument 1" if op in ("derivative", "second_derivative") else "argument 0"), msg


# -- allocation: a prepared in-place call allocates nothing proportional to n -------------------
def chain(x, w):
    s = 0.0
    p = 1.0
    for i in range(len(x)):
        p = p * math.cos(x[i]) + w[i]
        s += p * p
    return s


def _peak(op, *args, **kwargs):
    """Peak traced memory (bytes) of the second of two identical calls."""
    op(*args, **kwargs)  # warm-up
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        op(*args, **kwargs)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


BOUND = 16 * 1024  # bytes; measured peaks are 3-8 KB whatever n (n*n*8 = 320 KB at n=200)


def _inplace_jacobian_peaks(chunk, sizes=(300, 600)):
    """Peaks of seed 002's prepared in-place jacobian for n beyond a lifted loop's block
    (256 iterations): its independent loops run a block at a time
    (srcad/transform/parallel_blocks.py)."""
    peaks = {}
    for n in sizes:
        x = np.random.default_rng(n).random(n)
        y, c, J = np.zeros(n), np.zeros(n), np.zeros((n, n))
        prep = srcad.prepare_jacobian(seed002, Output(y), x, Cache(c), chunk=chunk)
        peaks[n] = _peak(srcad.jacobian, seed002, Output(y), x, Cache(c), prep=prep, out=J)
        np.testing.assert_allclose(J, seed002_value_and_jacobian(x)[1], rtol=RTOL, atol=ATOL)
    return peaks


@pytest.fixture
def blocks_of_32(monkeypatch):
    """Lifted loops a block of 32 iterations at most: n = 100 and 200 are beyond a block
    (traced calls of 16 unrolled lanes take minutes at n = 300). Compiled code is made again
    before and after (the block size is written into it)."""
    monkeypatch.setattr(parallel_blocks, "BLOCK", 32)
    srcad.build.cache.clear()
    yield
    srcad.build.cache.clear()


@pytest.mark.slow
def test_prepared_inplace_jacobian_allocates_nothing_proportional(blocks_of_32):
    """Seed 002, 16 unrolled lanes: the lifted loops hold a block's values, 17 of at most 32
    floats (measured 6.8 KB for n = 100 and 200; 42 KB for n >= 256 with blocks of 256;
    1.8 KB with loops); J alone is n*n*8 bytes."""
    peaks = _inplace_jacobian_peaks(16, (100, 200))
    assert max(peaks.values()) < BOUND, peaks
    assert abs(peaks[200] - peaks[100]) < 2048, peaks


@pytest.mark.slow
def test_prepared_inplace_jacobian_default_allocates_a_few_rows():
    """The default, stacked lanes min(n, 256) wide: a lifted block holds at most
    BLOCK_ELEMENTS lane-iteration pairs a value (seed 002's hold two such values: measured
    130-145 KB for n = 300, 600), the loops a few rows of n floats; never J's n rows."""
    peaks = _inplace_jacobian_peaks(None)
    for n, peak in peaks.items():
        assert peak < 3 * 8 * BLOCK_ELEMENTS + 4 * n * 8 + 2048, peaks
    assert abs(peaks[600] - peaks[300]) < 4 * 600 * 8, peaks  # rows of the loops


@pytest.mark.slow
@pytest.mark.parametrize("chunk", [16, 40])
def test_prepared_inplace_gradient_forward_allocates_nothing_proportional(chunk):
    """A fixed chunk: peaks ~3.7 KB (16 unrolled lanes) and ~6.7 KB (40 stacked lanes) for
    every n. (With chunk=None the chunk is min(n, 256) and stacked lanes make NumPy temporaries
    of that width: bounded, but growing with n up to 256.)"""
    peaks = {}
    for n in (100, 400):
        x, w, g = np.random.default_rng(n).random(n), np.linspace(0, 1, n), np.zeros(n)
        prep = srcad.prepare_gradient(chain, x, Constant(w), mode="forward", chunk=chunk)
        peaks[n] = _peak(srcad.gradient, chain, x, Constant(w), prep=prep, out=g)
    assert max(peaks.values()) < BOUND, peaks
    assert abs(peaks[400] - peaks[100]) < 2048, peaks


@pytest.mark.slow
def test_prepared_inplace_gradient_reverse_without_tape_allocates_nothing_proportional():
    """Reverse mode allocates its tape, a Python list proportional to the number of overwritten
    values (seed 002 and `chain` need one: 17 KB at n = 400 for `chain`, 27 KB for the
    reverse-mode seed-002 jacobian); a function without a tape allocates nothing proportional
    to n."""
    peaks = {}
    for n in (100, 400):
        x, g = np.random.default_rng(n).random(n), np.zeros(n)
        prep = srcad.prepare_gradient(v2s, x, Constant(1.5), Constant(2.5))
        peaks[n] = _peak(srcad.gradient, v2s, x, Constant(1.5), Constant(2.5), prep=prep,
                         out=g)
    assert max(peaks.values()) < BOUND, peaks
    assert abs(peaks[400] - peaks[100]) < 2048, peaks
