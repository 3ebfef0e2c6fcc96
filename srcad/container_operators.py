"""The operators with a container input x: a dict, list or tuple of float arrays and floats
(nested), as JAX users keep model parameters.

Every call is built on `autodiff` with `Duplicated(x, shadow)` (srcad/container_calls.py),
and every result has x's structure:

* `gradient`, `value_and_gradient`: the gradient is a container like x (reverse mode);
* `pullback`: u^T J, a container like x;
* `pushforward`: J v for a tangent v of x's structure; the result is shaped like f's output;
* `jacobian`, `value_and_jacobian`: a container like x whose leaf for an input leaf of shape
  `s` has shape `output.shape + s` (JAX's `jacrev` convention);
* `out=` is a container like the result, filled in place (its float entries are set in their
  dict or list) and returned.

Leaves that are not floats (ints, bools, None) are constants: their entries in a result are
copied from x. A preparation (`prepare_gradient(f, params)`) records x's structure and the
backend; a call with another structure raises `PreparationMismatchError`. hvp, hessian,
second_derivative and derivative take a float or an array x only.
"""

from __future__ import annotations

import numpy as np

from srcad import pytrees
from srcad.annotations import Cache, Constant, Duplicated, Forward, Output, ReverseWithPrimal
from srcad.errors import ArgumentError

_ARRAY_ONLY = ("hvp", "hessian", "second_derivative", "derivative")


def container_input(args) -> bool:
    """Is the one bare argument (x) a container?"""
    return any(type(a) in pytrees.CONTAINERS for a in args)


class ContainerPrep:
    """A preparation of an operator with a container x: its structure and backend."""

    def __init__(self, operator, f, tree, backend):
        self.operator, self.function, self.tree, self.backend = operator, f, tree, backend

    def check(self, operator, f, tree):
        from srcad.preparation import PreparationMismatchError  # noqa: PLC0415
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
    """`name(f, *args, **options)` (an operator or a preparation) with a container x."""
    base = name.removeprefix("prepare_")
    if base in _ARRAY_ONLY:
        raise ArgumentError(f"{base} takes a float or a float array x, got a "
                            f"{_kind(args)} of parameters", construct=base,
                            hint="gradient, jacobian, pullback and pushforward take "
                            "containers; for second derivatives concatenate the leaves "
                            "into one array (np.concatenate)")
    x = next(a for a in args if type(a) in pytrees.CONTAINERS)
    tree = pytrees.treedef(x, "the input")
    prep = options.get("prep")
    backend = options.get("backend") or (prep.backend if prep is not None else "python")
    if name.startswith("prepare_"):
        return ContainerPrep(base, f, tree, backend)
    if prep is not None:
        if not isinstance(prep, ContainerPrep):
            from srcad.preparation import PreparationMismatchError  # noqa: PLC0415
            raise PreparationMismatchError("this preparation is for an array or float input; "
                                           "the input is a container")
        prep.check(base, f, tree)
    mode, chunk = options.get("mode"), options.get("chunk")
    if chunk is not None:
        raise ArgumentError(f"chunk= with a container input: {base} runs one pass per "
                            "tangent or cotangent", construct="chunk", hint="leave chunk out")
    run = _Runner(f, args, backend)
    out = options.get("out")
    if base in ("gradient", "value_and_gradient"):
        if mode not in (None, "reverse"):
            raise ArgumentError(f"mode={mode!r}: the gradient with respect to a container is "
                                "computed in reverse mode", construct="mode",
                                hint="leave mode out")
        value, grad = run.reverse(_target(x, out), seed=None)
        _check_float(value, base)
        return grad if base == "gradient" else (value, grad)
    if base == "pullback":
        return run.reverse(_target(x, out), seed=options["cotangent"])[1]
    if base == "pushforward":
        tangent = options["tangent"]
        pytrees.check_congruent(x, tangent, "the tangent")
        t = run.forward(tangent)
        if out is not None:
            out[...] = t
            return out
        return t
    if base in ("jacobian", "value_and_jacobian"):
        value, jac = _jacobian(run, x, mode, out)
        return jac if base == "jacobian" else (value, jac)
    raise ArgumentError(f"{base} does not take a container input", construct=base)


def _kind(args):
    x = next(a for a in args if type(a) in pytrees.CONTAINERS)
    return type(x).__name__


def _check_float(value, operator):
    if not isinstance(value, (float, np.floating)):
        raise ArgumentError(f"{operator} needs f to return a float", hint="use jacobian")


def _target(x, out):
    """The shadow a reverse pass accumulates into: `out` zeroed (checked congruent), or a
    fresh container of zeros."""
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
    """autodiff calls of f with x as Duplicated(x, shadow) and the contexts as annotations."""

    def __init__(self, f, args, backend):
        self.f, self.args, self.backend = f, args, backend
        self.x_position = next(i for i, a in enumerate(args)
                               if type(a) in pytrees.CONTAINERS)
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
            elif isinstance(a, Output):
                shadow = output_shadow if output_shadow is not None else np.zeros_like(a.value)
                annotated.append(Duplicated(a.value, shadow))
            else:
                raise ArgumentError("exactly one argument must be bare (the input to "
                                    "differentiate with respect to)",
                                    hint="wrap the others in Constant(...), Cache(...) or "
                                    "Output(...)")
        return annotated

    def reverse(self, shadow, seed):
        """(value, shadow): one reverse pass, the cotangent `seed` of the output (None: 1.0)."""
        from srcad.api import autodiff  # noqa: PLC0415
        x = self.args[self.x_position]
        if self.outputs:  # f writes y: the cotangent is y's shadow
            cotangent = None if seed is None else np.array(seed, dtype=float)
            annotated = self._annotated(Duplicated(x, shadow), cotangent)
            autodiff(ReverseWithPrimal, self.f, *annotated, backend=self.backend)
            return self.args[self.outputs[0]].value, shadow
        annotated = self._annotated(Duplicated(x, shadow))
        _, value = autodiff(ReverseWithPrimal, self.f, *annotated, seed=seed,
                            backend=self.backend)
        return value, shadow

    def forward(self, tangent):
        """J v: the tangent of f's output (of the Output array it writes)."""
        from srcad.api import autodiff  # noqa: PLC0415
        x = self.args[self.x_position]
        annotated = self._annotated(Duplicated(x, tangent))
        t = autodiff(Forward, self.f, *annotated, backend=self.backend)
        if self.outputs:
            return annotated[self.outputs[0]].shadow.copy()
        return t

    def value(self):
        values = [a.value if isinstance(a, (Constant, Cache, Output)) else a for a in self.args]
        result = self.f(*values)
        return values[self.outputs[0]] if self.outputs else result


def _jacobian(run, x, mode, out):
    """(value, jacobian container): forward mode (one pass per input element) when x has no
    more elements than the output, else reverse (one pass per output element)."""
    value = run.value()
    out_shape = np.shape(value)
    tree = pytrees.treedef(x)
    leaf_paths = pytrees.paths(tree)
    given = pytrees.leaves(x)
    floats = [k for k, v in enumerate(given)
              if isinstance(v, (float, np.floating)) or (isinstance(v, np.ndarray)
                                                          and v.dtype.kind == "f")]
    blocks = {k: np.zeros(out_shape + np.shape(given[k])) for k in floats}
    n = sum(int(np.size(given[k])) for k in floats)
    m = int(np.prod(out_shape))
    if mode not in (None, "forward", "reverse"):
        raise ArgumentError(f"unknown mode {mode!r}", hint="use 'forward' or 'reverse'")
    if (mode or ("forward" if n <= m else "reverse")) == "forward":
        for k in floats:
            for e in range(int(np.size(given[k]))):
                tangent = pytrees.tree_zeros_like(x)
                if isinstance(given[k], np.ndarray):
                    pytrees.get(tangent, leaf_paths[k]).reshape(-1)[e] = 1.0
                else:
                    pytrees.set_leaf(tangent, leaf_paths[k], 1.0)
                column = np.asarray(run.forward(tangent), dtype=float)
                block = blocks[k].reshape(out_shape + (-1,))
                block[..., e] = column
    else:
        for i in range(m):
            seed = np.zeros(out_shape)
            seed.reshape(-1)[i] = 1.0
            _, row = run.reverse(pytrees.tree_zeros_like(x), seed if out_shape else 1.0)
            rows = pytrees.leaves(row)
            for k in floats:
                blocks[k].reshape((m,) + np.shape(given[k]))[i] = rows[k]
    blocks = {k: float(b) if b.shape == () else b for k, b in blocks.items()}
    result = [blocks[k] if k in blocks else given[k] for k in range(len(given))]
    if out is None:
        return value, pytrees.unflatten(tree, result)
    pytrees.check_congruent(x, out, "out=")
    for k in floats:
        target = pytrees.get(out, leaf_paths[k])
        if isinstance(target, np.ndarray) and target.shape == np.shape(blocks[k]):
            target[...] = blocks[k]
        else:
            pytrees.set_leaf(out, leaf_paths[k], blocks[k], "out=")
    return value, out
