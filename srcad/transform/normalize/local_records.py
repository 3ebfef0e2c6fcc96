"""A dataclass or NamedTuple built in the function and read there by its fields becomes one
variable per field (runs first in lowering, before the fence).

    s = State(np.sin(x[0]), c=2 * x)      s_h = np.sin(x[0])
    s.h = s.h + 1.0                  ->   s_c = 2 * x
    return s.h * np.sum(s.c)              s_h = s_h + 1.0
                                          return s_h * np.sum(s_c)

A local is a record when every assignment to it builds the same record class (`Cls(...)`, by
position, keyword, and the class's constant defaults); its fields are then read (`s.h`) and,
for a dataclass that is not frozen, assigned (`s.h = v`, `s.h += v`). Any other use of the
name (passing the record on, returning it, a field of a frozen dataclass or a NamedTuple
assigned, a field the class does not declare) is refused by line: the generated code holds no
object.
"""

from __future__ import annotations

import dataclasses

import gast

from srcad.errors import UnsupportedSyntaxError
from srcad.frontend import syntax as S
from srcad.frontend.parse import resolve_callee

_HINT = ("read and assign the record's fields (s.h, s.h = v) in the function that builds it; "
         "pass fields, not the record, to other functions")
_MISSING = object()


def record_class(obj) -> bool:
    """Is `obj` a dataclass or NamedTuple class?"""
    return isinstance(obj, type) and (dataclasses.is_dataclass(obj) or (
        issubclass(obj, tuple) and hasattr(obj, "_fields")))


def local_records(parsed, body: list, namer) -> list:
    """`body` with each local record split into its fields (see the module docstring)."""
    records = _records(parsed, body)
    if not records:
        return body
    fields = {name_: {f: namer.fresh(f"{name_}_{f}") for f in _fields(cls)}
              for name_, cls in records.items()}
    for name_, per_field in fields.items():
        for f, flat in per_field.items():
            parsed.spellings[flat] = f"{name_}.{f}"
    return _Split(parsed, records, fields, namer).block(body)


def _fields(cls) -> tuple:
    if dataclasses.is_dataclass(cls):
        return tuple(f.name for f in dataclasses.fields(cls))
    return tuple(cls._fields)


def _records(parsed, body) -> dict:
    """name -> record class for the locals every assignment of which builds that class."""
    built, other, targets = {}, set(), set()
    params = {a.id for a in parsed.tree.args.args}
    for stmt in body:
        for node in S.walk(stmt):
            if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], gast.Name) \
                    and isinstance(node.value, gast.Call):
                cls = resolve_callee(parsed, node.value.func, {})
                if record_class(cls):
                    name_ = node.targets[0].id
                    if built.setdefault(name_, cls) is not cls:
                        other.add(name_)
                    targets.add(id(node.targets[0]))
                    continue
            if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load) \
                    and id(node) not in targets:
                other.add(node.id)
    return {n: c for n, c in built.items() if n not in other and n not in params}


class _Split(gast.NodeTransformer):
    def __init__(self, parsed, records, fields, namer):
        self.parsed, self.records, self.fields, self.namer = parsed, records, fields, namer

    def error(self, node, message):
        return self.parsed.error(node, "dataclass", message, kind=UnsupportedSyntaxError,
                                 hint=_HINT)

    def block(self, stmts) -> list:
        out = []
        for stmt in stmts:
            out.extend(self.stmt(stmt))
        return out

    def stmt(self, stmt) -> list:
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name) \
                and stmt.targets[0].id in self.records:
            return self._built(stmt, stmt.targets[0].id)
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, self.block(getattr(stmt, field)))
        for handler in getattr(stmt, "handlers", None) or []:
            handler.body = self.block(handler.body)
        for name_, value in gast.iter_fields(stmt):
            if name_ in ("body", "orelse", "finalbody", "handlers"):
                continue
            if isinstance(value, gast.AST):
                setattr(stmt, name_, self.visit(value))
            elif isinstance(value, list):
                setattr(stmt, name_, [self.visit(v) if isinstance(v, gast.AST) else v
                                      for v in value])
        return [stmt]

    def _built(self, stmt, name_) -> list:
        cls, call = self.records[name_], stmt.value
        names = _fields(cls)
        values = dict(zip(names, call.args))
        if len(call.args) > len(names):
            raise self.error(call, f"{cls.__name__} takes {len(names)} fields, "
                             f"{len(call.args)} given")
        for keyword in call.keywords:
            if keyword.arg not in names or keyword.arg in values:
                raise self.error(call, f"{cls.__name__}() gets an unexpected or repeated "
                                 f"field `{keyword.arg}`")
            values[keyword.arg] = keyword.value
        for field in names:
            if field not in values:
                values[field] = self._default(cls, field, call)
        values = {f: self.visit(v) for f, v in values.items()}
        flat = set(self.fields[name_].values())
        reads_itself = any(isinstance(n, gast.Name) and n.id in flat
                           for v in values.values() for n in S.walk(v))
        out = []
        if reads_itself:  # s = State(s.c[0], s.h): every value first, as Python does
            staged = {}
            for field in names:
                staged[field] = self.namer.fresh(f"{name_}_{field}_new")
                out.append(gast.copy_location(S.assign(S.name(staged[field], store=True),
                                                       values[field]), stmt))
            values = {f: S.name(t) for f, t in staged.items()}
        for field in names:
            out.append(gast.copy_location(S.assign(
                S.name(self.fields[name_][field], store=True), values[field]), stmt))
        return out

    def _default(self, cls, field, call):
        if dataclasses.is_dataclass(cls):
            spec = next(f for f in dataclasses.fields(cls) if f.name == field)
            value = spec.default
        else:
            value = cls._field_defaults.get(field, _MISSING)
        if value is _MISSING or value is dataclasses.MISSING:
            raise self.error(call, f"{cls.__name__}() is missing the field `{field}`")
        if value is not None and type(value) not in (bool, int, float):
            raise self.error(call, f"the default of {cls.__name__}'s field `{field}` is not a "
                             "number", )
        return S.const(value)

    def visit_Attribute(self, node):
        if isinstance(node.value, gast.Name) and node.value.id in self.records:
            name_, cls = node.value.id, self.records[node.value.id]
            flat = self.fields[name_].get(node.attr)
            if flat is None:
                raise self.error(node, f"`{name_}` is a {cls.__name__}, which has no field "
                                 f"`{node.attr}` (its fields: {', '.join(_fields(cls))})")
            store = not isinstance(node.ctx, gast.Load)
            if store and (not dataclasses.is_dataclass(cls)
                          or cls.__dataclass_params__.frozen):
                raise self.error(node, f"`{name_}.{node.attr}` is assigned, but a "
                                 f"{cls.__name__} is immutable (Python raises here)")
            return gast.copy_location(S.name(flat, store=store), node)
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if node.id in self.records:
            raise self.error(node, f"`{node.id}` is a {self.records[node.id].__name__} built in "
                             "the function and used whole here; srcad keeps its fields as "
                             "variables")
        return node



