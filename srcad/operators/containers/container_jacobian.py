"""The jacobian of f with respect to a container x (a dict, list or tuple of float arrays and
floats, nested), or of a function returning a tuple.

Layout (JAX's `jacrev`/`jacfwd` of a pytree): a container like x whose leaf for an input leaf
of shape `s` has shape `output.shape + s` (a float for a float output and a float leaf), and,
for a tuple output, a tuple with one such container per value. JAX's layout rather than one
flat matrix: each block is addressed by the parameter it belongs to (`J["layers"][0]["W"]`),
no ordering convention to learn, and the leaves of x keep their shapes.

Forward mode seeds lanes of unit tangents, `chunk` of them per vector-mode call (16 by
default; `chunk=1` is one pass per input element); reverse mode runs one pass per output
element. Without `mode=`, forward when x has no more float elements than the output or when
`chunk=` is given.
"""

from __future__ import annotations

import numpy as np

from srcad.errors import ArgumentError
from srcad.frontend import pytrees
from srcad.operators.jacobian_mode import default_mode
from srcad.operators.operator_options import refuse_chunk_in_reverse

DEFAULT_CHUNK = 16


def _is_float(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    return isinstance(value, (float, np.floating))


def jacobian(run, x, mode, out, chunk=None):
    """(value, jacobian) of the runner `run` (srcad/operators/containers/container_operators.py) at
    x."""
    value = run.value()
    outputs = list(value) if type(value) is tuple else [value]
    out_shapes = [np.shape(v) for v in outputs]
    tree = pytrees.treedef(x)
    leaf_paths = pytrees.paths(tree)
    given = pytrees.leaves(x)
    floats = [k for k, v in enumerate(given) if _is_float(v)]
    blocks = [{k: np.zeros(o + np.shape(given[k])) for k in floats} for o in out_shapes]
    n = sum(int(np.size(given[k])) for k in floats)
    m = sum(int(np.prod(o)) for o in out_shapes)
    if mode not in (None, "forward", "reverse"):
        raise ArgumentError(f"unknown mode {mode!r}", hint="use 'forward' or 'reverse'")
    if mode is None and chunk is not None:
        mode = "forward"  # chunk= is the number of forward lanes per call
    # forward: chunks of unrolled lanes (the cost model's "unrolled" form); reverse: a sweep a row
    if (mode or default_mode(n, m, run.backend or "python", "unrolled")) == "forward":
        units = [(k, e) for k in floats for e in range(int(np.size(given[k])))]
        width = max(1, min(chunk or DEFAULT_CHUNK, len(units) or 1))
        for start in range(0, len(units), width):
            group = units[start:start + width]
            tangents = [_unit_tangent(x, tree, leaf_paths, given, k, e) for k, e in group]
            for (k, e), t in zip(group, run.forward_lanes(tangents)):
                for j, column in enumerate(t if type(value) is tuple else (t,)):
                    blocks[j][k].reshape(out_shapes[j] + (-1,))[..., e] = column
    else:
        if chunk is not None:
            refuse_chunk_in_reverse("jacobian")
        for j, shape in enumerate(out_shapes):
            for i in range(int(np.prod(shape))):
                seeds = [np.zeros(o) if o else 0.0 for o in out_shapes]
                if shape:
                    seeds[j].reshape(-1)[i] = 1.0
                else:
                    seeds[j] = 1.0
                seed = tuple(seeds) if type(value) is tuple else seeds[0]
                _, row = run.reverse(zeros_target(x), seed)
                rows = pytrees.leaves(row)
                for k in floats:
                    blocks[j][k].reshape((-1,) + np.shape(given[k]))[i] = rows[k]
    jacobians = []
    for j in range(len(outputs)):
        leaves = [blocks[j][k] if k in blocks[j] else given[k] for k in range(len(given))]
        leaves = [float(b) if isinstance(b, np.ndarray) and b.shape == () else b
                  for b in leaves]
        jacobians.append(pytrees.unflatten(tree, leaves))
    result = tuple(jacobians) if type(value) is tuple else jacobians[0]
    if out is None:
        return value, result
    return value, fill(out, result)


def zeros_target(x):
    """A fresh shadow for a reverse pass: zeros like x (None for a float x)."""
    if pytrees.is_container(x):
        return pytrees.tree_zeros_like(x)
    return np.zeros_like(x) if isinstance(x, np.ndarray) else None


def _unit_tangent(x, tree, leaf_paths, given, k, e):
    """A tangent like x, zero but for element e of leaf k."""
    if tree == pytrees.LEAF:
        if isinstance(x, np.ndarray):
            t = np.zeros_like(x)
            t.reshape(-1)[e] = 1.0
            return t
        return 1.0
    tangent = pytrees.tree_zeros_like(x)
    if isinstance(given[k], np.ndarray):
        pytrees.get(tangent, leaf_paths[k]).reshape(-1)[e] = 1.0
    else:
        pytrees.set_leaf(tangent, leaf_paths[k], 1.0)
    return tangent


def fill(out, result):
    """`out` (a container like `result`) filled with `result` in place; `result` itself when
    out is None."""
    if out is None:
        return result
    if isinstance(result, np.ndarray):
        out[...] = result
        return out
    pytrees.check_congruent(result, out, "out=")
    for path, leaf in zip(pytrees.paths(pytrees.treedef(result)), pytrees.leaves(result)):
        target = pytrees.get(out, path)
        if isinstance(target, np.ndarray) and target.shape == np.shape(leaf):
            target[...] = leaf
        else:
            pytrees.set_leaf(out, path, leaf, "out=")
    return out
