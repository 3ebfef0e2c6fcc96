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
from srcad.api.custom_rules import custom_jvp, custom_vjp
from srcad.api.function_transforms import grad, jacfwd, jacrev, value_and_grad
from srcad.api.hessian_transform import hessian
from srcad.api.jvp_vjp import jvp, vjp
from srcad.api.vmap import vmap
from srcad.errors import (
    ActivityError,
    ArgumentError,
    PreparationMismatchError,
    SrcadError,
    StaleSourceError,
    UnsupportedCallError,
    UnsupportedSyntaxError,
)
from srcad.frontend.pytrees import tree_zeros_like
from srcad.operators.first_order import (
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
from srcad.operators.hessian_operators import (
    prepare_hessian,
    prepare_second_derivative,
    second_derivative,
)
from srcad.operators.second_order import (
    gradient_and_hvp,
    hvp,
    prepare_gradient_and_hvp,
    prepare_hvp,
)
from srcad.runtime.checkpointing import CheckpointWarning
from srcad.transform.normalize.nested_calls import register_public as _register_public

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
           "tree_zeros_like", "CheckpointWarning", "custom_jvp", "custom_vjp", "jvp", "vjp",
           "vmap"]

# srcad.grad(g)(x) inside a differentiated function is recognised by identity
# (srcad/transform/normalize/nested_calls.py)
_register_public(globals(), __all__)
