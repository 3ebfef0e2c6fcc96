"""numba vector mode: where the W tangent lanes of an array live.

The caller passes the tangents of an array argument lane first, shape (W, ...): lane k is
`a_dot[k]`. A loop over the lanes of one element, `a_dot[lane, i]`, then strides by a whole
lane, and LLVM can only gather. Inside the generated function, array tangents keep the lanes
last, shape (..., W), `a_dot_t[i, lane]`: the W tangents of an element side by side, so every
lane loop reads and writes contiguous memory and vectorizes.

Local arrays (hoisted values, `np.zeros`, copies) are allocated lanes last. An argument's
tangents are copied into that layout at entry (into the workspace array the caller keeps, so
no allocation), and back when the function writes them, when that pays: when its elements
are read again and again (`reread_arrays`). An argument whose
elements are touched about once per call is used in the caller's layout: a copy would cost as
much as the strided accesses it saves (the scratch-cache jacobian: W=100 lanes of n=100
elements, each read once or twice). The lane loops run to `lanes`, set at entry
(`lane_count`): a literal W for narrow batches, the first axis of the caller's array from
`MIN_COUNTED_LANES` lanes on.
"""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S


def reread_arrays(body: list, arrays) -> set:
    """The arrays among `arrays` with an element access inside a loop that does not move the
    index: a `for` loop whose target the index does not mention (the mixture's `params[k]`
    inside `for n in range(len(data))`), or any `while` loop. An index computed from the loop
    target through another variable counts as not moving: the copy is then wasted, never wrong.

    >>> body = gast.parse("for n in range(N):\\n    for k in range(K):\\n"
    ...                   "        s += p[k] * q[n, k]\\n").body
    >>> sorted(reread_arrays(body, {"p", "q"}))
    ['p']
    """
    arrays, found = set(arrays), set()

    def accesses(node, loops):
        for n in gast.walk(node):
            if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) \
                    and n.value.id in arrays:
                index = S.loaded_names(n.slice)
                if any(targets is None or not targets & index for targets in loops):
                    found.add(n.value.id)

    def block(stmts, loops):
        for stmt in stmts:
            if isinstance(stmt, gast.For):
                accesses(stmt.iter, loops)
                targets = {n.id for n in gast.walk(stmt.target) if isinstance(n, gast.Name)}
                block(stmt.body, loops + [targets])
                block(stmt.orelse, loops)
            elif isinstance(stmt, gast.While):
                accesses(stmt.test, loops + [None])
                block(stmt.body, loops + [None])
                block(stmt.orelse, loops)
            elif isinstance(stmt, gast.If):
                accesses(stmt.test, loops)
                block(stmt.body, loops)
                block(stmt.orelse, loops)
            else:
                accesses(stmt, loops)

    block(body, [])
    return found


# From this many lanes on, the lane count is read at run time: LLVM unrolls a loop of a known
# count completely when count x body is small, and the unrolled body, which writes one array and
# reads others that might overlap it, stays scalar (the SLP vectorizer gives up); a loop of
# unknown count goes to the loop vectorizer, which tests the overlap once, hoisted out of the
# enclosing loops. Below 8 lanes its vector loop would not run (it starts at 8 lanes, 4 at a
# time with AVX2) and the unrolled lanes are faster. Numba kernels alone, time with the count
# read at run time / with the literal count: mixture (N=500, K=4) W=4 1.23, W=6 1.23, W=8 0.69,
# W=12 0.59, W=16 1.12, W=24 1.07 (a literal 16 or 24 is not unrolled there, and a known count
# saves the run-time tests); matvec_accumulate of tests/numba_backend/test_numba_lanes.py W=16 0.75
# (a smaller body: a literal 16 is unrolled). The run-time count is the one that never loses much.
MIN_COUNTED_LANES = 8


def lane_count(lanes: str, width: int, tangent: str | None) -> list:
    """`lanes = ...` at the top of the function: W itself when narrow, else the first axis of
    the caller's tangent array `tangent` (W too, but LLVM cannot see it)."""
    if width < MIN_COUNTED_LANES or tangent is None:
        return [S.assign(S.name(lanes, store=True), S.const(width))]
    return [S.comment(f"{width} lanes, counted at run time so that LLVM vectorizes the lane "
                      "loops"),
            S.assign(S.name(lanes, store=True), S.parse_expr(f"{tangent}.shape[0]"))]


def _axes(order) -> str:
    return "(" + ", ".join(str(a) for a in order) + ("," if len(order) == 1 else "") + ")"


def lanes_last(array: str, ndim: int):
    """`array` (W, d1, ..., dn) copied into a new contiguous (d1, ..., dn, W) array."""
    order = list(range(1, ndim + 1)) + [0]
    return S.parse_expr(f"np.ascontiguousarray({array}.transpose({_axes(order)}))")


def lanes_first(array: str, ndim: int):
    """`array` (d1, ..., dn, W) copied into a new contiguous (W, d1, ..., dn) array."""
    order = [ndim] + list(range(ndim))
    return S.parse_expr(f"np.ascontiguousarray({array}.transpose({_axes(order)}))")


def copy_lanes_last(target: str, array: str, indices: list, lane: str, lanes: str,
                    back: bool = False) -> gast.For:
    """Loops setting `target[i, ..., lane] = array[lane, i, ...]` (`array` (W, d1, ..., dn),
    `target` (d1, ..., dn, W)), or the other way round when `back`. Loops, not
    `target[...] = array.transpose(...)`: numba copies a transposed source into a temporary
    first (it might overlap the target), an allocation per call."""
    last = f"{target}[{', '.join(indices + [lane])}]"
    first = f"{array}[{', '.join([lane] + indices)}]"
    code = f"{first} = {last}" if back else f"{last} = {first}"
    loops = [f"for {lane} in range({lanes}):"]
    for depth, index in reversed(list(enumerate(indices))):
        loops.insert(0, f"for {index} in range({array}.shape[{depth + 1}]):")
    source = "\n".join("    " * k + line for k, line in enumerate(loops + [code]))
    return S.parse_stmts(source)[0]
