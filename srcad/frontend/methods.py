"""A bound method (`model.loss`) as the differentiated function: its `self` is a constant.

`srcad.grad(model.loss)(w)` differentiates the method's source with respect to its other
arguments. `self` is no parameter of the parsed function: each read `self.attr` (also
`self.a.b`, attributes of attributes) becomes a name bound to the attribute's current value,
read as a global is, and the cache checks on every call that the attribute still holds that
object (rebinding `model.scale = 3.0` rebuilds the code, like rebinding a global). A method of
`self` called (`self.predict(x)`) is itself a bound method and is inlined the same way.
Writing an attribute of `self` (`self.count += 1`) or into one (`self.A[0] = v`), passing
`self` on whole, or reading an attribute that is not a number, an array or a method is
refused by line: the generated code has no object. A module-level object's method called
inside f (`MODEL.loss(w)`, srcad/frontend/parse.py `resolve_callee`) is such a bound method.
"""

from __future__ import annotations

import types

import gast

from srcad.errors import UnsupportedSyntaxError

_HINT = ("read self's attributes, or pass the value that changes as an argument; a method "
         "that updates self can return the new value and let its caller assign it")


def is_method(func) -> bool:
    """Is `func` a method bound to an instance whose function srcad can parse?"""
    return isinstance(func, types.MethodType) and isinstance(func.__func__, types.FunctionType) \
        and not isinstance(func.__self__, type)


def bind_self(parsed, method) -> None:
    """`parsed` (the method's function, parsed) made a function of the other parameters:
    `self` dropped, its attribute reads resolved to constants (see the module docstring)."""
    tree = parsed.tree
    params = tree.args.args
    if not params:
        raise parsed.error(tree, "method", "the method takes no `self` parameter",
                           kind=UnsupportedSyntaxError, hint="make it a staticmethod")
    self_name = params[0].id
    tree.args.args = params[1:]
    _Resolve(parsed, self_name, method.__self__).visit(tree)


class _Resolve(gast.NodeTransformer):
    def __init__(self, parsed, self_name, obj):
        self.parsed, self.self_name, self.obj = parsed, self_name, obj
        self.names: dict = {}  # attribute path -> the name bound to it

    def visit_Attribute(self, node):
        path = self._path(node)
        if path is None:
            self.generic_visit(node)
            return node
        if not isinstance(node.ctx, gast.Load):
            raise self._error(node, f"`{self.self_name}.{'.'.join(path)}` is assigned: a "
                              "method that changes its object while it is differentiated is "
                              "not supported")
        owner, value = self.obj, self.obj
        for attr in path:
            owner = value
            try:
                value = getattr(value, attr)
            except AttributeError:
                raise self._error(node, f"`{self.self_name}` has no attribute "
                                  f"`{'.'.join(path)}`") from None
        name_ = self.names.get(path)
        if name_ is None:
            name_ = self._fresh("_".join((self.self_name,) + path))
            self.names[path] = name_
            self.parsed.namespace[name_] = value
            self.parsed.spellings[name_] = ".".join((self.self_name,) + path)
            if isinstance(owner.__dict__ if hasattr(owner, "__dict__") else None, dict) \
                    and path[-1] in vars(owner):
                self.parsed.inlined_reads.append((vars(owner), path[-1], value))
        return gast.copy_location(gast.Name(id=name_, ctx=gast.Load(), annotation=None,
                                            type_comment=None), node)

    def visit_Subscript(self, node):
        """`self.A[0] = v` (or `+=`, `del`) writes into self's array: refused like an
        attribute assigned."""
        base = node
        while isinstance(base, gast.Subscript):
            base = base.value
        path = self._path(base) if isinstance(base, gast.Attribute) else None
        if path is not None and not isinstance(node.ctx, gast.Load):
            raise self._error(node, f"`{self.self_name}.{'.'.join(path)}` is written into: a "
                              "method that changes its object while it is differentiated is "
                              "not supported")
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if node.id == self.self_name:
            if isinstance(node.ctx, gast.Load):
                raise self._error(node, f"`{self.self_name}` is used whole here: srcad reads "
                                  "its attributes as constants, and has no object to pass on")
            raise self._error(node, f"`{self.self_name}` is rebound")
        return node

    def _path(self, node):
        """('a', 'b') for `self.a.b`, or None when `node` reads no attribute of self."""
        attrs = []
        while isinstance(node, gast.Attribute):
            attrs.append(node.attr)
            node = node.value
        if isinstance(node, gast.Name) and node.id == self.self_name:
            return tuple(reversed(attrs))
        return None

    def _fresh(self, base):
        taken = {n.id for n in gast.walk(self.parsed.tree) if isinstance(n, gast.Name)}
        candidate, k = base, 1
        while candidate in taken or candidate in self.parsed.namespace:
            k += 1
            candidate = f"{base}_{k}"
        return candidate

    def _error(self, node, message):
        return self.parsed.error(node, "method", message, kind=UnsupportedSyntaxError,
                                 hint=_HINT)
