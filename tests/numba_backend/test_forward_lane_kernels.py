"""Forward mode over nested gradients on numba, made for the lengths of short arrays: the
unrolled lanes' shadows of a short array parameter (`q_dot_0`, ...) and the tangent of a
float parameter (`w_dot`) are operands of known length, so the nested kernels they are passed
to are made for them (srcad/operators/nested_number_kernels.py), also where g's derivative
code tapes values without a loop (srcad/operators/nested_straight_tapes.py), returning
tuples of numbers where the caller reads their elements alone
(srcad/transform/small_kernel_tuples.py); and a prepared forward gradient runs whole in one
generated frame (srcad/build/forward_gradient_plan.py).
Answers against central differences and reverse mode."""

import math
import re

import gast
import numpy as np
import pytest

import srcad
from srcad.build.codegen import to_source
from srcad.operators.nested_straight_tapes import untaped


def potential(p, q):
    """sqrt and a division: g's second-order code tapes a value (no loop)."""
    return 1.0 / math.sqrt((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 + 1.0) + q[0] * p[1]


def descent(q, start):
    x = start.copy()
    for _k in range(3):
        x = x - 0.1 * srcad.grad(potential)(x, q)
    return x[0] * q[1] + x[1] * x[1]


def potential_gradient(p, q):
    r = (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 + 1.0
    g = np.zeros_like(p)  # p's other elements: no part in the potential
    g[0], g[1] = -(p[0] - q[0]) * r ** -1.5, -(p[1] - q[1]) * r ** -1.5 + q[0]
    return g


def by_hand(q, start):
    """descent with potential's gradient in p written out (the reference primal)."""
    x = start.copy()
    for _k in range(3):
        x = x - 0.1 * potential_gradient(x, q)
    return x[0] * q[1] + x[1] * x[1]


def central(f, q, h=1e-6):
    return np.array([(f(q + h * e) - f(q - h * e)) / (2 * h) for e in np.eye(q.size)])


def charged(w, start):
    """A float parameter w: the nested kernel's operands are a short array and a number."""
    x = start.copy()
    for _k in range(3):
        x = x - 0.1 * srcad.grad(potential_of_w)(x, w)
    return x[0] * x[0] + w * x[1]


def potential_of_w(p, w):
    return 1.0 / math.sqrt((p[0] - 1.0) ** 2 + (p[1] - w) ** 2 + 0.5)


def charged_by_hand(w, start):
    x = start.copy()
    for _k in range(3):
        r = (x[0] - 1.0) ** 2 + (x[1] - w) ** 2 + 0.5
        x = x - 0.1 * np.array([-(x[0] - 1.0) * r ** -1.5, -(x[1] - w) * r ** -1.5])
    return x[0] * x[0] + w * x[1]


def _kernels(source):
    return set(re.findall(r"(srcad_nested_\w+)\s*\(\s*srcad_space", source))


def test_unrolled_lanes_call_the_kernels_made_for_their_lengths():
    """2 unrolled lanes over a 2-element q: every nested kernel is made for lengths; over 5
    elements (longer than the code is specialized for) the general kernels."""
    for n, made in ((2, True), (5, False)):
        q, start = np.linspace(0.3, 0.9, n), np.linspace(1.0, 0.4, n)
        source = srcad.source(descent, srcad.Forward,
                              srcad.BatchDuplicated(q, np.eye(n)[:2]), srcad.Const(start),
                              backend="numba", batch="unrolled")
        kernels = _kernels(source)
        assert kernels and all(("_len_" in k) is made for k in kernels), kernels
        # their arrays' elements read alone: the variants returning tuples of numbers
        assert all(k.endswith("_numbers") is made for k in kernels), kernels


def test_the_tangent_of_a_float_is_a_number_operand_of_a_taped_kernel():
    source = srcad.source(charged, srcad.Forward, srcad.Duplicated(0.4, 1.0),
                          srcad.Const(np.array([0.2, 0.9])), backend="numba")
    kernels = _kernels(source)
    assert kernels and all(k.endswith("_len_2_s_2_s_numbers") for k in kernels), kernels


def test_straight_line_tapes_become_locals_and_others_are_kept():
    taped = gast.parse("def g(x, tape):\n    tape_size = 0\n    tape_length = tape.shape[0]\n"
                       "    tape[tape_size] = x\n    tape_size += 1\n"
                       "    tape[tape_size] = 2.0 * x\n    tape_size += 1\n"
                       "    tape_size -= 1\n    b = tape[tape_size]\n"
                       "    tape_size -= 1\n    a = tape[tape_size]\n"
                       "    return a + b, None\n").body[0]
    body = to_source(untaped(taped))
    namespace = {}
    exec(body, namespace)
    assert namespace["g"](3.0, None) == (9.0, None)  # a = x, b = 2 x: the stack order kept
    assert "tape[" not in body and "tape_size" not in body
    in_branch = gast.parse("def g(x, tape):\n    tape_size = 0\n    if x > 0:\n"
                           "        tape[tape_size] = x\n        tape_size += 1\n"
                           "    return x, None\n").body[0]
    looped = gast.parse("def g(x, tape):\n    tape_size = 0\n    for i in range(3):\n"
                        "        x = x * x\n    return x, None\n").body[0]
    assert untaped(in_branch) is None and untaped(looped) is None


def weighted_squares(q, start):
    return np.sum(q * q * start) + q[0] * q[-1]


def test_a_prepared_forward_gradient_runs_whole_and_falls_back():
    """python backend (no compile): the preparation's whole call answers as the checked
    path, a new array each call; `out=` takes the checked path; the preparation refuses
    an x of another shape."""
    q, start = np.array([0.3, 0.8]), np.array([1.0, 0.4])
    prep = srcad.prepare_gradient(weighted_squares, q, srcad.Constant(start), mode="forward")
    assert prep.run is not None
    want = central(lambda q: weighted_squares(q, start), q)
    for _ in range(2):
        got = srcad.gradient(weighted_squares, q, srcad.Constant(start), prep=prep)
        np.testing.assert_allclose(got, want, rtol=1e-6)
    got[0] = 7.0  # a new array each call: the next call's answer is its own
    np.testing.assert_allclose(srcad.gradient(weighted_squares, q, srcad.Constant(start),
                                              prep=prep), want, rtol=1e-6)
    out = np.zeros(2)
    srcad.gradient(weighted_squares, q, srcad.Constant(start), prep=prep, out=out)
    np.testing.assert_allclose(out, want, rtol=1e-6)
    longer, start3 = np.linspace(0.3, 0.9, 3), np.linspace(1.0, 0.4, 3)
    with pytest.raises(srcad.PreparationMismatchError):
        srcad.gradient(weighted_squares, longer, srcad.Constant(start3), prep=prep)
    for x, s in ((longer, start3), (q, start)):  # kept preparations: one for each shape
        np.testing.assert_allclose(
            srcad.gradient(weighted_squares, x, srcad.Constant(s), mode="forward"),
            central(lambda x, s=s: weighted_squares(x, s), x), rtol=1e-6)


@pytest.mark.slow  # numba compiles descent and charged in both modes (~20 s)
def test_forward_over_nested_kernels_made_for_lengths_answers_as_central_differences():
    """srcad.gradient in forward mode (its whole-call plan, then a length change: the
    general code), autodiff with BatchDuplicated lanes and with a Duplicated float, each
    against central differences and reverse mode."""
    for n in (2, 5, 2):
        q, start = np.linspace(0.3, 0.9, n), np.linspace(1.0, 0.4, n)
        want = central(lambda q, start=start: by_hand(q, start), q)
        for _ in range(2):  # the second call runs the kept preparation whole
            forward = srcad.gradient(descent, q, srcad.Constant(start), mode="forward",
                                     backend="numba")
            np.testing.assert_allclose(forward, want, rtol=1e-6, atol=1e-9)
        reverse = srcad.gradient(descent, q, srcad.Constant(start), mode="reverse",
                                 backend="numba")
        np.testing.assert_allclose(forward, reverse, rtol=1e-12, atol=1e-14)
        lanes = np.array([np.linspace(-1.0, 0.5, n), np.linspace(0.2, 0.7, n)])
        tangents = srcad.autodiff(srcad.Forward, descent,
                                     srcad.BatchDuplicated(q, lanes), srcad.Const(start),
                                     backend="numba", batch="unrolled")
        np.testing.assert_allclose(tangents, lanes @ want, rtol=1e-6, atol=1e-9)
    start = np.array([0.2, 0.9])
    h = 1e-6
    want = (charged_by_hand(0.4 + h, start) - charged_by_hand(0.4 - h, start)) / (2 * h)
    forward = srcad.autodiff(srcad.Forward, charged, srcad.Duplicated(0.4, 1.0),
                             srcad.Const(start), backend="numba")
    reverse = srcad.autodiff(srcad.Reverse, charged, srcad.Active(0.4), srcad.Const(start),
                             backend="numba")[0]
    assert forward == pytest.approx(want, rel=1e-7)
    assert forward == pytest.approx(reverse, rel=1e-12)


def test_kernel_results_read_whole_or_bound_again_keep_their_arrays():
    from srcad.transform.small_kernel_tuples import tuple_results

    def renamed(text, arrays="all"):
        tree = gast.parse(text)
        tuple_results(tree, lambda name: (name + "_numbers", arrays))
        return {n.func.id for n in gast.walk(tree) if isinstance(n, gast.Call)
                and isinstance(n.func, gast.Name) and n.func.id.startswith("srcad_nested")}

    call = "srcad_nested_gradient_1_len_2_2(srcad_space, srcad_int_space, x, q)"
    assert renamed(f"def f(x, q):\n    g = {call}\n    return g[0] * g[1]\n") \
        == {"srcad_nested_gradient_1_len_2_2_numbers"}
    for body in ("    return np.dot(g, g)\n",  # the array itself
                 "    g = x\n    return g[0]\n",  # bound to another value too
                 "    g[0] = 1.0\n    return g[1]\n",  # written
                 "    return g[i]\n"):  # an index not constant
        assert renamed(f"def f(x, q, i):\n    g = {call}\n{body}") \
            == {"srcad_nested_gradient_1_len_2_2"}, body
    pair = ("srcad_nested_gradient_tangents_1_0_1_len_2_2_2_2"
            "(srcad_space, srcad_int_space, x, q, x, q)")
    assert renamed(f"def f(x, q):\n    p = {pair}\n    return p[0][1] + p[1][0]\n", (0, 1)) \
        == {pair.split("(")[0] + "_numbers"}
    assert renamed(f"def f(x, q):\n    p = {pair}\n    return np.sum(p[0]) + p[1][0]\n",
                   (0, 1)) == {pair.split("(")[0]}  # array result 0 read whole
