"""Check derivatives the way users should trust them: against central finite differences in
random directions (and, once forward mode exists, forward against reverse).

>>> import math
>>> def f(x, y):
...     return math.sin(x) * y
>>> check_grads(f, Active(0.3), Active(2.0))
"""

from __future__ import annotations

import copy
import math

import numpy as np

from srcad.annotations import (
    Active,
    Annotation,
    BatchDuplicated,
    Duplicated,
    Forward,
    ReverseWithPrimal,
)
from srcad.api.custom_rules import calling
from srcad.build.differentiate import autodiff
from srcad.errors import ArgumentError
from srcad.frontend import pytrees
from srcad.rules import lookup_call


def _is_float(leaf) -> bool:
    return isinstance(leaf, (float, np.floating)) or (isinstance(leaf, np.ndarray)
                                                      and leaf.dtype.kind == "f")


def _tree_map(fn, tree, *others):
    """fn over the float leaves of a container (others: containers of the same structure),
    other leaves kept; a plain value is one leaf."""
    if not pytrees.is_container(tree):
        return fn(tree, *others)
    rest = [pytrees.leaves(o) for o in others]
    out = [fn(leaf, *(r[k] for r in rest)) if _is_float(leaf) else leaf
           for k, leaf in enumerate(pytrees.leaves(tree))]
    return pytrees.unflatten(pytrees.treedef(tree), out)


def _tree_dot(a, b) -> float:
    """The sum of the elementwise products of the float leaves of a and b."""
    if not pytrees.is_container(a):
        return float(np.sum(a * b))
    return sum(float(np.sum(x * y)) for x, y in zip(pytrees.leaves(a), pytrees.leaves(b))
               if _is_float(x) and _is_float(y))


def _unwrap(arg):
    return arg.value if isinstance(arg, Annotation) else arg


def _call(f, values):
    """Run the primal on copies; return (scalar output, {position: output array})."""
    values = [copy.deepcopy(v) for v in values]
    out = f(*values)
    return out, values


CHECK_MODES = ("fwd", "rev", "vec")


def check_grads(f, *args, rtol=1e-6, atol=0.0, eps=1e-6, seed=0, directions=3,
                modes=("fwd", "rev", "vec"), backend="python"):
    """Check derivatives of `f` at `args` three ways, in random directions.

    Active scalars and Duplicated arrays are the inputs; the outputs are the float return
    value (if any) and the final contents of the Duplicated arrays. For input direction v and
    output weights u: <u, J v> by central finite differences, by forward mode, and by the
    vector mode (two lanes: v and 2v); <J^T u, v> by reverse mode. All must agree (the
    dot-product test). Raises AssertionError naming the disagreeing pair.

    Each mode's value `d` must satisfy |d - fd| <= rtol * max(|d|, |fd|) + fd_error + atol:
    relative to the size of the quantities compared (so a 10% error in a derivative of size
    1e-6 fails), plus the finite difference's own error, estimated from the function (its
    change from step eps to 2 eps, and its rounding at this step), never from the derivatives
    checked. The quantity compared is the whole <u, J v>: an error in a small part of a
    Jacobian whose other parts are large (an input array the function leaves as it is, whose
    identity block is in J) is judged against the whole; check such parts on their own.

    Args:
        f: the function to check.
        *args: its arguments, annotated: `Active` scalars and `Duplicated` arrays are the
            inputs, the others constants.
        rtol: the relative tolerance.
        atol: the absolute tolerance.
        eps: the finite-difference step.
        seed: the seed of the random directions.
        directions: the number of random directions.
        modes: the modes compared with finite differences: "fwd", "rev", "vec".
        backend: "python" or "numba".

    Returns:
        None; raises AssertionError naming the disagreeing pair.

    >>> import math, srcad
    >>> def f(x, y):
    ...     return x * math.sin(y)
    >>> check_grads(f, srcad.Active(2.0), srcad.Active(0.5))
    """
    unknown = [m for m in modes if m not in CHECK_MODES] if not isinstance(modes, str) else [modes]
    if unknown or not modes:  # an unknown name would leave that mode silently unchecked
        raise ArgumentError(f"check_grads checks modes {CHECK_MODES}, got modes={modes!r}",
                            construct="modes", hint="pass a tuple of 'fwd', 'rev' and 'vec'")
    rng = np.random.default_rng(seed)
    values = [_unwrap(a) for a in args]
    positions = [i for i, a in enumerate(args) if isinstance(a, (Active, Duplicated))]
    if not positions:
        raise ValueError("check_grads needs at least one Active or Duplicated argument")
    dup = [i for i in positions if isinstance(args[i], Duplicated)]
    out0, arrays0 = _call(f, values)
    scalar_out = isinstance(out0, (float, np.floating)) or (
        isinstance(out0, np.ndarray) and out0.dtype.kind == "f")
    for _ in range(directions):
        # a container's float leaves are directions; only its arrays are outputs (weighted)
        direction = {i: _tree_map(lambda v: rng.standard_normal(np.shape(v))
                                  if isinstance(v, np.ndarray) else float(rng.standard_normal()),
                                  values[i]) for i in positions}
        weights = {i: _tree_map(lambda v: rng.standard_normal(np.shape(v))
                                if isinstance(v, np.ndarray) else 0.0, values[i]) for i in dup}
        out_weight = (rng.standard_normal(np.shape(out0)) if isinstance(out0, np.ndarray)
                      else float(rng.standard_normal())) if scalar_out else 0.0
        if type(out0) is tuple:  # a tuple of values: one weight (reverse-mode seed) each
            out_weight = tuple(rng.standard_normal(np.shape(v)) if isinstance(v, np.ndarray)
                               else float(rng.standard_normal()) for v in out0)

        def probe(step, direction=direction, weights=weights, out_weight=out_weight):
            """(<u, f(x + step v)>, the sum of its terms' sizes)."""
            moved = list(values)
            for i in positions:
                moved[i] = _tree_map(lambda v, d: v + step * d, values[i], direction[i])
            out, arrays = _call(f, moved)
            terms = [out_weight * np.asarray(out, dtype=float)] if scalar_out else []
            if type(out) is tuple:
                terms = [w * np.asarray(v, dtype=float) for w, v in zip(out_weight, out)]
            terms += [w * a for i in dup for w, a in zip(pytrees.leaves(weights[i]),
                                                         pytrees.leaves(arrays[i]))
                      if isinstance(a, np.ndarray)]
            return (sum(float(np.sum(t)) for t in terms),
                    sum(float(np.sum(np.abs(t))) for t in terms))

        fd, fd_error = _central_difference(probe, eps)

        call_args = []
        shadows = {}
        for i, a in enumerate(args):
            v = copy.deepcopy(values[i])
            if isinstance(a, Duplicated):
                shadows[i] = _tree_map(lambda w: np.array(w, dtype=float)
                                       if isinstance(w, np.ndarray) else 0.0, weights[i])
                call_args.append(Duplicated(v, shadows[i]))
            elif isinstance(a, Active):
                call_args.append(Active(v))
            else:
                call_args.append(v)
        results = {"finite differences": fd}
        if "rev" in modes:
            derivs, value = autodiff(ReverseWithPrimal, f, *call_args,
                                     seed=out_weight if scalar_out or type(out0) is tuple
                                     else None, backend=backend)
            _same_primal(out0, arrays0, value, [_unwrap(a) for a in call_args],
                         exact=backend == "python")
            rev = 0.0
            for i in positions:
                grad = shadows[i] if i in dup else derivs[i]
                rev += _tree_dot(grad, direction[i])
            results["reverse <J^T u, v>"] = rev
        if "fwd" in modes:
            results["forward <u, J v>"] = _forward(f, args, values, positions, dup, direction,
                                                   weights, out_weight, scalar_out, None, backend)
        if "vec" in modes:
            lane_values = _forward(f, args, values, positions, dup, direction, weights,
                                   out_weight, scalar_out, 2, backend)
            results["vector lane 1"] = lane_values[0]
            results["vector lane 2 / 2"] = lane_values[1] / 2.0
        for label, value in results.items():
            if not agrees(value, fd, fd_error, rtol, atol):
                raise AssertionError(f"{label} = {value!r} disagrees with finite differences "
                                     f"{fd!r} (error bound {fd_error:.3g}) (all: {results})")


def agrees(value, fd, fd_error, rtol, atol) -> bool:
    """A derivative `value` agrees with the finite difference `fd` (of error `fd_error`)
    within `rtol` of the larger of the two, plus `atol`. NaN never agrees; where anything is
    infinite (a bound of inf would accept every value) only equal values agree.

    Args:
        value: the derivative checked.
        fd: the finite difference it is compared with.
        fd_error: the finite difference's estimated error.
        rtol: the tolerance relative to the larger of `value` and `fd`.
        atol: the absolute tolerance.

    Returns:
        True when they agree.

    >>> agrees(1.0 + 1e-9, 1.0, 0.0, 1e-6, 0.0), agrees(1.1, 1.0, 0.0, 1e-6, 0.0)
    (True, False)
    """
    if not (math.isfinite(value) and math.isfinite(fd) and math.isfinite(fd_error)):
        return value == fd
    return abs(value - fd) <= rtol * max(abs(value), abs(fd)) + fd_error + atol


def _central_difference(probe, eps):
    """(fd, error bound) of a central difference with step `eps`. The truncation error is
    O(eps^2), so the step-2eps difference is off by about four times as much: their gap
    bounds it. Rounding: each probe is off by ~machine epsilon times the size of its terms,
    divided by the step."""
    (plus, size_plus), (minus, size_minus) = probe(eps), probe(-eps)
    (plus2, size_plus2), (minus2, size_minus2) = probe(2 * eps), probe(-2 * eps)
    fd = (plus - minus) / (2 * eps)
    fd2 = (plus2 - minus2) / (4 * eps)
    size = max(size_plus, size_minus, size_plus2, size_minus2)
    rounding = 8 * np.finfo(float).eps * size / eps
    return fd, abs(fd2 - fd) + rounding


def _same_primal(out0, arrays0, value, arrays, exact=True):
    """The generated code must compute what the primal computes (value and every array it
    writes): a normalization bug shows here before any derivative is compared. Bit for bit in
    Python; to 1e-12 under numba (its x ** n is not CPython's)."""
    def same(a, b):
        if a is None and b is None:
            return True
        if type(a) is tuple or type(b) is tuple:  # a tuple return: element by element
            return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if exact:
            return np.array_equal(a, b, equal_nan=True)
        return a.shape == b.shape and np.allclose(a, b, rtol=1e-12, atol=1e-300, equal_nan=True)
    if not same(out0, value):
        raise AssertionError(f"generated code returns {value!r}, the primal {out0!r}")
    for k, (mine, theirs) in enumerate(zip(arrays, arrays0)):
        if isinstance(theirs, np.ndarray) and not same(mine, theirs):
            raise AssertionError(f"generated code leaves argument {k} as {mine!r}, the primal "
                                 f"as {theirs!r}")


def _forward(f, args, values, positions, dup, direction, weights, out_weight, scalar_out,
             lanes, backend):
    """<u, J v> by forward mode (lanes=None) or vector mode (lanes W: directions k*v)."""
    call_args, shadows = [], {}
    for i in range(len(args)):
        v = copy.deepcopy(values[i])
        if i not in positions:
            call_args.append(v)
        elif lanes is None:
            seed_ = (_tree_map(lambda d: np.array(d, dtype=float)
                               if isinstance(d, np.ndarray) else float(d), direction[i])
                     if i in dup else float(direction[i]))
            shadows[i] = seed_
            call_args.append(Duplicated(v, seed_))
        else:
            seeds = [_tree_map(lambda d, k=k: np.array((k + 1) * np.asarray(d), dtype=float)
                               if isinstance(d, np.ndarray) else float((k + 1) * d),
                               direction[i]) if i in dup
                     else float((k + 1) * direction[i]) for k in range(lanes)]
            shadows[i] = seeds
            call_args.append(BatchDuplicated(v, seeds))
    tangent = autodiff(Forward, f, *call_args, backend=backend)
    count = 1 if lanes is None else lanes
    totals = []
    for k in range(count):
        total = 0.0
        if scalar_out:
            t = tangent if lanes is None else tangent[k]
            total += float(np.sum(out_weight * t))
        elif type(out_weight) is tuple:  # a tuple of values: a tuple of tangents
            for w, t in zip(out_weight, tangent):
                total += float(np.sum(w * (t if lanes is None else t[k])))
        for i in dup:
            shadow = shadows[i] if lanes is None else shadows[i][k]
            total += sum(float(np.sum(w * t)) for w, t in zip(pytrees.leaves(weights[i]),
                                                              pytrees.leaves(shadow))
                         if isinstance(t, np.ndarray))
        totals.append(total)
    return totals[0] if lanes is None else totals


def check_rule(f, *args, rtol=1e-6, atol=0.0, eps=1e-6, seed=0, modes=None,
               backend="python"):
    """Check the derivative rule srcad has for `f` (a `srcad.custom_jvp` or `custom_vjp`
    function, or a library function srcad has a rule for) at `args` against central finite
    differences, in each mode the rule serves (a custom_vjp: reverse only), as JAX's
    `check_grads` does. Float and float-array arguments are differentiated; others are
    constants. Raises AssertionError naming the disagreeing mode.


    Args:
        f: a `custom_jvp`/`custom_vjp` function or a library function with a rule.
        *args: the arguments at which the rule is checked.
        rtol: the relative tolerance.
        atol: the absolute tolerance.
        eps: the finite-difference step.
        seed: the seed of the random directions.
        modes: the modes to check (every mode the rule serves when not given).
        backend: "python" or "numba".

    Returns:
        None; raises AssertionError naming the disagreeing mode.

    >>> import math
    >>> check_rule(math.exp, 0.5)
    """
    info = lookup_call(f)
    if info is None:
        raise ArgumentError(f"srcad has no derivative rule for {f!r}", construct="check_rule",
                            hint="define one with srcad.custom_jvp or srcad.custom_vjp")
    if modes is None:
        modes = ("rev",) if info.forward_refusal else CHECK_MODES
    annotated = [Active(float(a)) if isinstance(a, (float, np.floating))
                 else Duplicated(a, np.zeros_like(a)) if _is_float(a) else a for a in args]
    target = getattr(f, "__srcad_wrapped__", None) or calling(f, len(args))
    check_grads(target, *annotated, rtol=rtol, atol=atol, eps=eps, seed=seed, modes=modes,
                backend=backend)
