"""The builds of a composed derivative's levels (srcad/api/chains.py): the request of the
user's function's own first derivative, and srcad's code of a level, a refusal of srcad's own
generated code surfaced as one naming the user's function, the derivative's order and what
srcad ran (never a reordering of the transforms, which would change nothing).
"""

from __future__ import annotations

import numpy as np

from srcad.analysis.value_types import argument_type, type_of_value
from srcad.api.flat_calls import is_float
from srcad.build.differentiate import _compiled
from srcad.build.pipeline import ArgSpec, Request
from srcad.errors import SrcadError
from srcad.frontend.lambdas import function_name


def _own_request(args, layout, mode="reverse") -> Request:
    """The request of srcad's first derivative of the user's function itself at `args`
    (flat, containers as in `layout`): what its own checks report, at its own lines."""
    specs = tuple(ArgSpec("duplicated" if isinstance(a, np.ndarray) or mode == "forward"
                          else "active", type_of_value(a)) if is_float(a)
                  else ArgSpec("const", argument_type(a)) for a in args)
    return Request(mode, specs, backend="python", containers=layout)


def _built(fun, order, function, request, own=None, forward_innermost=False):
    """srcad's code of `function` for `request`; a refusal of srcad's own generated code
    (which the user never wrote) surfaced as one naming the user's function `fun` and the
    derivative's order. At the first level (`own`: the request of fun's own first
    derivative), what srcad refuses in fun itself is reported as its checks list it, every
    problem at the user's lines. `forward_innermost`: the innermost derivative is forward
    mode, as for every derivative of an array-valued function (reverse mode, grad innermost,
    for a float-valued one whatever the user wrote): the hint says which, and suggests no
    reordering of the transforms, which would change nothing."""
    try:
        return _compiled(function, request)
    except SrcadError as err:
        if not str(err.filename or "").startswith("<srcad"):
            raise  # it names the user's own line
        if own is not None:
            try:
                _compiled(fun, own())
            except SrcadError as mine:
                if not str(mine.filename or "").startswith("<srcad"):
                    raise mine from None
        code = getattr(fun, "__code__", None)
        raise SrcadError(
            f"srcad cannot take derivative {order} of {function_name(fun, 'f')} by differentiating "
            f"its own derivative code ({type(err).__name__} there)",
            filename=code.co_filename if code else None,
            line=code.co_firstlineno if code else None, construct="composed transforms",
            hint=_HINTS["forward" if forward_innermost else
                        "reverse" if request.mode == "reverse" else "forward over reverse"]
        ) from None


_HINTS = {  # what srcad ran, so no reordering of the transforms is suggested: none would help
    "forward": "differentiate fewer times: of an array-valued function srcad takes this "
    "derivative as forward mode over its forward code, and its forward mode refused that code",
    "forward over reverse": "differentiate fewer times: srcad takes this derivative as forward "
    "mode over its reverse code (grad innermost already), and its forward mode refused that "
    "code",
    "reverse": "differentiate fewer times: srcad's reverse code of the function, under the "
    "outer transforms, was refused"}
