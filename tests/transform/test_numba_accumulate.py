"""Additions into a name in the code numba compiles (srcad/transform/numba_accumulate.py):
`t += unshared(t, v)` and `t += e` outside loops become `t = added_into(t, v)`; an element or
a slice target, another operator, an `unshared` of another name and a loop's own additions stay
as they are. A product added, `t += unshared(t, array_matmul(a, b))`, becomes
`t = matmul_added_into(t, a, b)` (one BLAS call into `t`, no product matrix made)."""

import gast

from srcad.frontend import syntax as S
from srcad.transform.numba_accumulate import added_in_place
from srcad.transform.numba_fusion import FusedLoop

SOURCE = """\
def f(x_bar, g, v, i, s):
    x_bar += unshared(x_bar, g)
    s += g * 2.0
    x_bar[i] += unshared(x_bar[i], g)
    x_bar -= unshared(x_bar, g)
    x_bar += unshared(v, g)
    for j in range(3):
        if j > 1:
            s += unshared(s, v)
    return s
"""


def test_additions_into_names_call_added_into_and_the_rest_stays():
    tree = added_in_place(gast.parse(SOURCE))
    lines = [line.strip() for line in S.unparse_expr(tree).splitlines()]
    assert "x_bar = added_into(x_bar, g)" in lines
    assert "s = added_into(s, g * 2.0)" in lines
    assert "x_bar[i] += unshared(x_bar[i], g)" in lines
    assert "x_bar -= unshared(x_bar, g)" in lines
    assert "x_bar = added_into(x_bar, unshared(v, g))" in lines  # another name's: kept whole
    assert "s += unshared(s, v)" in lines  # inside a loop (and a branch): numba's own
    assert not any("added_into" in line for line in lines[lines.index("for j in range(3):"):])


def test_an_addition_in_a_branch_outside_loops_calls_added_into():
    tree = added_in_place(gast.parse(
        "def f(x_bar, g, c):\n    if c:\n        x_bar += unshared(x_bar, g)\n"
        "    else:\n        x_bar += g\n    return x_bar\n"))
    lines = [line.strip() for line in S.unparse_expr(tree).splitlines()]
    assert lines.count("x_bar = added_into(x_bar, g)") == 2


def test_a_product_added_into_a_name_is_one_call_without_the_product():
    tree = added_in_place(gast.parse(
        "def f(W_bar, X, d, v):\n    W_bar += unshared(W_bar, array_matmul(X.T, d))\n"
        "    W_bar += array_matmul(d, X) * 2.0\n    v[0] += unshared(v[0], array_matmul(X, d))\n"
        "    return W_bar\n"))
    lines = [line.strip() for line in S.unparse_expr(tree).splitlines()]
    assert "W_bar = matmul_added_into(W_bar, X.T, d)" in lines
    assert "W_bar = added_into(W_bar, array_matmul(d, X) * 2.0)" in lines  # not a product alone
    assert "v[0] += unshared(v[0], array_matmul(X, d))" in lines


def test_a_fused_unbroadcast_added_into_a_name_is_one_kernel_adding_into_it():
    fused = {"fused_unbroadcast": FusedLoop("(a0 * a1)", ("unbroadcast",), 2),
             "fused_map": FusedLoop("(a0 * a1)", ("map",), 2)}
    tree = added_in_place(gast.parse(
        "def f(t, u, a, b, fused_unbroadcast_into):\n"
        "    t += unshared(t, fused_unbroadcast(a, b, t.shape))\n"
        "    u += fused_unbroadcast(b, a, (3, 1))\n    u += fused_map(a, b)\n"
        "    return t\n"), fused)
    lines = [line.strip() for line in S.unparse_expr(tree).splitlines()]
    # a name the function already uses is not taken
    assert "t = fused_unbroadcast_into_1(a, b, t.shape, t)" in lines
    assert "u = fused_unbroadcast_into_1(b, a, (3, 1), u)" in lines
    assert "u = added_into(u, fused_map(a, b))" in lines  # a map: made, then added
    assert fused["fused_unbroadcast_into_1"] == FusedLoop("(a0 * a1)", ("unbroadcast_into",), 2)
    assert "fused_map_into" not in fused
