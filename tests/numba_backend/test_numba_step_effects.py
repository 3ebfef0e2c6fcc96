"""What one step of a reverse loop changes (srcad/transform/numba_step_effects.py), the reading
the rewrites that skip steps share: additions into adjoints that vanish, tests decided by what
is known zero, names that end as they started, and what makes the answer "may change more"."""

from srcad.frontend import syntax as S
from srcad.transform.numba_step_effects import (
    UNKNOWN,
    VANISHES,
    ZERO,
    follow,
    start,
    vanishes,
)


def _follow(source, **known):
    return follow(S.parse_stmts(source), **known)


def test_additions_proportional_to_a_zero_adjoint_change_nothing():
    step = _follow("t = a[i] * 2.0\nu = -(g * t)\nb_bar[i] += u\nb_bar[i] -= t * g * c\n",
                   zero={"g"}, adjoints={"b_bar"})
    assert step is not None and step.values == {"t": UNKNOWN, "u": VANISHES}


def test_an_addition_that_may_be_nonzero_may_change_the_adjoint():
    assert _follow("b_bar[i] += g + a[i]\n", zero={"g"}, adjoints={"b_bar"}) is None
    assert _follow("b_bar[i] += a[i] / g\n", zero={"g"}, adjoints={"b_bar"}) is None
    # an element written that is not an adjoint's, a loop, a call with an effect
    assert _follow("b[i] += g\n", zero={"g"}, adjoints={"b_bar"}) is None
    assert _follow("for t in range(3):\n    x = 1.0\n", zero={"g"}) is None
    assert _follow("x = print(g)\n", zero={"g"}) is None


def test_a_branch_on_a_name_known_zero_is_decided():
    source = "if g != 0.0:\n    b_bar[i] += a[i]\nelse:\n    s = 0.0\n"
    step = _follow(source, zero={"g"}, adjoints={"b_bar"})
    assert step is not None and step.values == {"s": ZERO}
    assert _follow(source, adjoints={"b_bar"}) is None  # g unknown: the branch may run


def test_a_select_the_caller_decides_takes_its_branch():
    compare = S.parse_expr("x[i] > m")
    select = S.parse_expr("(g if C else 0.0) * y[i]")
    select.left.test = compare
    false = {id(compare): False}
    assert vanishes(select, decide=lambda t: false.get(id(t)))
    assert not vanishes(select)  # undecided: one branch is g


def test_names_ending_as_they_started_and_carried_values():
    step = _follow("h = m_bar\nm_bar = 0.0\nm_bar += h\n")
    assert step.values["m_bar"] == start("m_bar") and step.unchanged() == {"m_bar"}
    # a zero added keeps the value, a zero name added to takes the other's value
    step = _follow("e_bar += 0.0\nz += e_bar\n", zero={"z"})
    assert step.values == {"e_bar": start("e_bar"), "z": start("e_bar")}
    # a value carried from step to step: read at the start and changed
    assert _follow("acc += a[i]\n").unchanged() is None
    # +0.0 kept where it starts zero; -0.0 or 0.0 * v is not +0.0
    assert _follow("s = 0.0\n", zero={"s"}).unchanged({"s"}) == {"s"}
    assert _follow("s = -0.0\n", zero={"s"}).values["s"] == VANISHES
    assert _follow("s = 0.0 * v\n", zero={"s"}).unchanged({"s"}) == set()


def test_relaxed_marks_what_it_cannot_follow_unknown():
    step = _follow("b[i] = 1.0\nfor t in range(3):\n    w = t\nz = 0.0\n", relaxed=True)
    assert step.values == {"t": UNKNOWN, "w": UNKNOWN, "z": ZERO}


def test_the_loop_sites_docstring_example_runs():
    import doctest

    from srcad.transform import numba_loop_sites

    assert doctest.testmod(numba_loop_sites).attempted > 0
    assert doctest.testmod(numba_loop_sites).failed == 0
