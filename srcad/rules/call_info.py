"""What srcad knows of a called object (`CallInfo`): its rule, or the type of what it returns,
and what it does with arrays. The table (srcad/rules/table.py) and the families that build
their own entries (the SciPy families: srcad/rules/library_families.py) share it."""

from __future__ import annotations

from dataclasses import dataclass

from srcad.rules import rule_type as _r

# What a call does with array arguments (`CallInfo.arrays`):
ELEMENTWISE = "elementwise"  # applied element by element: array in, array of that rank out
SCALAR = "scalar"  # takes numbers only (math.exp, float, min): an array argument is refused
ANY = "any"  # takes arrays as they are (len, np.zeros_like, np.copy): `result` says what


@dataclass(frozen=True)
class CallInfo:
    """What srcad knows of a called object."""

    name: str
    rule: _r.Rule | None  # None: no derivative (the result never carries one)
    result: str  # "float", "int", "bool", "array", "range", "same" (the join of the
    # arguments' types), "first" (the first argument's type)
    constructor: bool = False  # builds a new float array (np.zeros ...)
    # array-aware: (operand ranks, literal keywords) -> the Rule for this call; the
    # operands are the leading positional arguments, the rest are the `keywords` named
    select: object = None
    keywords: tuple = ()
    shape_arguments: bool = False  # reshape: the new shape's entries are operands too
    sequence: bool = False  # np.stack([a, b]): the listed values are the operands
    arrays: str = SCALAR  # ELEMENTWISE, SCALAR or ANY
    # why its derivative cannot run on the numba backend / in forward mode ("": it can);
    # refused by name, where the call is, by srcad/analysis/rule_backends.py (numba: or a
    # function of the call's argument count giving that)
    numba_refusal: object = ""
    forward_refusal: str = ""
    operand_keywords: tuple = ()  # keywords whose values are operands (logsumexp's b=)
    leading: tuple = ()  # literal arguments before the operands (einsum's subscripts)
    operand_count: int = 1  # positional operands before the `keywords` (-1: all of them)
    # (keyword or operand, reason): an argument whose derivative is refused where it carries
    # one (scipy.stats' cdf in a shape parameter, scipy.special.iv in its order), by
    # srcad/analysis/rule_backends.py
    refused_operands: tuple = ()
    operand_names: tuple = ()  # a select's operands, by position, for `refused_operands`
