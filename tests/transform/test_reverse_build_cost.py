"""The reverse transform's work on long code and deep loop nests: what it asks of the whole
function, a block or a nest only where the answer can matter (srcad/transform/reverse/
arrays.py, first_accumulations.py, srcad/transform/row_views.py)."""

import numpy as np

import srcad


def test_an_active_array_bound_once_counts_no_growths(monkeypatch):
    # the growths of a list's buffer (a walk of the whole function) matter only for an
    # array bound more than once; ht's reverse code counted them for every active array
    from srcad.transform.reverse import arrays

    counted, original = [], arrays.growths
    monkeypatch.setattr(arrays, "growths", lambda body, name: counted.append(name)
                        or original(body, name))
    x = np.array([0.3, 0.2, 0.5])
    np.testing.assert_allclose(srcad.grad(_scaled_copy_sum)(x), 2.0 * np.ones(3))
    assert counted == []


def _scaled_copy_sum(x):
    y = np.zeros(3)
    for i in range(3):
        y[i] = 2.0 * x[i]
    return np.sum(y)


def _long_block(x):
    a = x[0] * 2.0
    b = a * x[1]
    c = b + x[2] * a
    d = c * c + b
    return d * a


def test_a_block_is_read_once_for_its_first_accumulations(monkeypatch):
    # each variable defined in a block walked the rest of the block for its reads: long
    # straight-line blocks (unrolled code) were quadratic
    from srcad.transform.reverse import first_accumulations

    walked, original = [], first_accumulations._loads
    monkeypatch.setattr(first_accumulations, "_loads", lambda stmt, name: walked.append(name)
                        or original(stmt, name))
    x = np.array([0.3, 0.2, 0.5])
    a = 2.0 * x[0]
    b = a * x[1]
    c = b + x[2] * a
    d = c * c + b
    # d * a with a = 2 x0, b = a x1, c = b + x2 a, d = c^2 + b
    da = np.array([2.0, 0.0, 0.0])
    db = x[1] * da + np.array([0.0, a, 0.0])
    dc = db + x[2] * da + np.array([0.0, 0.0, a])
    dd = 2.0 * c * dc + db
    np.testing.assert_allclose(srcad.grad(_long_block)(x), dd * a + d * da, rtol=1e-13)
    assert walked == []


def test_loops_without_row_reads_of_their_own_are_not_walked(monkeypatch):
    # each loop of a nest walked its whole subtree (exits, names set) before finding it had
    # no row to hoist; the python backend's reverse code of ht nests four loops
    from helpers.walk_counts import counting_walks

    from srcad.frontend import syntax as S
    from srcad.transform.names import Namer
    from srcad.transform.row_views import hoist_row_views

    fn = S.parse_stmts(
        "def f(A, B, n, m, p, q):\n"
        "    for a in range(n):\n"
        "        for b in range(m):\n"
        "            for c in range(p):\n"
        "                for k in range(q):\n"
        "                    B[a, b, k] = A[a, b, k] * 2.0 + A[a, b, 0]\n")[0]
    size = sum(1 for _ in S.nodes(fn))
    walked = counting_walks(monkeypatch)
    rows = hoist_row_views(fn, {"A": 3, "B": 3}, {"a", "b", "c", "k", "n", "m", "p", "q"},
                           Namer(set()))
    assert rows  # the innermost loop's reads of A[a, b]: one row, hoisted
    assert walked[0] < 3 * size  # the innermost loop walked a few times, not each level


def _loop_reading_its_value(reads, folder):
    """f(x): a loop whose body binds t once (from s: taped, not recomputed), then reads it 4
    times in each of `reads` statements."""
    from helpers.user_modules import load_module

    body = "".join("        s = s + t * t * t * t\n" for _ in range(reads))
    return load_module(folder, f"iteration_value_reads_{reads}", "def f(x):\n    s = 1.0\n"
                       "    for i in range(2):\n        t = x[i] * s\n"
                       "        if i > 5:\n            s = 0.0\n" + body + "    return s\n").f


def _walked_for_iteration_values(reads, folder, monkeypatch):
    from helpers.walk_counts import counting_walks

    f = _loop_reading_its_value(reads, folder)
    x = np.array([0.3, -0.2])
    walked = counting_walks(monkeypatch)
    gradient = srcad.grad(f)(x)
    monkeypatch.undo()
    h = 1e-6
    central = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(2)]
    np.testing.assert_allclose(gradient, central, rtol=1e-7)
    return walked[0]


def test_a_value_taped_once_per_iteration_finds_its_statement_without_a_walk_per_read(
        tmp_path, monkeypatch):
    # each read of a number the loop body binds once looked for the body's statement holding
    # it by walking the body (srcad/transform/reverse/iteration_values.py): quadratic in the
    # length of the loop body
    assert _walked_for_iteration_values(160, tmp_path, monkeypatch) \
        < 2.2 * _walked_for_iteration_values(80, tmp_path, monkeypatch)
