"""The only orchestrator: parse -> normalize -> analyses -> transform -> codegen -> compile.

Stages hand each other plain values; nothing here knows about a particular construct.
"""

from __future__ import annotations

from dataclasses import dataclass

from srcad.analysis.activity import analyse_activity
from srcad.analysis.types import Array, Types, is_float_like
from srcad.codegen import to_source
from srcad.compiler import compile_source
from srcad.parse import parse_function
from srcad.transform.normalize import normalize
from srcad.transform.reverse import ReverseTransform


@dataclass(frozen=True)
class ArgSpec:
    """One argument as far as code generation cares."""

    kind: str  # "const" | "active" | "duplicated"
    type: object  # srcad type (FLOAT, INT, Array(ndim, is_float), ...)


@dataclass
class Compiled:
    function: object
    source: str
    name: str
    specs: tuple
    taped: list


def build_reverse(func, specs: tuple[ArgSpec, ...]) -> Compiled:
    parsed = parse_function(func)
    norm = normalize(parsed)
    arg_types = {p: s.type for p, s in zip(norm.params, specs)}
    types = Types(norm, arg_types)
    kinds = {p: s.kind for p, s in zip(norm.params, specs)}
    active_inputs = {p for p, k in kinds.items() if k == "active"}
    duplicated = {p for p, k in kinds.items() if k == "duplicated"}
    const_arrays = {p for p, s in zip(norm.params, specs)
                    if s.kind == "const" and isinstance(s.type, Array)}
    returns_float = _returns_float(norm, types)
    activity = analyse_activity(norm, types, active_inputs, duplicated, const_arrays,
                                returns_float)
    name = norm.namer.fresh(f"{parsed.name}_reverse")
    code = ReverseTransform(norm, types, activity, kinds, name).build()
    source = to_source(code.tree)
    namespace = dict(parsed.namespace)
    namespace.update(norm.extra_names)
    function = compile_source(source, name, namespace, parsed.filename)
    return Compiled(function, source, name, specs, code.taped)


def _returns_float(norm, types) -> bool:
    import gast
    last = norm.body[-1]
    return isinstance(last, gast.Return) and last.value is not None and \
        is_float_like(types.of(last.value))
