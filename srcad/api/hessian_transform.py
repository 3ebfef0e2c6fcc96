"""`srcad.hessian`, both the operator and JAX's transform: `hessian(f, x, *contexts)` is the
Hessian at x (the operator form, srcad/operators/second_order.py), `hessian(f)` or
`hessian(f, argnums=...)` a function (the transform form).

The transform lays the Hessian out as `jax.hessian` does:

* one array argument: shape `x.shape + x.shape` (a float for a float argument);
* `argnums=(i, j, ...)`: nested tuples of blocks, `H[a][b]` of shape
  `args[i_a].shape + args[i_b].shape`;
* a dict, list or tuple of parameters: the pytree of pytrees (`H["w"]["b"]`), with tuples
  kept;
* an array-valued f: every block is prefixed by the output's shape (`out + in + in`).

A float f of one float or array argument runs the prepared forward-over-reverse operator
(reverse over forward on numba). Everything else differentiates the packed function
(srcad/api/packing.py: the arguments in argnums as one list) with the container Hessian,
which gives the blocks between arguments; an array-valued f is one such Hessian per output
element, of the output weighted by its unit vector.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from srcad.annotations import Constant
from srcad.api.argnums import check_argnums, looks_like_argnums, resolve_argnums, signature
from srcad.api.auxiliary import ValueOnly
from srcad.api.composed import composed, is_composed, mark
from srcad.api.packing import Packed, hessian_blocks, unpacked
from srcad.api.primals import as_lists, tree_copy
from srcad.api.transform_calls import bound, has_containers
from srcad.api.wrapping import wraps
from srcad.build.transform_outputs import in_input_dtype
from srcad.frontend import pytrees
from srcad.operators.hessian_operators import hessian as hessian_operator
from srcad.operators.hessian_operators import prepare_hessian

Argnums = int | Sequence[int]
_MEMO_SIZE = 32  # preparations and output shapes remembered per argument signature


def hessian(fun: Callable[..., Any], *args: Any, **options: Any) -> Any:
    """The Hessian of a function: as an operator or as a transform.

    * `hessian(f, x, *contexts, prep=None, out=None, chunk=None, backend="python")`, the
      operator form (one bare argument, the others `Constant`/`Cache`), is the Hessian of a
      float-valued f at x: an `(n, n)` array over x's C-ordered flattening.
    * `hessian(f, argnums=0, has_aux=False, backend="python")`, the transform form (JAX's
      `jax.hessian`), returns a function of f's arguments; the layout is JAX's (module
      docstring): `x.shape + x.shape` for an array, nested tuples for a tuple argnums,
      pytrees of pytrees for parameters in a dict, list or tuple, the output's shape first
      for an array-valued f. With `has_aux=True` the result is `(H, aux)`.

    Both run srcad's forward mode over its own reverse code on the python backend, and
    srcad's numba reverse mode over its own forward code on numba (reverse over forward).

    Args:
        fun: a plain Python function srcad can differentiate.
        *args: the operator form: the point x, then `Constant`/`Cache` contexts; the
            transform form: nothing, or `argnums`.
        **options: the operator form: `prep`, `out`, `chunk`, `backend`; the transform
            form: `argnums`, `has_aux`, `backend`.

    Returns:
        The operator form: the `(n, n)` Hessian at x (a float for a float x). The transform
        form: a function of fun's arguments returning the Hessian in JAX's layout.

    >>> import numpy as np
    >>> def f(x):
    ...     return x[0] ** 2 * x[1]
    >>> hessian(f)(np.array([1.0, 3.0]))
    array([[6., 2.],
           [2., 0.]])
    >>> hessian(f, np.array([1.0, 3.0]))
    array([[6., 2.],
           [2., 0.]])
    >>> def g(x, y):
    ...     return x * x * y
    >>> hessian(g, argnums=(0, 1))(3.0, 2.0)
    ((4.0, 6.0), (6.0, 0.0))
    """
    if not args or (len(args) == 1 and looks_like_argnums(args[0])):
        # no point given (an int or a tuple of ints is never an operator's input)
        return _hessian_transform(fun, *args, **options)
    return hessian_operator(fun, *args, **options)


def _hessian_transform(fun: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False,
                       *, backend: str = "python") -> Callable[..., Any]:
    if is_composed(fun):
        return composed("hessian", fun, argnums, has_aux, backend)
    positions = check_argnums("hessian", argnums)
    value_only = ValueOnly(fun, "hessian") if has_aux else None
    preparations = {}  # argument signature -> the operator's preparation
    output_shapes = {}  # argument signature -> the shape of f's output
    packer = Packed()
    # a container among the arguments not differentiated (a dict of settings): srcad's
    # forward code over its reverse code, every argument flattened (srcad/api/chain_trees.py)
    over_leaves = functools.cache(lambda: composed("hessian", fun, argnums, has_aux, backend))

    @wraps(fun)
    def hessian_of_fun(*args, **kwargs):
        if any(pytrees.is_container(a) for i, a in enumerate(args)
               if i not in resolve_argnums(argnums, positions, len(args))):
            return over_leaves()(*args, **kwargs)
        target, args, aux, wrt, values = bound(fun, "hessian", argnums, positions, value_only,
                                               args, kwargs)
        key = signature(args)
        if key not in output_shapes:
            if len(output_shapes) >= _MEMO_SIZE:
                output_shapes.clear()
            output_shapes[key] = np.shape(target(*tree_copy(args)))  # f may write x
        out_shape = output_shapes[key]
        if len(wrt) == 1 and not out_shape and not has_containers(values):
            H = _one_argument(target, args, wrt[0], preparations, key, backend)
            H = H if isinstance(argnums, int) else ((H,),)
        elif len(wrt) == 1 and isinstance(argnums, int):
            H = _of_one(packer, target, args, wrt[0], out_shape, backend)
        else:
            H = _packed(packer, target, args, wrt, values, out_shape, backend)
        return (H, aux) if value_only else H

    return mark(hessian_of_fun, "hessian", fun, argnums, has_aux)


def _one_argument(target, args, i, preparations, key, backend):
    """The Hessian of a float f with respect to one float or array argument: the prepared
    operator, reshaped to x.shape + x.shape."""
    operands = [a if j == i else Constant(a) for j, a in enumerate(args)]
    if key not in preparations:
        if len(preparations) >= _MEMO_SIZE:
            preparations.clear()
        preparations[key] = prepare_hessian(target, *operands, backend=backend)
    H = hessian_operator(target, *operands, prep=preparations[key], backend=backend)
    if not isinstance(args[i], np.ndarray):
        H = float(np.reshape(H, -1)[0])
    else:
        H = H.reshape(np.shape(args[i]) * 2)
    return in_input_dtype(H, args[i])


def _packed(packer, target, args, wrt, values, out_shape, backend):
    """JAX's nested tuples of blocks (srcad/api/packing.py), each prefixed by the output's
    shape."""
    def blocks(weights):
        function = packer.function(target, len(args), wrt, weighted=weights is not None)
        operands = Packed.operands(args, wrt, weights)
        return hessian_blocks(hessian_operator(function, *operands, backend=backend), values)

    return _by_output(blocks, out_shape)


def _of_one(packer, target, args, i, out_shape, backend):
    """argnums=i with a dict, list or tuple of parameters, or an array-valued f: the
    argument's structure of its structures of blocks (no packing: a refusal names the
    user's function)."""
    given = args[i]
    tree = pytrees.treedef(given) if pytrees.is_container(given) else None

    def blocks(weights):
        function = target if weights is None else packer.weighted(target, len(args))
        operands = [as_lists(a) if j == i else Constant(a) for j, a in enumerate(args)]
        H = hessian_operator(function, *operands, *(
            [Constant(weights)] if weights is not None else []), backend=backend)
        if tree is None:
            return H.reshape(np.shape(given) * 2) if isinstance(given, np.ndarray) \
                else float(np.reshape(H, -1)[0])
        return pytrees.unflatten(tree, [unpacked(pytrees.get(H, path), given)
                                        for path in pytrees.paths(pytrees.treedef(
                                            as_lists(given)))])

    return _by_output(blocks, out_shape)


def _by_output(blocks, out_shape):
    """`blocks(None)` for a float f; for an array f, `blocks(e_k)` for each output element k
    stacked, every leaf prefixed by the output's shape."""
    if not out_shape:
        return blocks(None)
    m = int(np.prod(out_shape))
    slices = []
    for k in range(m):  # the Hessian of output element k: the output weighted by e_k
        weights = np.zeros(m)
        weights[k] = 1.0
        slices.append(blocks(weights.reshape(out_shape)))
    tree = pytrees.treedef(slices[0])
    columns = zip(*(pytrees.leaves(s) for s in slices))
    leaves = [np.array(column, dtype=float).reshape(out_shape + np.shape(column[0]))
              for column in columns]
    return pytrees.unflatten(tree, leaves)
