"""srcad: source-to-source automatic differentiation for plain-loop Python.

>>> import srcad
>>> def f(x, y):
...     return x * y + x
>>> srcad.autodiff(srcad.Reverse, f, srcad.Active(2.0), srcad.Active(5.0))
(6.0, 2.0)
"""

from srcad.annotations import (
    Active,
    BatchDuplicated,
    BatchDuplicatedNoNeed,
    Const,
    Duplicated,
    DuplicatedNoNeed,
    Forward,
    ForwardWithPrimal,
    Reverse,
    ReverseWithPrimal,
)
from srcad.api import autodiff, forward, reverse, source
from srcad.errors import (
    ActivityError,
    ArgumentError,
    SrcadError,
    UnsupportedCallError,
    UnsupportedSyntaxError,
)

__all__ = ["Active", "BatchDuplicated", "BatchDuplicatedNoNeed", "Const", "Duplicated",
           "DuplicatedNoNeed", "Forward", "ForwardWithPrimal", "Reverse", "ReverseWithPrimal",
           "autodiff", "forward", "reverse", "source", "SrcadError", "ActivityError",
           "ArgumentError", "UnsupportedCallError", "UnsupportedSyntaxError"]
