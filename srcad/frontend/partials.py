"""`functools.partial` of a plain function as the differentiated function.

srcad differentiates source code, and a partial object has none; its call is a plain function
with real source, `def f_partial(a, b=2.0): return f(bound_0, a, b, c=bound_c)`, which srcad
differentiates by inlining `f` (the bound values are constants, read as globals). One such
function per partial object, kept while the partial lives, so repeated calls reuse the compiled
derivative like those of any function.
"""

from __future__ import annotations

import functools
import inspect
import types
import weakref

from srcad.errors import ArgumentError
from srcad.frontend.lambdas import function_name
from srcad.frontend.source_functions import function_from_source
from srcad.runtime.runtime_names import MODULES

_functions: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# instance -> {method's function: the plain function calling the bound method}: `model.loss`
# is a new bound method object at each read, the plain function one per instance and method
_methods: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def method_function(method: types.MethodType) -> types.FunctionType:
    """The plain function `def loss(w): return wrapped_function(w)` calling the bound method
    (its `self` read as a constant: srcad/frontend/methods.py), one per instance and method."""
    try:
        known = _methods.setdefault(method.__self__, {})
    except TypeError:  # an instance without __weakref__: made anew each time
        known = {}
    function = known.get(method.__func__)
    if function is None:
        function = _calling(method, method.__func__, method, (), {})
        known[method.__func__] = function
    return function


def plain_function(partial: functools.partial) -> types.FunctionType | None:
    """The plain function calling `partial` with its remaining positional parameters, or None
    when `partial` does not wrap a plain Python function (parse_function refuses it then)."""
    function = _functions.get(partial)
    if function is not None:
        return function
    func = getattr(partial.func, "__srcad_wrapped__", partial.func)
    if not isinstance(func, types.FunctionType):
        return None
    function = _calling(partial, func, func, partial.args, partial.keywords)
    _functions[partial] = function
    return function


def _calling(signed, func, called, args, keywords) -> types.FunctionType:
    """A plain function with the positional parameters of `signed` calling `called` with
    the bound `args` and `keywords` and those parameters (`func`: the Python function behind,
    which names it and places it in its file)."""
    code = func.__code__
    params, defaults = [], []
    for p in inspect.signature(signed).parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            params.append(p.name)
            if p.default is not p.empty:
                defaults.append(p.default)
        elif p.kind is p.KEYWORD_ONLY and p.name not in keywords \
                and p.default is p.empty:
            raise ArgumentError(f"functools.partial of {func.__name__} leaves `{p.name}` to be "
                                "passed by keyword; srcad passes arguments by position",
                                filename=code.co_filename, line=code.co_firstlineno,
                                construct="functools.partial",
                                hint="bind it in the partial, or write a plain `def`")
        elif p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ArgumentError(f"functools.partial of {func.__name__}, which takes *args or "
                                "**kwargs", filename=code.co_filename, line=code.co_firstlineno,
                                construct="functools.partial", hint="name every argument")
    namespace = {"wrapped_function": called}
    bound = []
    for k, value in enumerate(args):
        namespace[f"bound_{k}"] = value
        bound.append(f"bound_{k}")
    for key, value in keywords.items():
        namespace[f"bound_{key}"] = value
        bound.append(f"{key}=bound_{key}")
    arguments = ", ".join([*[b for b in bound if "=" not in b], *params,
                           *[b for b in bound if "=" in b]])
    name = function_name(func) + ("_partial" if called is func else "")
    source = (f"def {name}({', '.join(params)}):\n"
              f"    return wrapped_function({arguments})\n")
    function = function_from_source(source, name, {**namespace, **MODULES})
    function.__defaults__ = tuple(defaults) or None
    return function
