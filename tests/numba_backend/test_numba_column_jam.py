"""numba: a triangle's columns added into a work vector run four at a time, each element
taking the columns' terms in the order written (srcad/transform/numba_column_jam.py): the
results are bit-identical to Python's, the derivatives agree with central differences in
forward and reverse mode, and a nest where jamming could change a value is left as written."""

import inspect
import math

import gast
import numpy as np
import pytest
from helpers.numba_primal import numba_primal as _primal

import srcad
from srcad import api
from srcad.analysis.value_types import Array
from srcad.build.codegen import to_source
from srcad.testing import check_grads
from srcad.transform.numba_column_jam import jam_columns


def _qtimesx(ltri, x):
    # gmm's Qtimesx: the strictly lower triangle packed by columns, a counter into it
    d = len(x)
    out = np.zeros(d)
    for i in range(d):
        out[i] = 0.5 * x[i]
    idx = 0
    for i in range(d):
        for j in range(i + 1, d):
            out[j] = out[j] + ltri[idx] * x[i]
            idx += 1
    total = 0.0
    for j in range(d):
        total = total + out[j] * out[j]
    return total + 0.001 * idx


def _upper_from(x, a):
    # the rows from the column itself on, a term without a counter, the columns from a
    d = len(x)
    out = np.zeros(d)
    for i in range(a, d):
        for j in range(i, d):
            out[j] += math.sin(x[i] * x[j]) * x[i]
    return out[d - 1] + 0.5 * out[d // 2] + out[0]


def _scaled(w, ltri, x):
    # the triangle of constants only, scaled by an active w: the nest is primal code in the
    # derivative code too
    return w * w * _qtimesx(ltri, x)


def _solve(lower, b):
    # forward substitution reads out[i], which the earlier columns wrote: not jammed
    d = len(b)
    out = np.zeros(d)
    for i in range(d):
        out[i] = b[i]
    idx = 0
    for i in range(d):
        for j in range(i + 1, d):
            out[j] = out[j] - lower[idx] * out[i]
            idx += 1
    return out[d - 1]


def _into_argument(ltri, x, out):
    # the work vector is an argument, which another argument may share memory with
    idx = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            out[j] = out[j] + ltri[idx] * x[i]
            idx += 1
    return out[len(x) - 1]


def _compiled_source(f, mode, *args):
    """The module numba compiles for `f` (what `srcad.source` shows is before this rewrite)."""
    call = api._arguments(f, mode, args, None, "numba")
    compiled = api._compiled(f, call.request(mode, "numba"))
    return inspect.getsource(compiled.function.py_func)


# (short arguments get code of their length: 2 and the rest, two compilations; 2: no whole
# group of four columns, 8: the last group's last column has no rows)
@pytest.mark.parametrize("d", [2, 5, 8, 9, 13])
def test_a_packed_triangle_product_is_bit_identical(d):
    rng = np.random.default_rng(d)
    ltri, x = rng.normal(size=d * (d - 1) // 2), rng.normal(size=d)
    assert _primal(_qtimesx, ltri, x) == _qtimesx(ltri, x)


def test_the_compiled_nest_runs_four_columns_at_a_time():
    ltri, x = np.linspace(0.1, 1.0, 28), np.linspace(-1.0, 1.0, 8)
    code = _compiled_source(_qtimesx, srcad.ForwardWithPrimal, srcad.Const(ltri),
                            srcad.Const(x))
    assert "4 columns of i at a time" in code
    assert "i_block" not in srcad.source(_qtimesx, srcad.ForwardWithPrimal, srcad.Const(ltri),
                                         srcad.Const(x), backend="numba")


@pytest.mark.parametrize("a", [0, 1, 2, 5, 7])
def test_rows_from_the_column_on_and_columns_from_a_start(a):
    x = np.linspace(-1.5, 2.0, 7)
    code = _compiled_source(_upper_from, srcad.ForwardWithPrimal, srcad.Const(x),
                            srcad.Const(a))
    assert "i_block" in code
    assert _primal(_upper_from, x, a) == _upper_from(x, a)


@pytest.mark.slow  # a forward and a reverse compilation
def test_derivatives_of_code_around_a_jammed_nest():
    ltri, x = np.linspace(-0.7, 0.9, 15), np.linspace(-1.0, 1.2, 6)
    for mode, w in ((srcad.Forward, srcad.Duplicated(1.3, 1.0)),
                    (srcad.Reverse, srcad.Active(1.3))):
        assert "i_block" in _compiled_source(_scaled, mode, w, srcad.Const(ltri),
                                             srcad.Const(x))
    check_grads(_scaled, srcad.Active(1.3), ltri, x, modes=("fwd", "rev"), backend="numba")
    (dw,) = srcad.autodiff(srcad.Reverse, _scaled, srcad.Active(1.3), ltri, x,
                           backend="numba")[:1]
    assert dw == pytest.approx(2 * 1.3 * _qtimesx(ltri, x), rel=1e-15)


@pytest.mark.slow  # a reverse compilation
def test_the_active_triangle_keeps_its_gradient():
    # differentiated with respect to the triangle and x: the reverse sweep's forward nest
    # runs jammed, the gradient agrees with central differences
    ltri, x = np.linspace(-0.7, 0.9, 21), np.linspace(-1.0, 1.2, 7)
    args = (srcad.Duplicated(ltri, np.zeros_like(ltri)), srcad.Duplicated(x, np.zeros_like(x)))
    assert "i_block" in _compiled_source(_qtimesx, srcad.Reverse, *args)
    check_grads(_qtimesx, *args, modes=("rev",), backend="numba")


def test_a_nest_reading_its_own_work_vector_is_left_as_written():
    lower, b = np.linspace(0.1, 0.9, 10), np.linspace(1.0, 2.0, 5)
    code = _compiled_source(_solve, srcad.ForwardWithPrimal, srcad.Const(lower),
                            srcad.Const(b))
    assert "i_block" not in code
    assert _primal(_solve, lower, b) == _solve(lower, b)


def test_a_work_vector_given_as_an_argument_is_left_as_written():
    ltri, x = np.linspace(0.1, 0.9, 10), np.linspace(1.0, 2.0, 5)
    code = _compiled_source(_into_argument, srcad.ForwardWithPrimal, srcad.Const(ltri),
                            srcad.Const(x), srcad.Const(np.zeros(5)))
    assert "i_block" not in code


def _jammed(source):
    return "i_block" in to_source(jam_columns(gast.parse(source)))


NEST = ("def f(l, x, d):\n"
        "    out = np.zeros(d)\n"
        "{before}"
        "    k = 0\n"
        "    for i in range(d):\n"
        "        for j in range({start}, d):\n"
        "            out[j] = out[j] + {term}\n"
        "            k += 1\n"
        "{after}"
        "    return out[0]\n")


@pytest.mark.parametrize("before, start, term, after", [
    ("", "i + 1", "l[k] * x[i]", ""),  # the nest itself
    ("", "i - 1", "l[k] * x[i]", ""),  # a row before the column
    ("", "j", "l[k] * x[i]", ""),  # not a start of the column's
    ("", "i + 1", "l[k] * out[i]", ""),  # reads the work vector
    ("", "i + 1", "l[k] * f(x[i])", ""),  # a call of unknown effect
    ("    v = out\n", "i + 1", "l[k] * x[i]", ""),  # another name for the work vector
    ("    u = out[1:]\n", "i + 1", "l[k] * x[i]", ""),  # a view of it
    ("", "i + 1", "l[k] * x[i]", "    s = i + j\n"),  # the counters read after
])
def test_only_nests_whose_values_cannot_change_are_jammed(before, start, term, after):
    source = NEST.format(before=before, start=start, term=term, after=after)
    expected = (before, start, term, after) == ("", "i + 1", "l[k] * x[i]", "")
    assert _jammed(source) is expected


RECORDED = ("def f(l, x, d, tape):\n"
            "    out = np.zeros(d)\n"
            "    k = 0\n"
            "    tape_size = 0\n"
            "    for i in range(d):\n"
            "        for j in range(i + 1, d):\n"
            "            out[j] = out[j] + l[k] * x[i]\n"
            "            k += 1\n"
            "        tape[tape_size] = {record}\n"
            "        tape_size += 1\n"
            "    return out, k, tape_size\n")


@pytest.mark.parametrize("record, jammed", [
    ("x[i] * 2.0", True),  # what the reverse sweep reads back: the records follow the rows
    ("out[i]", False),  # the work vector, which later columns change
    ("l[k]", False),  # the counter
])
def test_records_after_the_rows_run_after_the_groups_rows(record, jammed):
    source = RECORDED.format(record=record)
    tree = jam_columns(gast.parse(source), counters=frozenset({"tape_size"}))
    code = to_source(tree)
    assert ("i_block" in code) is jammed
    namespace, original = {"np": np}, {"np": np}
    exec(code, namespace)
    exec(source, original)
    rng = np.random.default_rng(3)
    for d in range(10):
        ltri, x = rng.normal(size=d * d), rng.normal(size=d)
        got_tape, want_tape = np.zeros(d), np.zeros(d)
        got = namespace["f"](ltri, x, d, got_tape)
        want = original["f"](ltri, x, d, want_tape)
        assert np.array_equal(got[0], want[0]) and got[1:] == want[1:]
        assert np.array_equal(got_tape, want_tape)


def test_records_indexed_by_other_counters_are_not_tape_records():
    # `tape_size` not one of srcad's tape counters: `tape` may be any array, left as written
    source = RECORDED.format(record="x[i]")
    assert "i_block" not in to_source(jam_columns(gast.parse(source)))


def test_a_work_array_of_two_dimensions_is_left_as_written():
    # `np.zeros(shape)` of a tuple makes rows, which other names may view
    source = NEST.format(before="", start="i + 1", term="l[k] * x[i]", after="")
    for ndim, jammed in ((1, True), (2, False)):
        tree = jam_columns(gast.parse(source), env={"out": Array(ndim=ndim)})
        assert ("i_block" in to_source(tree)) is jammed
