"""When a lifted loop's code gives the loop's answer: the checks run once before it.

srcad/transform/parallel_loops.py runs a loop's iterations as NumPy code only when, at run
time, the loop runs at least once, every array it indexes is a NumPy array with one axis per
index part (those it writes of floats, no view of another array it indexes), stacked lanes
agree in number, and every other name it reads from outside is a number. Else the loop runs.

>>> import gast
>>> run_guards([gast.parse("n", mode="eval").body], {"x": 1, "y": 1}, {"y": []}, set(),
...            {"a"})  # doctest: +NORMALIZE_WHITESPACE
['len(range(n)) > 0', 'isinstance(x, np.ndarray) and x.ndim == 1',
 'isinstance(y, np.ndarray) and y.ndim == 1', "y.dtype.kind == 'f'",
 'not np.may_share_memory(y, x)', 'np.ndim(a) == 0']
"""

from __future__ import annotations

from srcad.frontend import syntax as S


def run_guards(bounds, arrays, written, lane_arrays, scalars) -> list:
    """The checks, as source text: `bounds` of the range, `arrays` {name: index parts},
    `written` the arrays written, `lane_arrays` those indexed `A[:, ...]`, `scalars` the
    other names read from outside the loop."""
    count = "len(range(" + ", ".join(S.unparse_expr(b) for b in bounds) + "))"
    guards = [f"{count} > 0"]
    guards += [f"isinstance({a}, np.ndarray) and {a}.ndim == {k}"
               for a, k in sorted(arrays.items())]
    guards += [f"{a}.dtype.kind == 'f'" for a in sorted(written)]
    # an array written is no view of another array the loop indexes (the loop would read
    # what earlier iterations wrote through it)
    written = sorted(written)
    guards += [f"not np.may_share_memory({a}, {b})" for k, a in enumerate(written)
               for b in sorted(arrays) if b not in written[:k + 1]]
    guards += [f"{a}.shape[0] == {b}.shape[0]" for a, b in
               zip(sorted(lane_arrays), sorted(lane_arrays)[1:])]
    guards += [f"np.ndim({n}) == 0" for n in sorted(set(scalars) - set(arrays))
               if n not in ("math", "np", "abs")]
    return guards
