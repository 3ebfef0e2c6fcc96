"""Transforms of transformed functions, in any order and depth JAX allows: `grad(grad(f))`,
`jacfwd(grad(f))`, `jacrev(grad(f))`, `hessian(grad(f))`, `value_and_grad(grad(f))`,
`jvp(grad(f), ...)`, `vjp(grad(f), ...)`, `grad(grad(grad(f)))`.

Every function a transform returns carries what it computes as a `Composite`
(`__srcad_compose__()`, built when first composed): its result's structure (nested tuples,
as the transform returns it) with a `Chain` (srcad/api/chains.py) at each leaf, and how to
compute the aux of `has_aux`. A transform applied to such a function maps the structure:
`jacfwd` adds its argument to every chain (a tuple argnums makes a tuple of them inside each
leaf, outputs outside as in JAX), `grad` does the same for a function returning one float,
`value_and_grad` pairs the structure with that, `hessian` adds its argument twice. The
innermost `grad` of a plain function runs srcad's reverse code; every transform over it runs
srcad's forward code over that code (forward over reverse), so the values are srcad's own
and the plain, uncomposed call of each transform is unchanged.

Arguments may be containers of parameters (a dict, list, tuple, NamedTuple or dataclass,
nested): each derivative is then nested as JAX nests it (srcad/api/chain_trees.py).

What is refused, by `ArgumentError`: `grad` of a function returning a tuple, an array or a
container (as JAX), and an inner `has_aux=True` under an outer transform without it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from srcad.api.argnums import (
    bind_keywords,
    check_argnums,
    differentiable,
    numpy_floats,
    resolve_argnums,
)
from srcad.api.auxiliary import ValueOnly
from srcad.api.chain_trees import (
    ArgnumParts,
    FlatArguments,
    evaluate_structure,
    evaluate_tree,
    map_structure,
    pulled,
    tree_source,
)
from srcad.api.chains import Chain
from srcad.api.wrapping import wraps
from srcad.errors import ArgumentError
from srcad.frontend import pytrees


@dataclass(frozen=True)
class Composite:
    """What a transformed function computes: `structure`, nested tuples of Chains; `aux`,
    None or a function of the arguments returning the aux of `has_aux`."""

    structure: object
    aux: object = None


def is_composed(fun) -> bool:
    """Is `fun` what a transform returned (and can be transformed again)?"""
    return getattr(fun, "__srcad_compose__", None) is not None


def _inner(fun, transform, has_aux) -> Composite:
    """What `fun` computes as a composite, for a transform with `has_aux`: a transformed
    function's own composite (its aux, or its output's second entry, as aux), or a plain
    function's value."""
    compose = getattr(fun, "__srcad_compose__", None)
    inner = compose() if compose is not None else None
    if inner is None:
        if not has_aux:
            return Composite(Chain(fun, "value"))
        value_only = ValueOnly(fun, transform)
        return Composite(Chain(value_only, "value"),
                         lambda args: value_only.aux(tuple(args)))
    if not has_aux:
        if inner.aux is not None:
            raise ArgumentError(f"{transform} of a function transformed with has_aux=True: it "
                                "returns (derivative, aux)", hint=f"pass has_aux=True to "
                                f"{transform} as well, as in JAX")
        return inner
    if inner.aux is not None:
        return inner
    if type(inner.structure) is not tuple or len(inner.structure) != 2:
        raise ArgumentError(f"{transform} with has_aux=True needs a function returning a "
                            "pair (value, aux)")
    value, aux = inner.structure
    return Composite(value, lambda args: _evaluated(aux, args))


def structure_of(transform, fun, argnums, has_aux=False) -> Composite:
    """The composite of `transform(fun, argnums, has_aux)`."""
    positions = check_argnums(transform, argnums)
    single = isinstance(argnums, int)
    inner = _inner(fun, transform, has_aux)

    def derivative(chain, how):
        if how == "grad" and chain.base == "value" and not chain.ops:
            parts = tuple(Chain(chain.fun, i) for i in positions)  # reverse mode of fun
        else:
            parts = tuple(chain.then(i, scalar=how == "grad") for i in positions)
        return parts[0] if single else ArgnumParts(parts, chain)

    def scalar(structure):
        if isinstance(structure, tuple):
            raise ArgumentError(f"{transform} of a function returning a tuple: {transform} "
                                "needs one float output, as in JAX", hint="use jacfwd or "
                                "jacrev for several outputs")
        return structure

    if transform in ("grad", "value_and_grad"):
        gradient = derivative(scalar(inner.structure), "grad")
        structure = gradient if transform == "grad" else (inner.structure, gradient)
    elif transform in ("jacfwd", "jacrev"):
        structure = map_structure(inner.structure, lambda c: derivative(c, "jacobian"))
    elif transform == "hessian":
        structure = map_structure(inner.structure, lambda c: map_structure(
            derivative(c, "jacobian"), lambda d: derivative(d, "jacobian")))
    else:
        raise ArgumentError(f"{transform} cannot be composed")
    return Composite(structure, inner.aux)


def mark(function, transform, fun, argnums, has_aux=False):
    """Attach to `function` (what `transform` returned for `fun`) how to make its composite,
    so another transform can take it (made, and refused if it cannot be, when composed)."""
    function.__srcad_transform__ = transform
    function.__srcad_compose__ = functools.cache(
        functools.partial(structure_of, transform, fun, argnums, has_aux))
    return function


def composed(transform, fun, argnums, has_aux=False, backend="python"):
    """`transform(fun, ...)` for a transformed `fun`: a function evaluating the chains of the
    composite at its arguments."""
    composite = structure_of(transform, fun, argnums, has_aux)
    positions = check_argnums(transform, argnums)

    @wraps(fun)
    def composed_function(*args, **kwargs):
        args = _arguments(fun, transform, argnums, args, kwargs)
        for i in resolve_argnums(argnums, positions, len(args)):
            _differentiable(args, i, transform)
        result = _evaluated(composite.structure, args, backend)
        if composite.aux is not None:
            return result, composite.aux(args)
        return result

    composed_function.__srcad_transform__ = transform
    composed_function.__srcad_compose__ = lambda: composite
    return composed_function


def _arguments(fun, transform, argnums, args, kwargs) -> tuple:
    args = tuple(bind_keywords(fun, transform, argnums, args, kwargs))
    return numpy_floats(args, range(len(args)))  # a 0-d float array: the float it holds


def _differentiable(args, i, transform):
    """Argument i (a float, a float array, or a container of them) can be differentiated."""
    if pytrees.is_container(args[i]):
        FlatArguments(args).check_differentiable(i, transform)
    else:
        differentiable(args[i], i, transform)


def _evaluated(structure, args, backend="python"):
    return evaluate_structure(structure, args, backend=backend)


def jvp_composed(fun, primals, tangents, has_aux=False, backend="python"):
    """`(fun(*primals), J v)` (and aux with has_aux) for a transformed fun."""
    composite = _inner(fun, "jvp", has_aux)
    args = _arguments(fun, "jvp", 0, tuple(primals), {})
    FlatArguments(args).flat_direction(tuple(tangents), "jvp")  # refused before any work
    value = _evaluated(composite.structure, args, backend)
    tangent = evaluate_structure(composite.structure, args, tuple(tangents), backend)
    return (value, tangent, composite.aux(args)) if has_aux else (value, tangent)


def vjp_composed(fun, primals, has_aux=False, backend="python"):
    """`(fun(*primals), vjp_fun)` (and aux with has_aux) for a transformed fun: the Jacobian
    of every output with respect to every primal is computed on the first call of vjp_fun
    and kept, so each later call is a contraction."""
    composite = _inner(fun, "vjp", has_aux)
    args = _arguments(fun, "vjp", 0, tuple(primals), {})
    for i in range(len(args)):
        _differentiable(args, i, "vjp")
    value = _evaluated(composite.structure, args, backend)
    kept = []

    def vjp_fun(cotangent):
        if not kept:
            kept.append(map_structure(composite.structure, lambda c: tuple(
                evaluate_tree(c.then(i), args, backend=backend) for i in range(len(args)))))
        return pulled(composite.structure, kept[0], cotangent, args)

    vjp_fun.__srcad_transform__ = "vjp"
    return (value, vjp_fun, composite.aux(args)) if has_aux else (value, vjp_fun)


def composed_source(fun, args, backend="python") -> str:
    """The code a transformed `fun` runs at `args` when transformed again: for every leaf of
    its result, each level of generated code (`srcad.source` of a composed function)."""
    compose = getattr(fun, "__srcad_compose__", None)
    composite = compose()
    args = _arguments(fun, "source", 0, tuple(getattr(a, "value", a) for a in args), {})
    chains = []
    map_structure(composite.structure, chains.append)
    return "\n\n".join(tree_source(c, args, backend) for c in chains)
