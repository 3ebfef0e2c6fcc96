"""The vocabulary of batching: a batched `Value`, `NotLiftable`, and the operand forms every
lifting shares (axes inserted after the batch axis, `@` on batched operands).

A value is a `Value`: its text, whether it carries the batch (`batched`) and its rank per
example (`rank`, None when unknown). A batched value of per-example rank r is an array of
rank r + 1 whose axis 0 is the batch; an unbatched one is what the per-example code computes.
Two batched operands of different ranks are aligned by inserting axes after the batch axis
(NumPy aligns from the right, which would pair the batch axis with an element axis).

>>> aligned(Value("s", True, 0), 2)
's[:, None, None]'
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import gast


class NotLiftable(Exception):
    """A construct the batching does not turn into whole-array code: the caller writes one
    loop over the batch instead. `line` is the line of the tree lifted."""

    def __init__(self, reason: str, node=None):
        self.reason = reason
        self.line = getattr(node, "lineno", None)
        super().__init__(reason)


@dataclass(frozen=True)
class Value:
    text: str
    batched: bool
    rank: int | None  # per example; None: not known
    obj: object = None  # a module, function or number the name stands for (its namespace)
    simple: bool = True  # the text needs no parentheses as an operand


@dataclass(frozen=True)
class ShapeOf:
    """What a `Value` holding an example's `a.shape` knows: its length."""

    length: int


def unparsed(node) -> str:
    return ast.unparse(gast.gast_to_ast(node)).strip()


def operand(value: Value) -> str:
    return value.text if value.simple else f"({value.text})"


def aligned(value: Value, rank: int) -> str:
    """The text of `value` with axes inserted after the batch axis up to per-example `rank`."""
    if not value.batched or value.rank is None or value.rank >= rank:
        return operand(value)
    return f"{operand(value)}[:, {', '.join(['None'] * (rank - value.rank))}]"


def common_rank(values, node) -> int | None:
    """The per-example rank of an elementwise combination of `values`."""
    ranks = [v.rank for v in values]
    if any(r is None for r in ranks):
        if any(v.batched for v in values):
            raise NotLiftable("an operand whose rank is not known", node)
        return None
    return max(ranks) if ranks else 0


def matmul(left: Value, right: Value, node) -> Value:
    """`left @ right` per example, for per-example ranks 1 and 2 (np.dot's cases too)."""
    text = f"{operand(left)} @ {operand(right)}"
    if not left.batched and not right.batched:
        rank = None if None in (left.rank, right.rank) else \
            max(left.rank + right.rank - 2, 0)
        return Value(text, False, rank, simple=False)
    ranks = (left.rank, right.rank)
    if any(r not in (1, 2) for r in ranks):
        raise NotLiftable("`@` of a batched operand of rank other than 1 or 2", node)
    rank = ranks[0] + ranks[1] - 2
    a, b = operand(left), operand(right)
    if left.batched and right.batched:
        text = {(1, 1): f"np.einsum('bi,bi->b', {left.text}, {right.text})",
                (2, 1): f"np.einsum('bij,bj->bi', {left.text}, {right.text})",
                (1, 2): f"np.einsum('bi,bij->bj', {left.text}, {right.text})",
                (2, 2): text}[ranks]
    elif right.batched and ranks[1] == 1:  # (m, n) @ (B, n): the batch as rows on the left
        text = f"{b} @ {a}.T" if ranks[0] == 2 else f"{b} @ {a}"
    return Value(text, True, rank, simple=False)
