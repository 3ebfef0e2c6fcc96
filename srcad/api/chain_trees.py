"""Composed transforms over parameter containers: `jacfwd(grad(f))(params, x)`,
`jvp(grad(f), (params,), (v,))`, `vjp(grad(f), params)` with `params` a dict, list, tuple,
NamedTuple or dataclass of floats and arrays, nested, laid out as JAX lays them out.

A container argument is flattened into its leaves (srcad/frontend/pytrees.py order: a dict's
by sorted key, as JAX), and a chain (srcad/api/chains.py) with respect to it becomes one
chain per leaf, over the flat arguments; srcad's generated code takes the leaves as its
arguments (level 0 is compiled with the containers' layout). The blocks are assembled as
JAX nests them: the structure of the derivative's base (a gradient has its argument's
structure), then, for each outer Jacobian innermost first, its argument's structure, each
leaf an array of shape base leaf + each argument leaf's shape.

Guarantees: without a container argument every call is `chains.evaluate` unchanged; a
tangent or cotangent whose structure differs from its primal's is refused, as is `grad` of a
derivative that is a container (JAX: grad needs a scalar output), and an integer leaf of a
differentiated container (integers have no derivative).
"""

from __future__ import annotations

import numpy as np

from srcad.api.chains import Chain, chain_source, evaluate
from srcad.errors import ArgumentError
from srcad.frontend import pytrees
from srcad.frontend.lambdas import function_name


class FlatArguments:
    """The arguments of a composed call with every container as its leaves: `flat`, the
    `layout` chains.evaluate takes, and for each position its flat indices and its
    structure (pytrees.LEAF for an argument that is not a container)."""

    def __init__(self, args):
        self.args = tuple(args)
        self.flat, layout, self.indices, self.trees = [], [], [], []
        for position, arg in enumerate(self.args):
            start = len(self.flat)
            if pytrees.is_container(arg):
                tree = pytrees.treedef(arg, f"argument {position}")
                layout.append((position, tree))
                self.flat.extend(pytrees.leaves(arg))
            else:
                tree = pytrees.LEAF
                self.flat.append(arg)
            self.trees.append(tree)
            self.indices.append(tuple(range(start, len(self.flat))))
        self.flat = tuple(self.flat)
        self.layout = tuple(layout)

    def check_differentiable(self, position: int, transform: str) -> None:
        """Every leaf of a differentiated container is a float or a float array."""
        if self.trees[position] == pytrees.LEAF:
            return
        for path, leaf in zip(pytrees.paths(self.trees[position]),
                              pytrees.leaves(self.args[position])):
            if not _is_float(leaf):
                where = pytrees.describe(path, self.trees[position])
                raise ArgumentError(f"{transform}: the entry {where} of argument {position} is "
                                    f"{type(leaf).__name__}, not a float or a float array: "
                                    "derivatives need floats (as in JAX)",
                                    hint="pass it as a separate argument that is not "
                                    "differentiated, or as a float")

    def flat_direction(self, tangents, transform: str) -> tuple:
        """One tangent per flat argument, from one per argument (a container's tangent has
        its structure)."""
        if len(tangents) != len(self.args):
            raise ArgumentError(f"{transform}: {len(tangents)} tangents for "
                                f"{len(self.args)} primals")
        out = []
        for position, (arg, tangent) in enumerate(zip(self.args, tangents)):
            tree = self.trees[position]
            if tree != pytrees.LEAF:
                if pytrees.treedef(tangent, f"tangent {position}") != tree:
                    raise ArgumentError(f"{transform}: tangent {position} has a structure "
                                        "other than its primal's", hint="give each "
                                        "tangent the primal's structure, as in JAX")
                pairs = zip(pytrees.leaves(arg), pytrees.leaves(tangent))
            else:
                pairs = [(arg, tangent)]
            for leaf, t in pairs:
                if np.shape(leaf) != np.shape(t):
                    raise ArgumentError(f"{transform}: a tangent has shape {np.shape(t)}, "
                                        f"its primal {np.shape(leaf)}")
                out.append(t)
        return tuple(out)


def _is_float(value) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    return isinstance(value, (float, np.floating))


def evaluate_tree(chain: Chain, args, direction=None, backend="python"):
    """`chains.evaluate` where arguments may be containers: the derivative nested as JAX
    nests it (see the module docstring)."""
    args = tuple(args)
    count = len(args)
    base = chain.base if chain.base in ("value", "vjp") else chain.base % count
    chain = Chain(chain.fun, base, tuple(i % count for i in chain.ops), chain.scalar_ops)
    if not any(pytrees.is_container(a) for a in args):
        return evaluate(chain, args, direction, backend)
    flat = FlatArguments(args)
    positions = ((base,) if base not in ("value", "vjp") else ()) + chain.ops
    for position in positions:
        flat.check_differentiable(position, "differentiating")
    shift = len(positions) - len(chain.ops)  # the base counts before the ops
    for k in chain.scalar_ops:
        below = positions[:k + shift]
        if any(flat.trees[p] != pytrees.LEAF for p in below):
            raise ArgumentError(f"grad of a derivative of {function_name(chain.fun, 'f')} that "
                                "is a dict, list or tuple: grad needs a float output, as in JAX",
                                hint="use jacfwd or jacrev for a container output")
    given = None if direction is None else flat.flat_direction(direction, "jvp")

    def nest(j, chosen):
        if j == len(positions):
            base_index = chosen[0] if shift else "value"
            flat_chain = Chain(chain.fun, base_index, tuple(chosen[shift:]),
                               chain.scalar_ops)
            return evaluate(flat_chain, flat.flat, given, backend, flat.layout)
        position = positions[j]
        blocks = [nest(j + 1, chosen + [i]) for i in flat.indices[position]]
        tree = flat.trees[position]
        return blocks[0] if tree == pytrees.LEAF else pytrees.unflatten(tree, blocks)

    return nest(0, [])


class ArgnumParts(tuple):
    """The derivatives of one derivative `prefix` along a tuple of argnums: JAX puts the
    tuple at each leaf of the prefix's value (`jacfwd(grad(f), argnums=(0, 1))(params, x)`
    is params' structure with a pair at each leaf)."""

    prefix: Chain

    def __new__(cls, parts, prefix):
        made = super().__new__(cls, parts)
        made.prefix = prefix
        return made


def map_structure(structure, function):
    """`function` at every chain of a composite's structure, its tuples kept."""
    if isinstance(structure, ArgnumParts):
        return ArgnumParts((map_structure(s, function) for s in structure), structure.prefix)
    if type(structure) is tuple:
        return tuple(map_structure(s, function) for s in structure)
    return function(structure)


def evaluate_structure(structure, args, direction=None, backend="python"):
    """Every chain of a composite's structure at `args` (along `direction`), the tuples of
    argnums put where JAX puts them."""
    if isinstance(structure, ArgnumParts):
        parts = [evaluate_structure(s, args, direction, backend) for s in structure]
        return _merged(_trees(structure.prefix, args), parts)
    if type(structure) is tuple:
        return tuple(evaluate_structure(s, args, direction, backend) for s in structure)
    return evaluate_tree(structure, args, direction, backend)


def _trees(chain: Chain, args) -> list:
    """The structures a chain's value nests: its base's (a gradient's argument), then each
    op's argument's, innermost first (pytrees.LEAF for an argument that is no container)."""
    positions = ((chain.base,) if chain.base not in ("value", "vjp") else ()) + chain.ops
    return [pytrees.treedef(args[p % len(args)]) if pytrees.is_container(args[p % len(args)])
            else pytrees.LEAF for p in positions]


def _merged(trees, parts):
    """One value nesting `trees` with, at each leaf, the tuple of the parts' entries there."""
    if not trees:
        return tuple(parts)
    tree, rest = trees[0], trees[1:]
    if tree == pytrees.LEAF:
        return _merged(rest, parts)
    return pytrees.unflatten(tree, [_merged(rest, [pytrees.get(p, path) for p in parts])
                                    for path in pytrees.paths(tree)])


def _split(trees, value, count):
    """The inverse of _merged: `count` values nesting `trees`, from one with a tuple at each
    leaf (a cotangent of a tuple of argnums)."""
    if not trees:
        if type(value) not in (tuple, list) or len(value) != count:
            raise ArgumentError(f"vjp: the cotangent needs a tuple of {count} entries where "
                                "f's output has one per argnum")
        return list(value)
    tree, rest = trees[0], trees[1:]
    if tree == pytrees.LEAF:
        return _split(rest, value, count)
    children = [_split(rest, _entry(value, path), count) for path in pytrees.paths(tree)]
    return [pytrees.unflatten(tree, [c[k] for c in children]) for k in range(count)]


def _entry(value, path):
    try:
        return pytrees.get(value, path)
    except (KeyError, IndexError, TypeError, AttributeError):
        raise ArgumentError("vjp: the cotangent's structure differs from f's output",
                            hint="give the cotangent the structure of f's output, as in "
                            "JAX") from None


def _nested_paths(trees) -> list:
    """The paths of the leaves of a value nesting `trees`."""
    if not trees:
        return [()]
    tree, rest = trees[0], trees[1:]
    inner = _nested_paths(rest)
    if tree == pytrees.LEAF:
        return inner
    return [p + q for p in pytrees.paths(tree) for q in inner]


def pulled(structure, jacobians, cotangent, args):
    """u^T J for every argument, summed over the outputs: `structure` the composite's
    (nested tuples, a chain at each leaf), `jacobians` the same with, at each chain, one
    derivative per argument (as evaluate_tree gives it), `cotangent` shaped like the
    value."""
    flat = FlatArguments(args)
    totals = [np.zeros(np.shape(leaf)) for leaf in flat.flat]

    def add(part, blocks, u):
        if isinstance(part, ArgnumParts):
            for p, b, v in zip(part, blocks, _split(_trees(part.prefix, args), u, len(part))):
                add(p, b, v)
            return
        if type(part) is tuple:
            if type(u) not in (tuple, list) or len(u) != len(part):
                raise ArgumentError(f"vjp: f returns a tuple of {len(part)} values; the "
                                    "cotangent must be a tuple of as many")
            for p, b, v in zip(part, blocks, u):
                add(p, b, v)
            return
        value_paths = _nested_paths(_trees(part, args))
        if len(value_paths) != len(pytrees.leaves(u)):
            raise ArgumentError("vjp: the cotangent's structure differs from f's output",
                                hint="give the cotangent the structure of f's output, "
                                "as in JAX")
        for position, block in enumerate(blocks):
            for path in value_paths:
                _contract(_entry(u, path), pytrees.get(block, path), flat, position, totals)

    add(structure, jacobians, cotangent)
    out = []
    for position in range(len(flat.args)):
        leaves = [float(totals[i]) if not isinstance(flat.flat[i], np.ndarray) else totals[i]
                  for i in flat.indices[position]]
        tree = flat.trees[position]
        out.append(leaves[0] if tree == pytrees.LEAF else pytrees.unflatten(tree, leaves))
    return tuple(out)


def _contract(u, block, flat, position, totals):
    """Add u . block into the totals of argument `position`'s leaves (`block`: the
    argument's structure, each leaf shaped u's shape + the leaf's)."""
    arg_tree = flat.trees[position]
    blocks = [block] if arg_tree == pytrees.LEAF else \
        [pytrees.get(block, path) for path in pytrees.paths(arg_tree)]
    for i, leaf_block in zip(flat.indices[position], blocks):
        ndim = np.ndim(leaf_block) - np.ndim(flat.flat[i])
        if np.ndim(u) != ndim or np.shape(u) != np.shape(leaf_block)[:ndim]:
            raise ArgumentError(f"vjp: the cotangent has shape {np.shape(u)}, f's output "
                                f"{np.shape(leaf_block)[:ndim]}")
        totals[i] += np.tensordot(np.asarray(u, dtype=float), leaf_block, axes=ndim)


def tree_source(chain: Chain, args, backend="python") -> str:
    """`chains.chain_source` where arguments may be containers."""
    flat = FlatArguments(args)
    count = len(args)
    base = chain.base if chain.base in ("value", "vjp") else flat.indices[chain.base % count][0]
    ops = tuple(flat.indices[i % count][0] for i in chain.ops)
    return chain_source(Chain(chain.fun, base, ops, chain.scalar_ops), flat.flat, backend,
                        flat.layout)
