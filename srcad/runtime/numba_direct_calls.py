"""Calls of a runtime name that numba compiles straight into the caller, with no function of
their own: `register_direct_call(name, target)` makes a call `name(a, b)` in numba-compiled
code call the numba function `target(a, b)` chooses, with the array operands typed as layout
"A" (a cast that copies nothing) or as they are, for operand types `target` accepts; other
calls go on to the name's `overload`.

An `overload` whose implementation is `lambda a, b: f(any_layout(a), any_layout(b))` is a
function numba types, lowers and optimizes once per combination of the operands' types
(layouts C, F, read-only or not), only to call `f`: a Kalman filter's gradient compiled 7 of
them for its matrix products, 4 for its solves and one for its outer products, 0.05-0.1 s
each. Here the name's typing gives the call the operands' own types, and its lowering casts
them and calls `f`'s compiled code: `f` compiles once per rank (or per type), the call site
adds no function.

Register before the name's `overload` (numba tries a name's typings in the order they were
registered): the overload then types only the calls `target` declines.
"""

from __future__ import annotations

from typing import Any, Callable

from numba import types
from numba.core.imputils import lower_builtin
from numba.core.typing.templates import AbstractTemplate, infer_global, signature


def any_layout(argument_types) -> tuple:
    """The argument types with each array's layout "A" (the default cast)."""
    return tuple(t.copy(layout="A") if isinstance(t, types.Array) else t
                 for t in argument_types)


def read_only_any_layout(argument_types) -> tuple:
    """The argument types with each array's layout "A" and read-only (for a function that
    writes into none of them)."""
    return tuple(t.copy(layout="A", readonly=True) if isinstance(t, types.Array) else t
                 for t in argument_types)


def register_direct_call(name: Callable[..., Any], target: Callable[..., Any],
                         cast: Callable[[tuple], tuple] = any_layout) -> None:
    """Type and lower `name(*operands)` as a call of the numba function
    `target(*operand_types)` (None: not this way) on the operands cast to `cast(operand
    types)`: `any_layout` (the default), `read_only_any_layout`, `tuple` (as they are, for a
    function whose loops run faster on contiguous arrays) or any such map."""
    class DirectCall(AbstractTemplate):
        key = name

        def generic(self, args, kws):
            chosen = target(*args) if not kws else None
            if chosen is None:
                return None
            function_type = self.context.resolve_value_type(chosen)
            typed = function_type.get_call_type(self.context, cast(args), {})
            return None if typed is None else signature(typed.return_type, *args)

    infer_global(name)(DirectCall)

    @lower_builtin(name, types.VarArg(types.Any))
    def lower(context, builder, sig, args):
        chosen = target(*sig.args)
        cast_to = cast(sig.args)
        values = [context.cast(builder, value, given, to)
                  for value, given, to in zip(args, sig.args, cast_to)]
        function_type = context.typing_context.resolve_value_type(chosen)
        typed = function_type.get_call_type(context.typing_context, cast_to, {})
        return context.get_function(function_type, typed)(builder, values)
