"""srcad/transform/numba_shared_calls.py: a linear-algebra call written twice in a run of
statements is evaluated once, and only while nothing changes what it reads or what its
result is read into."""

import gast
import pytest

from srcad.frontend import syntax as S
from srcad.transform.names import Namer
from srcad.transform.numba_shared_calls import share_linalg_calls


def _shared(source: str) -> str:
    tree = gast.Module(body=S.parse_stmts(source), type_ignores=[])
    taken = {n.id for n in S.nodes(tree) if isinstance(n, gast.Name)}
    return gast.unparse(share_linalg_calls(tree, Namer(taken))).strip()


def test_the_transposed_solve_of_both_adjoints_runs_once():
    out = _shared("a_bar += -np.outer(np.linalg.solve(a.T, g), ans)\n"
                  "b_bar += unshared(b_bar, np.linalg.solve(a.T, g))\n")
    assert out.splitlines() == ["shared_solve = np.linalg.solve(a.T, g)",
                                "a_bar += -np.outer(shared_solve, ans)",
                                "b_bar += unshared(b_bar, shared_solve)"]


def test_the_solve_spelled_for_numba_is_shared_too():
    # srcad/transform/numba_linalg_calls.py spells np.linalg.solve `linalg_solve` first
    out = _shared("a_bar += -np.outer(linalg_solve(a.T, g), ans)\n"
                  "b_bar += unshared(b_bar, linalg_solve(a.T, g))\n")
    assert out.splitlines() == ["shared_solve = linalg_solve(a.T, g)",
                                "a_bar += -np.outer(shared_solve, ans)",
                                "b_bar += unshared(b_bar, shared_solve)"]


def test_a_solve_read_into_outer_add_is_shared():
    # outer_add(a, x, y) writes into a only and reads x and y
    out = _shared("outer_add(a_bar, -linalg_solve(a.T, g), ans)\n"
                  "b_bar += unshared(b_bar, linalg_solve(a.T, g))\n")
    assert out.splitlines() == ["shared_solve = linalg_solve(a.T, g)",
                                "outer_add(a_bar, -shared_solve, ans)",
                                "b_bar += unshared(b_bar, shared_solve)"]
    # ... and not where it writes into what the solve reads
    out = _shared("outer_add(g, -linalg_solve(a.T, g), ans)\n"
                  "b_bar += unshared(b_bar, linalg_solve(a.T, g))\n")
    assert "shared_solve" not in out


def test_slogdets_sign_and_log_come_from_one_call():
    out = _shared("sign = np.linalg.slogdet(c)[0]\n"
                  "tape.append(c)\n"
                  "logdet = np.linalg.slogdet(c)[1]\n")
    assert out.count("np.linalg.slogdet(") == 1
    assert "sign = shared_slogdet[0]" in out and "logdet = shared_slogdet[1]" in out


@pytest.mark.parametrize("between", [
    "a = a + 1.0",          # rebound
    "a += b",               # written in place
    "a[0, 0] = 2.0",        # an element written
    "outer_add(a, x, y)",   # a call that may write into its operands
    "a.fill(0.0)",          # a method of the operand
    "g[...] = 0.0",         # the other operand
])
def test_a_call_whose_operands_change_between_is_computed_again(between):
    out = _shared(f"p = -np.outer(np.linalg.solve(a, g), x)\n{between}\n"
                  "q = -np.outer(np.linalg.solve(a, g), x)\n")
    assert out.count("np.linalg.solve(a, g)") == 2
    assert "shared" not in out


def test_a_result_kept_as_it_is_is_never_shared():
    # `x` and `y` would be one array: writing into one would change the other
    for kept in ("np.linalg.solve(a, g)", "unbroadcast(np.linalg.solve(a, g), s)",
                 "np.transpose(np.linalg.inv(a))", "np.expand_dims(np.linalg.inv(a), 0)"):
        out = _shared(f"x = {kept}\ny = {kept}\n")
        assert "shared" not in out, out


def test_no_sharing_across_control_flow():
    out = _shared("p = 2.0 * np.linalg.inv(a)\n"
                  "if flag:\n    q = 3.0 * np.linalg.inv(a)\n")
    assert "shared" not in out
    # inside a block, a run of its own
    out = _shared("for i in range(3):\n    p = 2.0 * np.linalg.inv(a)\n"
                  "    q = 3.0 * np.linalg.inv(a)\n")
    assert out.count("np.linalg.inv(a)") == 1
    assert out.splitlines()[1].strip() == "shared_inv = np.linalg.inv(a)"


def test_a_statement_writing_into_an_operand_before_the_read_keeps_its_own_call():
    out = _shared("p = 2.0 * np.linalg.det(a)\n"
                  "q = scale(a) + np.linalg.det(a)\n"
                  "r = 3.0 * np.linalg.det(a)\n")
    assert "shared" not in out


def test_a_call_inside_a_comprehension_stays_there():
    # its index is the comprehension's own
    line = "p = [2.0 * np.linalg.solve(a, g[i]) for i in range(3)]\n"
    out = _shared(line + line.replace("p =", "q ="))
    assert "shared" not in out


def test_outer_add_is_not_used_where_its_operands_read_the_target():
    # srcad/transform/numba_compat.py: outer_add reads x and y while it writes into a
    from srcad.transform.numba_compat import numba_friendly

    def spelled(source):
        tree = gast.Module(body=S.parse_stmts(source), type_ignores=[])
        return gast.unparse(numba_friendly(tree, Namer({"a", "x", "y"}))).strip()

    assert spelled("a += -np.outer(x, y)\n") == "outer_add(a, -x, y)"
    assert spelled("a -= np.outer(x, y)\n") == "outer_add(a, -x, y)"
    assert "outer_add" not in spelled("a -= np.outer(x, a[0])\n")
    assert "outer_add" not in spelled("a += np.outer(a.T[1], y)\n")
