"""Additions into a name in the code numba compiles (srcad/transform/numba_accumulate.py):
`t += unshared(t, v)` and `t += e` outside loops become `t = added_into(t, v)`; an element or
a slice target, another operator, an `unshared` of another name and a loop's own additions stay
as they are."""

import gast

from srcad.frontend import syntax as S
from srcad.transform.numba_accumulate import added_in_place

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
