"""`autodiff` with container arguments: a dict, list or tuple of arrays and floats (nested to
any depth), bare (a constant) or as `Duplicated(params, shadow)` with a shadow of the same
structure (`srcad.tree_zeros_like(params)`).

Each container is flattened into its leaves at the boundary (srcad/frontend/pytrees.py), and the
generated code takes one argument per leaf (srcad/transform/normalize/containers.py); its structure
is part of the cache key. Leaves of a `Duplicated` container: a float array is `Duplicated` with
the shadow's array (reverse mode adds into it); a float is `Active` in reverse mode, its
derivative added into the shadow's entry (a dict's or a list's: a tuple is immutable), and
`Duplicated` with the shadow's float as tangent in forward mode; an int, bool or None is a
constant. `BatchDuplicated(params, [shadow, ...])` gives each leaf its lanes.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from srcad.annotations import (
    Active,
    Annotation,
    BatchDuplicated,
    Const,
    Duplicated,
)
from srcad.build import arguments, differentiate, plans
from srcad.build.aliasing import refuse_aliased_writes
from srcad.build.pipeline import UNROLL_MAX_WIDTH
from srcad.build.running import refuse_forward_seed
from srcad.errors import ArgumentError, LaneLayoutError, SrcadError, surfaced
from srcad.frontend import pytrees

_plans: dict = {}  # (f, code, layout, mode, batch, backend) -> the reverse Plan of last call


def has_container(args) -> bool:
    for a in args:
        value = a.value if isinstance(a, Annotation) else a
        if pytrees.is_container(value):
            return True
    return False


def flatten_arguments(mode, args):
    """(flat annotated leaves, layout, float leaves): layout, (position, treedef) per
    container argument; float leaves, (flat position, shadow, path) of each float leaf whose
    reverse-mode derivative goes into a shadow container."""
    flat, layout, floats = [], [], []
    for position, arg in enumerate(args):
        value = arg.value if isinstance(arg, Annotation) else arg
        if not pytrees.is_container(value):
            flat.append(arg)
            continue
        where = f"argument {position}"
        tree = pytrees.treedef(value, where)
        layout.append((position, tree))
        values = pytrees.leaves(value)
        if not isinstance(arg, Annotation) or isinstance(arg, Const):
            flat.extend(Const(v) for v in values)
            continue
        if isinstance(arg, Active):
            raise ArgumentError(f"{where}: Active takes a float; a container is differentiated "
                                "as Duplicated(params, shadow)",
                                hint="pass Duplicated(params, srcad.tree_zeros_like(params))")
        if isinstance(arg, BatchDuplicated):
            shadows = list(arg.shadows)
            for s in shadows:
                pytrees.check_congruent(value, s, where)
            lanes = [pytrees.leaves(s) for s in shadows]
            for k, v in enumerate(values):
                flat.append(BatchDuplicated(v, [lane[k] if isinstance(v, np.ndarray)
                                                else _number(lane[k]) for lane in lanes])
                            if _is_float(v) else Const(v))
            continue
        pytrees.check_congruent(value, arg.shadow, where)
        leaf_paths = pytrees.paths(tree)
        for v, s, path in zip(values, pytrees.leaves(arg.shadow), leaf_paths):
            if not _is_float(v):
                flat.append(Const(v))
            elif isinstance(v, np.ndarray) or not mode.reverse:  # a float's tangent: a float
                flat.append(Duplicated(v, s if isinstance(v, np.ndarray) else _number(s)))
            else:
                parent = pytrees.get(arg.shadow, path[:-1])
                if type(parent) is tuple:
                    pytrees.set_leaf(arg.shadow, path, 0.0, f"{where}'s shadow")  # refuses
                floats.append((len(flat), arg.shadow, path))
                flat.append(Active(v))
    return flat, tuple(layout), floats


def _number(shadow):
    """A float leaf's tangent: a float (an immutable record's is a 0-d array,
    srcad/frontend/pytrees.py `tree_zeros_like`)."""
    return float(shadow) if isinstance(shadow, np.ndarray) and shadow.ndim == 0 else shadow


def _is_float(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    return isinstance(value, (float, np.floating))


def container_autodiff(mode, f, args, seed, batch, backend):
    """`autodiff(mode, f, *args, ...)` where some argument is a container (args bound to f's
    parameters already)."""
    try:
        flat_args, layout, floats = flatten_arguments(mode, args)
        key = (f, f.__code__, layout, mode, batch, backend)
        plan = _plans.get(key)
        if mode.reverse:
            if batch is None and _lane_count(flat_args):
                raise ArgumentError("BatchDuplicated in reverse mode beside a container of "
                                    "parameters: reverse lanes run with array and float "
                                    "arguments only",
                                    hint="one call per cotangent with Duplicated, or pass the "
                                    "container's arrays as arguments of their own")
            out = plan.run(flat_args, seed) if plan is not None else plans.MISS
            if out is plans.MISS:
                call, compiled = _checked(f, mode, flat_args, layout, batch, backend)
                roles = differentiate._plan_roles(call, flat_args)
                plan = plans.Plan(_flat_view(f, layout, len(flat_args)), mode, batch, backend,
                                  flat_args, roles, compiled, call.active_positions)
                _plans[key] = plan
                out = plan.run(flat_args, seed)
            return _reverse_result(out, mode, args, layout, floats)
        if seed is not None:
            refuse_forward_seed()
        try:
            call, compiled = _checked(f, mode, flat_args, layout, batch, backend)
        except LaneLayoutError:  # numba's lanes in arrays: whole-array code runs unrolled
            if batch is not None or _lane_count(flat_args) > UNROLL_MAX_WIDTH:
                raise
            call, compiled = _checked(f, mode, flat_args, layout, "unrolled", backend)
        return differentiate._forward(_flat_view(f, layout, len(flat_args)), mode, compiled,
                                      call.flat, flat_args, call.width is not None, call)
    except SrcadError as err:
        raise surfaced(err) from None


def _lane_count(flat_args) -> int:
    return max((len(a.shadows) for a in flat_args if isinstance(a, BatchDuplicated)), default=0)


def container_source(f, mode, args, batch, backend) -> str:
    """`source(f, mode, *args)` where some argument is a container."""
    flat_args, layout, _ = flatten_arguments(mode, args)
    return _checked(f, mode, flat_args, layout, batch, backend)[1].source


def _checked(f, mode, flat_args, layout, batch, backend):
    try:
        call = arguments._Call(mode, flat_args, batch, backend)
    except ArgumentError as err:
        code = f.__code__
        raise err.at(code.co_filename, code.co_firstlineno) from None
    request = dataclasses.replace(call.request(mode, backend), containers=layout)
    compiled = differentiate._compiled(f, request)
    refuse_aliased_writes([a.value if isinstance(a, Annotation) else a for a in flat_args],
                          compiled.written, f, leaves=True)
    return call, compiled


def _reverse_result(out, mode, args, layout, floats):
    derivatives, value = (out if mode.with_primal else (out, None))
    for index, shadow, path in floats:
        leaf = pytrees.get(shadow, path)
        pytrees.set_leaf(shadow, path, float(leaf) + derivatives[index])
    containers = {position for position, _ in layout}
    per_argument, k = [], 0
    for position, arg in enumerate(args):
        if position in containers:
            per_argument.append(None)
            k += len(pytrees.leaves(arg.value if isinstance(arg, Annotation) else arg))
        else:
            per_argument.append(derivatives[k])
            k += 1
    per_argument = tuple(per_argument)
    return (per_argument, value) if mode.with_primal else per_argument


def _flat_view(f, layout, count):
    """f as a function of the flat leaves (what the generated code takes): the primal that
    error explanations rerun. It carries f's name, file and line."""
    trees = dict(layout)

    def flat_function(*flat):
        args, k = [], 0
        position = 0
        while k < len(flat):
            if position in trees:
                n = len(pytrees.paths(trees[position]))
                args.append(pytrees.unflatten(trees[position], flat[k:k + n]))
                k += n
            else:
                args.append(flat[k])
                k += 1
            position += 1
        return f(*args)

    code = f.__code__
    flat_function.__code__ = flat_function.__code__.replace(
        co_filename=code.co_filename, co_firstlineno=code.co_firstlineno, co_name=code.co_name)
    flat_function.__name__ = f.__name__
    return flat_function


differentiate.register_mode("has_container", has_container)
differentiate.register_mode("containers", container_autodiff)
