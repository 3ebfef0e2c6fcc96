"""The operators with a container input x (a dict, list or tuple of float arrays and floats,
nested, as JAX users keep model parameters) or a function returning a tuple.

Every call is built on `autodiff` with `Duplicated(x, shadow)`
(srcad/operators/containers/container_calls.py), and every result has x's structure:

* `gradient`, `value_and_gradient`: the gradient is a container like x (reverse mode, or
  forward lanes with mode="forward");
* `pullback`: u^T J, a container like x;
* `pushforward`: J v for a tangent v of x's structure (a tuple of tangents: one vector-mode
  call); the result is shaped like f's output;
* `jacobian`, `value_and_jacobian`: a container like x whose leaf for an input leaf of shape
  `s` has shape `output.shape + s` (JAX's `jacrev` convention;
  srcad/operators/containers/container_jacobian.py);
* `hvp`, `gradient_and_hvp`, `hessian`: forward over reverse on python, reverse over forward
  on numba (srcad/operators/containers/container_second_order.py), H v and the gradient containers
  like x, H
  a container like x of containers like x (JAX's `jax.hessian`);
* `out=` is a container like the result, filled in place (its float entries are set in their
  dict or list) and returned.

A function returning a tuple `(a, b)` (jacobian, pullback, pushforward, as JAX's jacrev and
vjp): the jacobian is a tuple with one jacobian per returned value, the cotangent of a pullback
a tuple with one cotangent per value, a pushforward's result a tuple of tangents.

Leaves that are not floats (ints, bools, None) are constants: their entries in a result are
copied from x. A preparation (`prepare_gradient(f, params)`) records x's structure and the
backend; a call with another structure raises `PreparationMismatchError`. second_derivative
and derivative take a float x; memory= and sparse= are refused.
"""

from __future__ import annotations

import gast
import numpy as np

from srcad.annotations import (
    Active,
    BatchDuplicated,
    Cache,
    Constant,
    Duplicated,
    Forward,
    Output,
    ReverseWithPrimal,
)
from srcad.build.differentiate import autodiff
from srcad.errors import ArgumentError, PreparationMismatchError, SrcadError
from srcad.frontend import pytrees
from srcad.frontend import syntax as S
from srcad.frontend.parse import parse_function
from srcad.operators.containers.container_jacobian import fill as _fill
from srcad.operators.containers.container_jacobian import jacobian
from srcad.operators.containers.container_second_order import ContainerSecondOrder
from srcad.operators.operator_options import (
    REVERSE_OVER_FORWARD,
    check_options,
    refuse_chunk_in_reverse_over_forward,
    second_order_mode,
)

_ARRAY_ONLY = ("hvp", "hessian", "second_derivative", "derivative", "gradient_and_hvp")
_SECOND_ORDER = ("hvp", "hessian", "gradient_and_hvp")


_TUPLE_RETURNS: dict = {}  # code object -> does the function return `a, b`?


def returns_tuple(f) -> bool:
    """Does f return a tuple (`return a, b`, on one path or several)? Read from its source
    once."""
    code = f.__code__
    known = _TUPLE_RETURNS.get(code)
    if known is None:
        try:
            body = parse_function(f).tree.body
        except SrcadError:
            return False  # refused later, with its reason
        known = any(S.is_tuple_return(r) for r in _own_returns(body))
        _TUPLE_RETURNS[code] = known
    return known


def _own_returns(stmts):
    """The return statements of a function body, not those of functions defined in it."""
    for stmt in stmts:
        if isinstance(stmt, gast.Return):
            yield stmt
        elif not isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
            for field in ("body", "orelse", "handlers", "finalbody"):
                yield from _own_returns(getattr(stmt, field, None) or [])


class ContainerPrep:
    """A preparation of an operator with a container x: its structure and backend."""

    def __init__(self, operator, f, tree, backend):
        self.operator, self.function, self.tree, self.backend = operator, f, tree, backend

    def check(self, operator, f, tree):
        if f is not self.function or tree != self.tree or not _compatible(operator,
                                                                           self.operator):
            raise PreparationMismatchError(
                f"this preparation is for {self.operator} of {self.function.__name__} with an "
                "input of another structure" if tree != self.tree else
                f"this preparation is for {self.operator} of {self.function.__name__}")


def _compatible(a, b):
    pairs = {("value_and_gradient", "gradient"), ("value_and_jacobian", "jacobian")}
    return a == b or (a, b) in pairs or (b, a) in pairs


def container_operator(name, f, args, options):
    """`name(f, *args, **options)` (an operator or a preparation) with a container x or a
    function returning a tuple."""
    base = name.removeprefix("prepare_")
    bare = [a for a in args if not isinstance(a, (Constant, Cache, Output))]
    if len(bare) != 1:
        raise ArgumentError(f"exactly one argument must be bare (the input to differentiate "
                            f"with respect to); got {len(bare)}",
                            hint="wrap the others in Constant(...), Cache(...) or Output(...)")
    x = bare[0]
    container = pytrees.is_container(x)
    if base in _ARRAY_ONLY and not (container and base in _SECOND_ORDER) or (
            base in ("gradient", "value_and_gradient") and not container):
        what = (f"a {type(x).__name__} of parameters" if container
                else "a function returning a tuple")
        hint = ("a derivative takes a float x; use jacobian or gradient for a container"
                if container else "jacobian, pullback and pushforward take tuple outputs")
        raise ArgumentError(f"{base} takes a float or a float array x and a function returning "
                            f"a float or an array, got {what}", construct=base, hint=hint)
    tree = pytrees.treedef(x, "the input")
    prep = options.get("prep")
    backend = options.get("backend") or (prep.backend if prep is not None else "python")
    if name.startswith("prepare_"):
        return ContainerPrep(base, f, tree, backend)
    if prep is not None:
        if not isinstance(prep, ContainerPrep):
                raise PreparationMismatchError("this preparation is for an array or float input "
                                           "and output; the input is a container or f "
                                           "returns a tuple")
        prep.check(base, f, tree)
    mode, chunk = options.get("mode"), options.get("chunk")
    for option in ("memory", "sparse"):
        if options.get(option):
            raise ArgumentError(f"{option}= with a container input or a tuple output is not "
                                "supported", construct=option,
                                hint="pass the arrays as arguments of their own, or leave "
                                f"{option}= out")
    check_options(base.removeprefix("value_and_"), mode, chunk, options.get("backend"))
    out = options.get("out")
    if base in _SECOND_ORDER:
        position = next(i for i, a in enumerate(args) if a is x)
        second = ContainerSecondOrder(f, args, position, backend,
                                      _reverse_over_forward(base, mode, chunk, backend),
                                      with_gradient=base == "gradient_and_hvp",
                                      fall_back=mode is None)
        if base == "hvp":
            return _fill(out, second.hvp(options["tangent"], x))
        if base == "hessian":
            return _fill(out, second.hessian(x, chunk))
        return _gradient_and_hvp(second, f, args, backend, x, options["tangent"], out)
    run = _Runner(f, args, backend)
    if base in ("gradient", "value_and_gradient"):
        if mode == "forward":  # the jacobian's one row, by lanes of unit tangents
            value, grad = jacobian(run, x, "forward", out, chunk)
        else:
            value, grad = run.reverse(_target(x, out), seed=None)
        _check_float(value, base)
        return grad if base == "gradient" else (value, grad)
    if base == "pullback":
        return run.reverse(_target(x, out), seed=options["cotangent"])[1]
    if base == "pushforward":
        tangent = options["tangent"]
        if _several_tangents(x, tangent):  # lanes: one vector-mode call, a tuple of results
            for t in tangent:
                if container:
                    pytrees.check_congruent(x, t, "each tangent")
            results = tuple(run.forward_lanes(list(tangent)))
            if out is not None:
                return tuple(_fill(buffer, r) for buffer, r in zip(out, results))
            return results
        if container:
            pytrees.check_congruent(x, tangent, "the tangent")
        t = run.forward(tangent)
        if out is not None:
            for buffer, value in zip(out if type(t) is tuple else (out,),
                                     t if type(t) is tuple else (t,)):
                buffer[...] = value
            return out
        return t
    if base in ("jacobian", "value_and_jacobian"):
        value, jac = jacobian(run, x, mode, out, chunk)
        return jac if base == "jacobian" else (value, jac)
    raise ArgumentError(f"{base} does not take a container input or a tuple output",
                        construct=base)


def _gradient_and_hvp(second, f, args, backend, x, tangent, out):
    """(grad f, H v), containers like x (out=(g, hv): those, filled); the gradient by a
    reverse pass of f of its own where the second-order pass does not leave it."""
    if out is not None and not (isinstance(out, tuple) and len(out) == 2):
        raise ArgumentError("gradient_and_hvp takes out=(g, hv), two containers like x",
                            construct="out")
    outs = out if out is not None else (None, None)
    gradient, hv = second.gradient_and_hvp(tangent, x)
    if gradient is None:
        gradient = _Runner(f, args, backend).reverse(_target(x, outs[0]), seed=None)[1]
    return _fill(outs[0], gradient), _fill(outs[1], hv)


def _reverse_over_forward(operator, mode, chunk, backend) -> bool:
    """Does second order run as reverse over forward (numba's, or asked for), as for an array
    x? It takes one Hessian column per pass."""
    if second_order_mode(mode, backend) != REVERSE_OVER_FORWARD:
        return False
    if operator == "hessian" and chunk not in (None, 1):
        refuse_chunk_in_reverse_over_forward()
    return True


def _several_tangents(x, tangent) -> bool:
    """Is `tangent` a tuple or list of tangents (rather than one tangent like x)?"""
    if type(tangent) not in (tuple, list):
        return False
    if not pytrees.is_container(x):
        return True
    return pytrees.treedef(tangent) != pytrees.treedef(x)


def _check_float(value, operator):
    if not isinstance(value, (float, np.floating)):
        raise ArgumentError(f"{operator} needs f to return a float", hint="use jacobian")


def _target(x, out):
    """The shadow a reverse pass accumulates into: `out` zeroed (checked congruent), or fresh
    zeros like x (None for a float x: its derivative is returned)."""
    if not pytrees.is_container(x):
        if not isinstance(x, np.ndarray):
            return None
        if out is None:
            return np.zeros_like(x)
        if not isinstance(out, np.ndarray) or out.shape != x.shape:
            raise ArgumentError(f"out= must be an array of shape {x.shape}", construct="out")
        out.fill(0.0)
        return out
    if out is None:
        return pytrees.tree_zeros_like(x)
    pytrees.check_congruent(x, out, "out=")
    for path, leaf, given in zip(pytrees.paths(pytrees.treedef(x)), pytrees.leaves(out),
                                 pytrees.leaves(x)):
        if isinstance(given, np.ndarray) and given.dtype.kind == "f":
            if not isinstance(leaf, np.ndarray) or leaf.shape != given.shape:
                raise ArgumentError(f"out={pytrees.describe(path)} must be an array of shape "
                                    f"{given.shape}", construct="out")
            leaf.fill(0.0)
        elif isinstance(given, (float, np.floating)):
            pytrees.set_leaf(out, path, 0.0, "out=")
    return out


class _Runner:
    """autodiff calls of f with x annotated (a container or an array as Duplicated(x,
    shadow), a float as Active or Duplicated) and the contexts as annotations."""

    def __init__(self, f, args, backend):
        self.f, self.args, self.backend = f, args, backend
        self.x_position = next(i for i, a in enumerate(args)
                               if not isinstance(a, (Constant, Cache, Output)))
        self.outputs = [i for i, a in enumerate(args) if isinstance(a, Output)]

    def _annotated(self, x_annotation, output_shadow=None):
        annotated = []
        for i, a in enumerate(self.args):
            if i == self.x_position:
                annotated.append(x_annotation)
            elif isinstance(a, Constant):
                annotated.append(a.value)
            elif isinstance(a, Cache):
                annotated.append(Duplicated(a.value, np.zeros_like(a.value)))
            else:
                shadow = output_shadow if output_shadow is not None else np.zeros_like(a.value)
                annotated.append(Duplicated(a.value, shadow))
        return annotated

    def _x(self):
        """x with fresh copies of its arrays: every call of f starts from the x the caller
        gave, also when f writes its input (the jacobian calls f once per lane group)."""
        x = self.args[self.x_position]
        tree = pytrees.treedef(x)
        return pytrees.unflatten(tree, [v.copy() if isinstance(v, np.ndarray) else v
                                        for v in pytrees.leaves(x)])

    def reverse(self, shadow, seed):
        """(value, derivative): one reverse pass, the cotangent `seed` of the output (None:
        1.0); the derivative is `shadow` filled (the float for a float x)."""
        x = self._x()
        x_annotation = Active(x) if shadow is None else Duplicated(x, shadow)
        if self.outputs:  # f writes y: the cotangent is y's shadow
            cotangent = None if seed is None else np.array(seed, dtype=float)
            annotated = self._annotated(x_annotation, cotangent)
            derivatives, _ = autodiff(ReverseWithPrimal, self.f, *annotated,
                                      backend=self.backend)
            value = self.args[self.outputs[0]].value
        else:
            derivatives, value = autodiff(ReverseWithPrimal, self.f,
                                          *self._annotated(x_annotation), seed=seed,
                                          backend=self.backend)
        return value, float(derivatives[self.x_position]) if shadow is None else shadow

    def forward(self, tangent):
        """J v: the tangent of f's output (of the Output array it writes; a tuple for a
        tuple of values)."""
        x = self._x()
        if not pytrees.is_container(x) and not isinstance(x, np.ndarray):
            tangent = float(tangent)
        annotated = self._annotated(Duplicated(x, tangent))
        t = autodiff(Forward, self.f, *annotated, backend=self.backend)
        if self.outputs:
            return annotated[self.outputs[0]].shadow.copy()
        return t

    def forward_lanes(self, tangents):
        """J v for each tangent of `tangents` in one vector-mode call: a list of lane
        results (each a tuple for a tuple of values)."""
        if len(tangents) == 1:
            return [self.forward(tangents[0])]
        x = self._x()
        lanes = [float(t) for t in tangents] if not pytrees.is_container(x) and \
            not isinstance(x, np.ndarray) else list(tangents)
        annotated = []
        for i, a in enumerate(self.args):
            if i == self.x_position:
                annotated.append(BatchDuplicated(x, lanes))
            elif isinstance(a, Constant):
                annotated.append(a.value)
            else:  # Cache, Output: zero lanes (an Output's lanes are the result)
                annotated.append(BatchDuplicated(a.value, [np.zeros_like(a.value)
                                                           for _ in tangents]))
        batch = "unrolled" if self.backend == "numba" else None
        t = autodiff(Forward, self.f, *annotated, backend=self.backend, batch=batch)
        if self.outputs:
            shadows = annotated[self.outputs[0]].shadows
            return [np.array(shadows[k]) for k in range(len(tangents))]
        if type(t) is tuple:
            return [tuple(np.asarray(v)[k] for v in t) for k in range(len(tangents))]
        return [np.asarray(t)[k] for k in range(len(tangents))]

    def value(self):
        values = [a.value if isinstance(a, (Constant, Cache, Output)) else a for a in self.args]
        values[self.x_position] = self._x()
        result = self.f(*values)
        return values[self.outputs[0]] if self.outputs else result
