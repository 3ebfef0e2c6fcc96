"""The fast path of repeated calls.

An `autodiff` call whose arguments look like an earlier, checked call's (same annotation types,
value types, dtypes and ranks; shapes are compared per call) reuses that call's flattening and
compiled code (a `Plan`); a prepared operator call whose arguments look like the preparation's
(shapes too) refills its buffers without checking them again. The comparison is a small
generated function, one test per property: ~1 us for the mixture's two arguments, against
~25 us of checks and cache lookups.
"""

from __future__ import annotations

import numpy as np

from srcad.annotations import Annotation, Duplicated

CONST, ACTIVE, DUPLICATED_ARRAY, DUPLICATED_FLOAT, BATCH_STACKED = range(5)


class Plan:
    """A checked call of `f`: its compiled code and how to flatten matching arguments."""

    __slots__ = ("code", "mode", "batch", "backend", "compiled", "active", "batched", "flat",
                 "source")

    def __init__(self, f, mode, batch, backend, args, roles, compiled, active):
        self.code, self.mode, self.batch, self.backend = f.__code__, mode, batch, backend
        self.compiled, self.active = compiled, tuple(active)
        self.batched = BATCH_STACKED in roles
        self.source, self.flat = matcher(args, roles, lambda a: isinstance(a, Annotation))


def matcher(args, roles, wrapped, shapes=False):
    """(source, function): `flat(args)`, the flat argument list when `args` look like these
    (`wrapped(a)`: the value is `a.value`; `shapes`: arrays must have these shapes too), else
    None. Roles: CONST passes the value, ACTIVE a float, DUPLICATED_* the value and shadow,
    BATCH_STACKED an array value and its W shadows as one (W, ...) array."""
    env = {"ndarray": np.ndarray}
    names = [f"a{i}" for i in range(len(args))]
    lines = ["def flat(args):", f"    if len(args) != {len(args)}:", "        return None"]
    if args:
        lines.append(f"    {', '.join(names)}{',' if len(names) == 1 else ''} = args")
    out = []
    for i, (a, role) in enumerate(zip(args, roles)):
        env[f"K{i}"] = type(a)
        lines.append(f"    if type(a{i}) is not K{i}:")
        lines.append("        return None")
        lines.append(f"    v{i} = a{i}.value" if wrapped(a) else f"    v{i} = a{i}")
        value = a.value if wrapped(a) else a
        lines += _same_kind(f"v{i}", value, f"V{i}", env, shapes)
        if role == CONST:
            out.append(f"v{i}")
        elif role == ACTIVE:
            out.append(f"float(v{i})")
        elif role == BATCH_STACKED:
            env[f"S{i}"] = a.value.dtype
            lines += [f"    s{i} = a{i}.shadows",
                      f"    if (type(s{i}) is not ndarray or s{i}.shape[0] != {len(a.shadows)} "
                      f"or s{i}.shape[1:] != v{i}.shape",
                      f"            or (s{i}.dtype is not S{i} and s{i}.dtype != S{i})):",
                      "        return None"]
            out += [f"v{i}", f"s{i}"]
        else:
            assert isinstance(a, Duplicated)
            lines.append(f"    s{i} = a{i}.shadow")
            lines += _same_kind(f"s{i}", a.shadow, f"S{i}", env, shapes)
            if role == DUPLICATED_ARRAY:
                lines += [f"    if s{i}.shape != v{i}.shape:", "        return None"]
                out += [f"v{i}", f"s{i}"]
            else:
                out += [f"float(v{i})", f"float(s{i})"]
    lines.append(f"    return [{', '.join(out)}]")
    source = "\n".join(lines) + "\n"
    exec(compile(source, "<srcad fast path>", "exec"), env)
    return source, env["flat"]


def _same_kind(var, example, const, env, shapes) -> list:
    """Lines returning None unless `var` has the type (array: dtype and rank, or shape) of
    `example`."""
    if type(example) is np.ndarray:
        env[const] = example.dtype
        size = f"{var}.shape != {example.shape!r}" if shapes else f"{var}.ndim != {example.ndim}"
        test = (f"type({var}) is not ndarray or {size} "
                f"or ({var}.dtype is not {const} and {var}.dtype != {const})")
    else:
        env[const] = type(example)
        test = f"type({var}) is not {const}"
    return [f"    if {test}:", "        return None"]
