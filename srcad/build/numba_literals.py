"""Signatures without constants' values for srcad's generated numba functions.

numba types a call of a compiled function from compiled code with the types of its arguments,
and a constant argument's type is its value: `srcad_nested_space(space, int_space, need, 0, 0)`
in one helper and `srcad_nested_space(space, int_space, need, 1, 0)` in another make numba type,
lower and optimize `srcad_nested_space` twice, once for `Literal[int](0)` and once for
`Literal[int](1)`, although nothing in it depends on the value. `plain_first(compile, sig)`
compiles a generated function for the signature with every literal type replaced by its plain
type (`int64`, `float64`, `bool`, `unicode_type`), which every such call then converts to; only
where that signature does not compile (a body that needs the value: an index into a tuple of
mixed types, `numba.literally`) is the function compiled for the literal signature, as numba
would.

>>> from numba.core import types
>>> plain_signature((types.literal(0), types.float64))
(int64, float64)
"""

from __future__ import annotations


def plain_signature(sig: tuple) -> tuple:
    """`sig` with each literal type replaced by the type of its value (numba's `unliteral`)."""
    from numba.core import types

    return tuple(types.unliteral(t) for t in sig)


def plain_first(compile_, sig):
    """`compile_(sig)` with literal argument types made plain where that compiles, else as
    given. A signature numba gives with a return type (`(args, return_type)`) is left alone."""
    from numba.core.errors import NumbaError

    if not isinstance(sig, tuple):
        return compile_(sig)
    plain = plain_signature(sig)
    if plain == sig:
        return compile_(sig)
    try:
        return compile_(plain)
    except NumbaError:  # the body needs a constant's value (`literally`, an index into a
        return compile_(sig)  # tuple of mixed types): numba's own signature, as before
