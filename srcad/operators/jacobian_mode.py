"""The mode `jacobian` takes when `mode=` is not given: a cost model per backend.

A forward-mode jacobian runs n tangent lanes through f's forward code, a reverse-mode one m
cotangent lanes through its reverse code (W rows per sweep). A reverse lane costs more than a
forward one (the sweep runs the primal, records it and runs the adjoint statement by
statement, where the python backend's forward lanes of a loop over elements run as whole
NumPy arrays), so forward mode wins past n = m: it is chosen while

    n <= FORWARD_RATIO[backend][form] * m

where `form` is "stacked" when f's forward code carries its lanes in arrays (code written
element by element) and "unrolled" when it runs chunks of unrolled lanes (whole-array NumPy
code, which cannot carry lanes in arrays yet). The ratios are the crossovers measured by
`benchmarks/jacobian_modes.py` (docs/jacobian_modes.md), forward against reverse at n / m
from 0.25 to 16: on the python backend forward mode of element code stayed faster up to
n = 8 m (1.7-10x at 8 m for loops; ht and ba small 2.2x and 3.3x), whole-array code up to
n = 2 m; on numba element code up to about 4 m and whole-array code up to n = m. Below the
smaller ratio the form is not asked; between the two it is, by building f's forward engine
(the one forward mode then runs). A checkpointing budget (`memory=`) bounds a reverse tape:
reverse mode.

The choice never changes a result, only its cost: both modes give the same jacobian.
"""

from __future__ import annotations

FORWARD_RATIO = {"python": {"stacked": 8, "unrolled": 2},
                 "numba": {"stacked": 4, "unrolled": 1}}


def default_mode(n: int, m: int, backend: str, form: str | None = None,
                 memory: object = None) -> str | None:
    """The mode of a jacobian of n inputs and m outputs when `mode=` is not given; `form`
    ("stacked" or "unrolled") is the form of f's forward lanes, None when not known (then
    forward up to the smaller ratio, reverse above the larger, and None between: ask the
    forward code).

    >>> default_mode(26, 24, "python"), default_mode(600, 10, "python")
    ('forward', 'reverse')
    >>> default_mode(60, 10, "python") is None
    True
    >>> default_mode(60, 10, "python", "stacked"), default_mode(60, 10, "python", "unrolled")
    ('forward', 'reverse')
    """
    if memory is not None:
        return "reverse"
    ratios = FORWARD_RATIO[backend]
    if form is not None:
        return "forward" if n <= ratios[form] * m else "reverse"
    if n <= min(ratios.values()) * m:
        return "forward"
    if n > max(ratios.values()) * m:
        return "reverse"
    return None
