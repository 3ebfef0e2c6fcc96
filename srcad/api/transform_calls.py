"""One call of a transformed function (srcad/api/function_transforms.py and
srcad/api/hessian_transform.py): keywords bound, has_aux's value-only target and its aux,
the argnums resolved and their values checked, and the `autodiff` call with the refusal
hint that fits a transform.
"""

from __future__ import annotations

from srcad.api.argnums import bind_keywords, differentiable, numpy_floats, resolve_argnums
from srcad.api.primals import tree_copy
from srcad.build.arguments import bind_arguments
from srcad.build.differentiate import autodiff
from srcad.errors import ActivityError
from srcad.frontend import pytrees


def bound(fun, transform, argnums, positions, value_only, args, kwargs):
    """(target, args, aux, wrt, values) of one call of a transformed function: keywords bound,
    has_aux's value-only target and aux, the argnums resolved and their values checked (a
    dict, list or tuple of parameters is kept as it is)."""
    args = bind_keywords(fun, transform, argnums, args, kwargs)
    target, args, aux = target_of(fun, value_only, args)
    wrt = resolve_argnums(argnums, positions, len(args))
    args = numpy_floats(args, wrt)
    values = [args[i] if pytrees.is_container(args[i])
              else differentiable(args[i], i, transform) for i in wrt]
    return target, args, aux, wrt, values


def has_containers(values) -> bool:
    return any(pytrees.is_container(v) for v in values)


def target_of(fun, value_only, args):
    """(the function to differentiate, its arguments, aux): fun, args and None, or with
    has_aux fun's value-only function, args completed with fun's defaults, and the aux."""
    if value_only is None:
        return fun, args, None
    args = bind_arguments(getattr(fun, "__srcad_wrapped__", fun), args)
    # the aux first: a plain call refuses a function that returns no pair as such (the
    # value-only wrapper would be refused for an unpacking the user never wrote)
    aux = value_only.aux(tree_copy(args))  # a function writing its input writes a copy
    return value_only.function(len(args)), args, aux


def run(transform, mode, fun, annotated, seed, backend):
    """One autodiff call; a Const-array refusal gets the fix that fits a transform."""
    try:
        return autodiff(mode, fun, *annotated, seed=seed, backend=backend)
    except ActivityError as err:
        hint = (f"{transform} treats the arguments not in argnums as constants: allocate "
                "scratch storage inside the function, or pass it as srcad.Cache(c) to an "
                "operator such as srcad.gradient")
        problems = [ActivityError(p.message, filename=p.filename, line=p.line,
                                  construct=p.construct, hint=hint) for p in err.problems]
        raise ActivityError.combine(problems, function=getattr(fun, "__name__", None),
                                    filename=err.filename) from None
