"""In a reverse loop, sums into an element whose index the loop does not change
(`h_bar[i] += w[idx] * out_bar[j]` over j) go into a local added to the element after the loop
(srcad/transform/reverse/invariant_sums.py), unless something else in the loop may read that
array (`out_bar[i] += ...` while `out_bar[j]` is read)."""

import numpy as np
import pytest
from helpers.walk_counts import counting_walks

import srcad
from srcad.frontend import syntax as S
from srcad.testing import check_grads
from srcad.transform.names import Namer
from srcad.transform.reverse.invariant_sums import sums_in_locals


def triangle_apart(a, w):
    """gmm's Qtimesx: `out[j] = out[j] + w[idx] * h[i]`, h and out separate work arrays."""
    n = len(a)
    h = np.zeros(n)
    out = np.zeros(n)
    s = 0.0
    for r in range(2):
        for i in range(n):
            h[i] = a[i] * (r + 1.0)
            out[i] = h[i]
        idx = 0
        for i in range(n):
            for j in range(i + 1, n):
                out[j] = out[j] + w[idx % n] * h[i]
                idx += 1
        for i in range(n):
            s = s + out[i] * out[i]
    return s


def triangle_in_place(a, w):
    """`out[j] += w * out[i]`: out_bar[j] is read where out_bar[i] is added into."""
    n = len(a)
    out = np.zeros(n)
    for i in range(n):
        out[i] = a[i]
    for i in range(n):
        for j in range(i + 1, n):
            out[j] = out[j] + w[j] * out[i]
    s = 0.0
    for i in range(n):
        s = s + out[i] * out[i]
    return s


def _args():
    rng = np.random.default_rng(7)
    return rng.normal(size=5) * 0.5, rng.normal(size=5) * 0.5


def _source(f, backend="numba"):
    a, w = _args()
    return srcad.source(f, srcad.Reverse, srcad.Duplicated(a, np.zeros_like(a)),
                        srcad.Duplicated(w, np.zeros_like(w)), backend=backend)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("f", [triangle_apart, triangle_in_place])
def test_gradients(f, backend):
    a, w = _args()
    check_grads(f, srcad.Duplicated(a, np.zeros_like(a)), srcad.Duplicated(w, np.zeros_like(w)),
                backend=backend)


def test_invariant_element_summed_in_a_local():
    src = _source(triangle_apart)
    assert "h_bar_sum = 0.0" in src and "h_bar_sum +=" in src
    # numba code copies the right side of `t += v` where v may overlap t (`unshared`)
    assert "h_bar[i] += unshared(h_bar[i], h_bar_sum)" in src or "h_bar[i] += h_bar_sum" in src


def test_not_where_the_array_is_read_in_the_loop():
    assert "_sum +=" not in _source(triangle_in_place)


def _walked_per_node(source, monkeypatch) -> float:
    """Nodes `sums_in_locals` walks for the nest `source`, per node of the nest."""
    body = S.parse_stmts(source)
    size = sum(1 for _ in S.nodes(body[0]))
    walked = counting_walks(monkeypatch)
    sums_in_locals(body, body, set(), lambda name, index: True, Namer(set()))
    return walked[0] / size


def test_each_loop_is_walked_once(monkeypatch):
    # the rewrite asked five questions of each loop, each a walk of the loop's whole tree
    assert _walked_per_node(
        "for i in range(n):\n"
        "    for j in range(m):\n"
        "        for k in range(p):\n"
        "            h_bar[i] += w[j] * out_bar[k]\n"
        "            out_bar[k] += w[j] * h_bar[i]\n", monkeypatch) <= 3  # each its subtree


def test_loops_without_sums_of_their_own_are_not_walked(monkeypatch):
    # every loop of a nest walked its whole subtree, though only the innermost sums
    assert _walked_per_node(
        "for a in range(n):\n"
        "    for b in range(m):\n"
        "        for c in range(p):\n"
        "            for k in range(q):\n"
        "                h_bar[k] += w[a, b] * out_bar[c, k]\n", monkeypatch) <= 2
