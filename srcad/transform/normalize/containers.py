"""Container parameters (a dict, list or tuple of arrays and floats) become one parameter
per leaf (after inlining, before tuple locals are split).

A parameter `params` passed as a container (srcad/frontend/pytrees.py gives its structure) is
replaced by its leaves `params_w, params_b, ...`, and every read of it resolves to a leaf:

* `params["w"]`, `params[0]`, `params[-1]`, nested (`params["layers"][1]["W"]`), followed by
  whatever indexes the leaf (`params["w"][i]`, `params["W"][i, j] = ...` writes the leaf);
* an alias `layer = params["layers"][0]` (also what inlining makes of `helper(params, x)` and
  of unpacking, `w, b = params`), read the same way until it is rebound;
* `len(...)` of a container: a constant;
* `for i in range(len(layers))` whose body indexes a container by `i` (also what `for layer in
  layers` becomes) is unrolled, one copy of the body per element.

Any other use (passing the container to a library call, indexing it by a computed value,
iterating over a dict) is refused with its line: there is no container in the generated code.
"""

from __future__ import annotations

import gast

from srcad.errors import UnsupportedSyntaxError
from srcad.frontend import syntax as S
from srcad.frontend.pytrees import BOXED, LEAF, describe, is_record_kind, paths
from srcad.transform.names import Namer
from srcad.transform.normalize.lists import _exits_loop

_HINT = ("read a container argument's entries by constant keys and indices (params['w'], "
         "params[0]), pass it to your own functions, or loop over it: for layer in layers")


class _Node:
    """A container (or part of one) as the code sees it: kind, keys, children (a leaf's
    parameter name, or a nested _Node)."""

    def __init__(self, kind, keys, children):
        self.kind, self.keys, self.children = kind, keys, children

    @property
    def record(self) -> bool:
        """A dataclass or NamedTuple: its fields read as attributes (a NamedTuple's also by
        position)."""
        return is_record_kind(self.kind)

    def child(self, key):
        if self.record and type(key) is str:
            return self.children[self.keys.index(key)] if key in self.keys else None
        if self.record and not issubclass(self.kind[1], tuple):
            return None  # a dataclass is not indexed
        if self.kind == "dict":
            if type(key) is str and key in self.keys:
                return self.children[self.keys.index(key)]
            return None
        if type(key) is int and -len(self.keys) <= key < len(self.keys):
            return self.children[key % len(self.keys)]
        return None


class _Boxed(str):
    """The parameter name of a float leaf passed in a one-element array: read as name[0]."""


def _tree_names(tree, base, namer, path=()):
    if tree in (LEAF, BOXED):
        suffix = "_".join(str(k) for k in path)
        name_ = namer.fresh(f"{base}_{suffix}" if suffix else base)
        return _Boxed(name_) if tree == BOXED else name_
    kind, keys, children = tree
    return _Node(kind, list(keys), [_tree_names(c, base, namer, path + (k,))
                                    for k, c in zip(keys, children)])


def split_container_params(parsed, body: list, params: list, containers, namer: Namer):
    """(body with the container parameters' reads resolved, the flat parameter list).
    `containers`: (position, treedef) for each container parameter."""
    if not containers:
        return body, params
    env, flat = {}, []
    layout = dict(containers)
    for position, name_ in enumerate(params):
        if position in layout:
            node = _tree_names(layout[position], name_, namer)
            env[name_] = node
            flat.extend(_leaf_names(node))
            for leaf, path in zip(_leaf_names(node), paths(layout[position])):
                parsed.spellings[leaf] = name_ + describe(path, layout[position])
        else:
            flat.append(name_)
    return _Resolver(parsed).block(body, env, {}), flat


def _leaf_names(node):
    if isinstance(node, str):
        return [str(node)]
    return [n for c in node.children for n in _leaf_names(c)]


class _Resolver:
    def __init__(self, parsed):
        self.parsed = parsed
        self.current = None  # the statement being resolved (errors point at it)

    def error(self, node, message, hint=_HINT):
        if getattr(node, "lineno", None) is None:  # made by srcad: its statement's line
            node = self.current
        return self.parsed.error(node, "container", message, hint=hint,
                                 kind=UnsupportedSyntaxError)

    # -- statements --------------------------------------------------------------------------
    def block(self, stmts, env, ints) -> list:
        out = []
        for stmt in stmts:
            out.extend(self.stmt(stmt, env, ints))
        return out

    def stmt(self, stmt, env, ints) -> list:
        self.current = stmt
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name):
            target = stmt.targets[0].id
            found = self.resolve(stmt.value, env, ints)
            if isinstance(found, _Node):
                env[target] = found  # an alias: its reads resolve, the assignment goes
                return []
            env.pop(target, None)
            ints.pop(target, None)
            stmt.value = self.expr(stmt.value, env, ints)
            if isinstance(stmt.value, gast.Constant) and type(stmt.value.value) is int:
                ints[target] = stmt.value.value
            return [stmt]
        if isinstance(stmt, gast.For):
            return self.loop(stmt, env, ints)
        if isinstance(stmt, (gast.If, gast.While)):
            stmt.test = self.expr(stmt.test, env, ints)
            self._refuse_rebinding(stmt, env)
            stmt.body = self.block(stmt.body, dict(env), dict(ints))
            stmt.orelse = self.block(stmt.orelse, dict(env), dict(ints))
            return [stmt]
        if isinstance(stmt, gast.Return) and stmt.value is not None and isinstance(
                self.resolve(stmt.value, env, ints), _Node):
            raise self.error(stmt, "returning a container argument is not supported",
                             hint="return a float or an array")
        for name_ in S.bound_names(stmt):
            env.pop(name_, None)
            ints.pop(name_, None)
        return [self.expr(stmt, env, ints)]

    def loop(self, stmt, env, ints) -> list:
        count = self._unrollable(stmt, env, ints)
        stmt.iter = self.expr(stmt.iter, env, ints)
        if count is None:
            self._refuse_rebinding(stmt, env)
            inner_ints = {k: v for k, v in ints.items() if k not in S.bound_names(stmt)}
            stmt.body = self.block(stmt.body, dict(env), inner_ints)
            stmt.orelse = self.block(stmt.orelse, dict(env), dict(ints))
            return [stmt]
        if _exits_loop(stmt.body) or stmt.orelse:
            raise self.error(stmt, "a loop over a container argument with break, continue or "
                             "else is not supported", hint="loop without break/continue")
        index = stmt.target.id
        out = []
        for k in range(count):  # the body once per element, the index a constant
            out.append(S.assign(S.name(index, store=True), S.const(k)))
            ints[index] = k
            env.pop(index, None)
            out.extend(self.block(S.clone(stmt.body), env, ints))
        return out

    def _unrollable(self, stmt, env, ints):
        """The trip count of `for i in range(n)` when n is constant and the body indexes a
        container by i, else None."""
        it = stmt.iter
        if not (isinstance(stmt.target, gast.Name) and isinstance(it, gast.Call)
                and isinstance(it.func, gast.Name) and it.func.id == "range"
                and len(it.args) == 1 and not it.keywords):
            return None
        index = stmt.target.id
        uses = any(isinstance(n, gast.Subscript) and isinstance(n.slice, gast.Name)
                   and n.slice.id == index and self._container_expr(n.value, env)
                   for s in stmt.body for n in gast.walk(s))
        if not uses:
            return None
        count = self.expr(it.args[0], env, ints)
        if isinstance(count, gast.Name) and count.id in ints:
            return ints[count.id]
        if isinstance(count, gast.Constant) and type(count.value) is int:
            return count.value
        return None

    def _container_expr(self, expr, env) -> bool:
        """Does `expr` start from a container name (before its index is known)?"""
        while isinstance(expr, (gast.Subscript, gast.Attribute)):
            expr = expr.value
        return isinstance(expr, gast.Name) and expr.id in env

    def _refuse_rebinding(self, stmt, env):
        """A container alias bound inside a branch or a loop that is not unrolled would be
        one container on some paths and another on others."""
        for s in stmt.body + stmt.orelse:
            for node in gast.walk(s):
                if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(
                        node.targets[0], gast.Name) and node.targets[0].id in env:
                    value = node.value
                    if self._container_expr(value, env):
                        continue  # an alias inside the block: resolved there
                    raise self.error(node, f"`{node.targets[0].id}` names a container "
                                     "argument and is rebound inside a branch or loop",
                                     hint="use another name for the new value")

    # -- expressions -------------------------------------------------------------------------
    def resolve(self, expr, env, ints):
        """The container part or leaf name `expr` denotes, or None when it is no read of a
        container."""
        if isinstance(expr, gast.Name) and isinstance(expr.ctx, gast.Load):
            return env.get(expr.id)
        if isinstance(expr, gast.Attribute):
            found = self.resolve(expr.value, env, ints)
            if not isinstance(found, _Node):
                return None
            part = found.child(expr.attr) if found.record else None
            if part is None:
                what = (f"the {found.kind[1].__name__} argument has no field `{expr.attr}`"
                        f" (its fields: {', '.join(found.keys)})" if found.record else
                        f"`.{expr.attr}` of a {found.kind} argument is not supported")
                raise self.error(expr, what)
            if isinstance(expr.ctx, gast.Store):
                raise self.error(expr, f"`{S.unparse_expr(expr)}` assigns a field of a "
                                 "parameter record", hint="bind a new name: W = layer.W + d")
            return found.child(expr.attr)
        if isinstance(expr, gast.Subscript):
            found = self.resolve(expr.value, env, ints)
            if not isinstance(found, _Node):
                return None
            # `params["b"][1]` reaches here as params["b", 1]: keys, then the leaf's index
            index = expr.slice.elts if isinstance(expr.slice, gast.Tuple) else [expr.slice]
            for k, element in enumerate(index):
                if isinstance(found, _Boxed):
                    raise self.error(expr, "a float entry of a container is indexed",
                                     hint="index arrays only")
                if isinstance(found, str):
                    rest = index[k:]
                    return gast.Subscript(value=S.name(found), slice=rest[0] if len(rest) == 1
                                          else gast.Tuple(elts=rest, ctx=gast.Load()),
                                          ctx=expr.ctx)
                key = self._key(element, ints)
                part = found.child(key)
                if part is None and found.kind == "dict" and type(key) is int:
                    keys = ", ".join(f"[{k!r}]" for k in found.keys)
                    raise self.error(expr, "a dict argument is read by constant string keys; "
                                     "iterating over it (for key in params) or indexing it "
                                     "by position is not supported",
                                     hint=f"write its entries out: {keys}")
                if part is None:
                    what = "key" if found.kind == "dict" else "index"
                    raise self.error(expr, f"the container {what} {S.unparse_expr(element)} "
                                     "is not a constant of the container" +
                                     (f" (its keys: {', '.join(found.keys)})"
                                      if found.kind == "dict" else
                                      f" (length {len(found.keys)})"))
                found = part
            return found
        return None

    def _key(self, index, ints):
        if isinstance(index, gast.Constant) and type(index.value) in (int, str):
            return index.value
        if isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.USub) \
                and isinstance(index.operand, gast.Constant) \
                and type(index.operand.value) is int:
            return -index.operand.value
        if isinstance(index, gast.Name) and index.id in ints:
            return ints[index.id]
        return None

    def expr(self, node, env, ints):
        return _Rewriter(self, env, ints).visit(node)


class _Rewriter(gast.NodeTransformer):
    def __init__(self, resolver, env, ints):
        self.resolver, self.env, self.ints = resolver, env, ints

    def visit_Subscript(self, node):
        found = self.resolver.resolve(node, self.env, self.ints)
        if isinstance(found, _Boxed):
            return gast.copy_location(gast.Subscript(value=S.name(str(found)), slice=S.const(0),
                                                     ctx=node.ctx), node)
        if isinstance(found, str):
            return gast.copy_location(S.name(found, store=isinstance(node.ctx, gast.Store)), node)
        if isinstance(found, _Node):
            raise self.resolver.error(node, "a part of a container argument is used whole here")
        if isinstance(found, gast.Subscript):  # a leaf indexed further
            found.slice = self.visit(found.slice)
            return gast.copy_location(found, node)
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node):
        found = self.resolver.resolve(node, self.env, self.ints)
        if isinstance(found, _Boxed):
            return gast.copy_location(gast.Subscript(value=S.name(str(found)), slice=S.const(0),
                                                     ctx=node.ctx), node)
        if isinstance(found, str):
            return gast.copy_location(S.name(found, store=isinstance(node.ctx, gast.Store)), node)
        if isinstance(found, _Node):
            raise self.resolver.error(node, "a part of a container argument is used whole here")
        self.generic_visit(node)
        return node

    def visit_Call(self, node):
        if isinstance(node.func, gast.Name) and node.func.id == "len" and len(node.args) == 1:
            found = self.resolver.resolve(node.args[0], self.env, self.ints)
            if isinstance(found, _Node):
                return gast.copy_location(S.const(len(found.keys)), node)
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if node.id in self.env:
            raise self.resolver.error(node, f"`{node.id}` is a container argument used whole "
                                      "here")
        return node

