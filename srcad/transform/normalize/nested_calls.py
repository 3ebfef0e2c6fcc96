"""Calls of srcad's own gradient API inside a differentiated function, rewritten into the
nested-gradient primitive of srcad/operators/nested.py (runs after `lower`, before the fence).
Enzyme-style `srcad.autodiff(...)` and JAX's `srcad.jvp(...)` calls are rewritten by
nested_autodiff.py.

* `srcad.grad(g)(a0, ..., an)` and `srcad.grad(g, argnums=i)(...)` (i an int literal);
* `srcad.gradient(g, x, Constant(p), ...)` (the bare argument is x, the `Constant`s are the
  other arguments of g, in order)

become `srcad_nested_gradient(token, <the differentiated argument>, <the others in order>)`,
whose rule differentiates the inner gradient by forward over reverse of g. g must be a plain
function the name resolves to (module level or imported): a function defined inside the
differentiated one reads its variables through its closure, which the primitive cannot see,
so it is refused with a rewrite hint. Every other srcad transform or operator called inside a
differentiated function is refused here, by name, instead of being inlined as user code.
"""

from __future__ import annotations

import types

import gast

from srcad.errors import UnsupportedCallError
from srcad.frontend import syntax as S
from srcad.frontend.parse import ParsedFunction, resolve_callee
from srcad.runtime.runtime_names import NESTED_RUNTIME_NAMES
from srcad.transform.names import Namer
from srcad.transform.normalize import nested_autodiff

_HINT_LOCAL = ("define {name} at module level and pass the values it reads as arguments: "
               "srcad.grad({name})(x, p)")

# the nested-gradient primitive, registered by srcad/operators/nested.py when imported (srcad's
# `__init__` imports it): "function", what the rewritten call names `srcad_nested_gradient`,
# and "token_for", `token_for(g, argnum)` the token of the gradient of g in argument argnum
PRIMITIVE: dict = {}


# srcad's public functions, id -> (object, public name), recognised by identity: registered by
# srcad's `__init__` (`register_public`), which sits above every layer
_PUBLIC: dict = {}


# the public objects besides functions recognised by identity: annotations and modes
_OBJECTS = ("Constant", "Const", "Cache", "Output", "Active", "Duplicated", "Reverse", "Forward",
            "ReverseWithPrimal", "ForwardWithPrimal")


def register_public(namespace: dict, names) -> None:
    """Register srcad's public functions (and `Constant`, `Const`, `Cache`, `Output`): the
    objects `namespace` binds to `names`."""
    for name in names:
        obj = namespace[name]
        if isinstance(obj, types.FunctionType) or name in _OBJECTS:
            _PUBLIC[id(obj)] = (obj, name)


def rewrite_nested_calls(parsed: ParsedFunction, body: list, namer: Namer,
                         local_functions: dict) -> list:
    """`body` with every nested gradient call rewritten (see the module docstring)."""
    if not any(isinstance(n, gast.Call) for s in body for n in gast.walk(s)):
        return body
    rewriter = _Rewriter(parsed, local_functions)
    out = []
    for stmt in body:  # a nested autodiff statement may become several
        new = rewriter.visit(stmt)
        out.extend(new if isinstance(new, list) else [new])
    return out


class _Rewriter(gast.NodeTransformer):
    def __init__(self, parsed, local_functions):
        self.parsed = parsed
        self.local_functions = local_functions
        self.api = _PUBLIC

    def _api_name(self, func_expr):
        """The public srcad name a call's function expression resolves to, or None."""
        if isinstance(func_expr, gast.Name) and func_expr.id in self.local_functions:
            return None
        obj = resolve_callee(self.parsed, func_expr, {})
        entry = self.api.get(id(obj))
        return entry[1] if entry is not None and entry[0] is obj else None

    def visit_Expr(self, node):
        if isinstance(node.value, gast.Call) and self._api_name(node.value.func) == "autodiff":
            return nested_autodiff.statements(self, node.value)
        return self.generic_visit(node)

    def visit_Subscript(self, node):
        value, index = node.value, node.slice
        name = self._api_name(value.func) if isinstance(value, gast.Call) else None
        if name in ("autodiff", "jvp") and isinstance(index, gast.Constant) \
                and type(index.value) is int:
            if name == "jvp":
                return nested_autodiff.jvp_expression(self, value, index.value)
            return nested_autodiff.expression(self, value, index.value)
        return self.generic_visit(node)

    def visit_Call(self, node):
        if self._api_name(node.func) == "autodiff":
            return nested_autodiff.expression(self, node)
        if self._api_name(node.func) == "jvp":
            return nested_autodiff.jvp_expression(self, node)
        if isinstance(node.func, gast.Call) and self._api_name(node.func.func) == "grad":
            node.args = [self.visit(a) for a in node.args]
            return self._grad(node)
        self.generic_visit(node)
        name = self._api_name(node.func)
        if name == "gradient":
            return self._gradient(node)
        if name is not None and name not in ("Constant", "Const"):
            raise self._refusal(node, name)
        if isinstance(node.func, gast.Call):
            inner = self._api_name(node.func.func)
            if inner is not None:
                raise self._refusal(node, inner)
        return node

    def _refusal(self, node, name):
        if name == "vmap":  # a vmapped function made outside is differentiated (srcad.vmap)
            return self.parsed.error(
                node, "srcad.vmap", "srcad.vmap is called inside a function srcad "
                "differentiates", kind=UnsupportedCallError,
                hint="make the batched function outside, batched = srcad.vmap(g, in_axes=...) "
                "(axes 0 or None, out_axes 0), and call batched(...) here")
        return self.parsed.error(
            node, f"srcad.{name}", f"srcad.{name} is called inside a function srcad "
            "differentiates; srcad differentiates nested srcad.grad(g)(...), "
            "srcad.gradient(g, x, Constant(p), ...) and srcad.autodiff(srcad.Reverse, g, "
            "srcad.Duplicated(x, dx), ...) calls", kind=UnsupportedCallError,
            hint="write the inner derivative as srcad.grad(g)(x, p) or srcad.gradient(g, x, "
            "srcad.Constant(p)) with g a module-level function returning a float")

    def _grad(self, node):
        make = node.func
        if len(make.args) != 1:
            raise self.parsed.error(make, "srcad.grad", "srcad.grad inside a differentiated "
                                    "function takes the function alone",
                                    hint="srcad.grad(g) or srcad.grad(g, argnums=1)",
                                    kind=UnsupportedCallError)
        argnum = 0
        for keyword in make.keywords:
            value = keyword.value
            literal = isinstance(value, gast.Constant)
            if keyword.arg == "argnums" and literal and type(value.value) is int:
                argnum = value.value
            elif keyword.arg == "has_aux" and literal and value.value is False:
                continue
            elif keyword.arg == "backend" and literal and isinstance(value.value, str):
                continue  # the inner gradient runs as generated Python code either way
            else:
                raise self.parsed.error(
                    make, "srcad.grad", f"srcad.grad(..., {keyword.arg}=...) inside a "
                    "differentiated function", kind=UnsupportedCallError,
                    hint="pass argnums as one int literal; has_aux and tuples of argnums "
                    "are not supported in nested calls")
        self._positional_only(node, "srcad.grad(g)")
        if not 0 <= argnum < len(node.args):
            raise self.parsed.error(node, "srcad.grad", f"argnums={argnum} but the gradient "
                                    f"is called with {len(node.args)} arguments",
                                    kind=UnsupportedCallError)
        return self._primitive(node, make.args[0], argnum, list(node.args))

    def _gradient(self, node):
        if not node.args:
            raise self.parsed.error(node, "srcad.gradient", "srcad.gradient needs a function "
                                    "and x", kind=UnsupportedCallError)
        for keyword in node.keywords:
            literal = isinstance(keyword.value, gast.Constant)
            if not (keyword.arg in ("backend", "mode") and literal):
                raise self.parsed.error(
                    node, "srcad.gradient", f"srcad.gradient(..., {keyword.arg}=...) inside a "
                    "differentiated function", kind=UnsupportedCallError,
                    hint="leave out prep=, out= and chunk= in nested calls")
        g_expr, *rest = node.args
        args, bare = [], []
        for position, arg in enumerate(rest):
            if isinstance(arg, gast.Call) and self._api_name(arg.func) in ("Constant", "Const") \
                    and len(arg.args) == 1 and not arg.keywords:
                args.append(arg.args[0])
                continue
            if isinstance(arg, gast.Call) and self._api_name(arg.func) is not None:
                raise self.parsed.error(arg, "srcad.gradient", "srcad.gradient inside a "
                                        "differentiated function takes x and Constant(...) "
                                        "arguments only", kind=UnsupportedCallError)
            args.append(arg)
            bare.append(position)
        if len(bare) != 1:
            raise self.parsed.error(node, "srcad.gradient", f"srcad.gradient needs exactly one "
                                    f"bare argument x, got {len(bare)}",
                                    kind=UnsupportedCallError,
                                    hint="wrap the other arguments in srcad.Constant(...)")
        return self._primitive(node, g_expr, bare[0], args)

    def _positional_only(self, node, what):
        if node.keywords or any(isinstance(a, gast.Starred) for a in node.args):
            raise self.parsed.error(node, what, f"keyword or starred arguments of {what}(...) "
                                    "inside a differentiated function",
                                    kind=UnsupportedCallError, hint="pass them positionally")

    def _primitive(self, node, g_expr, argnum, args):
        if isinstance(g_expr, gast.Name) and g_expr.id in self.local_functions:
            raise self.parsed.error(
                node, "nested gradient", f"the gradient of {g_expr.id}, a function defined "
                "inside the differentiated function", kind=UnsupportedCallError,
                hint=_HINT_LOCAL.format(name=g_expr.id))
        g = resolve_callee(self.parsed, g_expr, {})
        g = getattr(g, "__srcad_wrapped__", g)
        if not isinstance(g, types.FunctionType):
            shown = S.unparse_expr(g_expr)
            raise self.parsed.error(
                node, "nested gradient", f"the gradient of `{shown}`: srcad needs a plain "
                "function it can name (module level or imported) to differentiate it twice",
                kind=UnsupportedCallError, hint=_HINT_LOCAL.format(name="g"))
        name = NESTED_RUNTIME_NAMES[0]
        self.parsed.namespace[name] = PRIMITIVE["function"]
        operands = [args[argnum]] + args[:argnum] + args[argnum + 1:]
        call = gast.Call(func=S.name(name),
                         args=[S.const(PRIMITIVE["token_for"](g, argnum))] + operands,
                         keywords=[])
        return gast.copy_location(call, node)
