"""srcad: source-to-source automatic differentiation for plain-loop Python.

>>> import srcad
>>> def f(x, y):
...     return x * y + x
>>> srcad.autodiff(srcad.Reverse, f, srcad.Active(2.0), srcad.Active(5.0))
(6.0, 2.0)
"""

from srcad._version import __version__ as __version__
from srcad.annotations import (
    Active,
    BatchDuplicated,
    BatchDuplicatedNoNeed,
    Cache,
    Const,
    Constant,
    Duplicated,
    DuplicatedNoNeed,
    Forward,
    ForwardWithPrimal,
    Output,
    Reverse,
    ReverseWithPrimal,
)
from srcad.api import autodiff, forward, reverse, source
from srcad.checkpointing import CheckpointWarning
from srcad.custom_rules import custom_jvp, custom_vjp
from srcad.errors import (
    ActivityError,
    ArgumentError,
    SrcadError,
    StaleSourceError,
    UnsupportedCallError,
    UnsupportedSyntaxError,
)
from srcad.function_transforms import grad, hessian, jacfwd, jacrev, value_and_grad
from srcad.operators import (
    derivative,
    gradient,
    jacobian,
    prepare_derivative,
    prepare_gradient,
    prepare_jacobian,
    prepare_pullback,
    prepare_pushforward,
    prepare_value_and_gradient,
    prepare_value_and_jacobian,
    pullback,
    pushforward,
    value_and_gradient,
    value_and_jacobian,
)
from srcad.preparation import PreparationMismatchError
from srcad.pytrees import tree_zeros_like
from srcad.second_order import (
    gradient_and_hvp,
    hvp,
    prepare_gradient_and_hvp,
    prepare_hessian,
    prepare_hvp,
    prepare_second_derivative,
    second_derivative,
)

__all__ = ["Active", "BatchDuplicated", "BatchDuplicatedNoNeed", "Const", "Duplicated",
           "DuplicatedNoNeed", "Forward", "ForwardWithPrimal", "Reverse", "ReverseWithPrimal",
           "autodiff", "forward", "reverse", "source", "SrcadError", "ActivityError",
           "ArgumentError", "StaleSourceError", "UnsupportedCallError", "UnsupportedSyntaxError",
           "Cache", "Constant", "Output", "PreparationMismatchError", "derivative", "gradient",
           "hessian", "hvp", "gradient_and_hvp", "jacobian", "pullback", "pushforward",
           "second_derivative",
           "value_and_gradient", "value_and_jacobian", "prepare_derivative", "prepare_gradient",
           "prepare_hessian", "prepare_hvp", "prepare_gradient_and_hvp", "prepare_jacobian",
           "prepare_pullback",
           "prepare_pushforward", "prepare_second_derivative", "prepare_value_and_gradient",
           "prepare_value_and_jacobian", "grad", "value_and_grad", "jacfwd", "jacrev",
           "tree_zeros_like", "CheckpointWarning", "custom_jvp", "custom_vjp"]
