"""Containers the function reads from outside (a global or a closure cell holding a dict, list,
tuple, dataclass or NamedTuple): their entries are constants, each bound to a name of its own
(after inlining, before the container parameters are split).

`srcad.jvp(lambda t: f(t, H), ...)` with `H = {"K": K, "scale": 0.5}` reads `H` from the
enclosing scope, as JAX users close over parameters: JAX treats such a pytree as a constant.
Here each leaf the code reads (`H["K"]`, `H["scale"]`, also through an alias or a helper that
receives `H`, as srcad/transform/normalize/containers.py resolves a container parameter)
becomes a free name of the generated code (`H_K`), bound to the leaf in `extra` - read as
a global array or number is. The cache checks on every call that the name still holds the
container and the container still holds each leaf (rebinding `H["scale"] = 2.0` rebuilds the
code, like rebinding a global). A leaf may be a float, an int, a bool, None, a string or a
NumPy array; a container holding anything else, or read in a way the container parameters
are not (passed to a library call, indexed by a computed value), is left as it was: refused
as a value srcad cannot see into.

    H = {"a": A, "b": 3.0}                  ->   extra: H_a = A, H_b = 3.0
    return np.sum(np.sin(t) * H["a"]) * H["b"]  ->  return np.sum(np.sin(t) * H_a) * H_b
"""

from __future__ import annotations

import gast
import numpy as np

from srcad.errors import ArgumentError, UnsupportedSyntaxError
from srcad.frontend import syntax as S
from srcad.frontend.parse import resolve_callee
from srcad.frontend.pytrees import describe, get, is_container, leaves, paths, treedef
from srcad.transform.normalize.containers import _leaf_names, _Resolver, _tree_names
from srcad.transform.normalize.text_arguments import inline_literals

_LEAVES = (bool, int, float, str, np.ndarray, np.number, np.bool_, type(None))


def bind_free_containers(parsed, body: list, params: list, namer, extra: dict,
                         dependencies: list) -> list:
    """`body` with the reads of each container read from outside resolved to constant names
    bound in `extra` (`dependencies` gains the cache's checks of them); see the module
    docstring."""
    found = _free_containers(parsed, body, params, extra)
    if not found:
        return body
    for node in _nodes(body):
        if isinstance(node, gast.Name):
            namer.reserve(node.id)
    literals = {}  # the string and None leaves: read as literals (text_arguments.py)
    for name_, value in found.items():
        tree = treedef(value)
        node = _tree_names(tree, name_, namer)
        try:
            resolved = _Resolver(parsed).block(S.clone(body), {name_: node}, {})
        except UnsupportedSyntaxError:  # read as no container parameter is: refused as before
            continue
        body = resolved
        for leaf_name, path in zip(_leaf_names(node), paths(tree)):
            extra[leaf_name] = get(value, path)
            parsed.spellings[leaf_name] = name_ + describe(path, tree)
            dependencies.append((_Entries(value, path[:-1]), path[-1], extra[leaf_name]))
            if isinstance(extra[leaf_name], str) or extra[leaf_name] is None:
                literals[leaf_name] = extra[leaf_name]
        _refuse_writes(parsed, body, name_, set(_leaf_names(node)))
    return inline_literals(parsed, body, literals) if literals else body


def _refuse_writes(parsed, body, name_, leaves) -> None:
    """A write into the container from outside (in a helper it was passed to: the function's
    own writes are refused by srcad/analysis/global_writes.py) would be lost: refused."""
    for node in _nodes(body):
        if isinstance(node, gast.Name) and node.id in leaves \
                and not isinstance(node.ctx, gast.Load):
            raise parsed.error(
                node, "write to a global", f"`{parsed.spellings.get(node.id, node.id)}` is "
                f"written, and `{name_}` is defined outside the function: srcad reads such "
                "values as constants", kind=UnsupportedSyntaxError,
                hint="pass it as an argument and write it there, or make the write outside "
                "the differentiated function")


def _free_containers(parsed, body, params, extra) -> dict:
    """name -> container, for the names `body` reads but never binds that hold a container of
    constant leaves."""
    bound = set(params) | {n.id for n in _nodes(body) if isinstance(n, gast.Name)
                           and not isinstance(n.ctx, gast.Load)}
    found = {}
    for node in _nodes(body):
        if not (isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load)) \
                or node.id in bound or node.id in found:
            continue
        value = resolve_callee(parsed, node, extra)
        if value is None or not is_container(value):
            continue
        try:
            treedef(value)
        except ArgumentError:  # a dict with other keys than strings
            continue
        contents = leaves(value)
        if contents and all(isinstance(v, _LEAVES) for v in contents):
            found[node.id] = value
    return found


def _nodes(body):
    return (node for stmt in body for node in S.nodes(stmt))


class _Entries:
    """A part of a container, found from its root (`path`), as the cache reads a global's
    namespace: `get(key)` is its entry (a record's field) now, or `default` when it has none
    (a part replaced whole is read anew)."""

    def __init__(self, root, path):
        self.root, self.path = root, path

    def get(self, key, default=None):
        try:
            return get(self.root, self.path + (key,))
        except (KeyError, IndexError, AttributeError, TypeError):
            return default
