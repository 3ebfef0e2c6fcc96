"""The globals generated code runs with: the user's function's own namespace (its globals and
closure values), then what srcad's generated code calls by name, which wins (the user's own
names that collide were renamed by the front end: srcad/runtime/runtime_names.py)."""

from __future__ import annotations

import builtins
import functools

from srcad.build.running import reserve_tape
from srcad.rules.custom import RULE_FUNCTIONS
from srcad.runtime import array_runtime
from srcad.runtime.checkpointing import array_bytes, warn_checkpointed
from srcad.runtime.runtime_names import (
    ARRAY_RUNTIME_NAMES,
    GENERATED_BUILTINS,
    MODULES,
    library_modules,
)

# What generated code of array programs calls besides NumPy (the names are reserved).
ARRAY_RUNTIME = {name_: getattr(array_runtime, name_) for name_ in ARRAY_RUNTIME_NAMES}


def generated_namespace(parsed, norm, nested_runtime: dict) -> dict:
    """The namespace of the code generated for `parsed` (normalized as `norm`);
    `nested_runtime` holds the nested-gradient primitive's run-time functions."""
    namespace = dict(parsed.namespace)
    namespace.update(parsed.arrays)  # number tuples read as arrays (constant_sequences.py)
    namespace.update(norm.extra_names)
    namespace.update(ARRAY_RUNTIME)
    namespace.update(nested_runtime)
    namespace.update(MODULES)
    namespace.update(library_modules())  # `scipy`, once imported (rules of scipy.special)
    namespace.update(RULE_FUNCTIONS)  # the rule functions users added (srcad/rules/custom.py)
    namespace.update({name_: getattr(builtins, name_) for name_ in GENERATED_BUILTINS})
    namespace["reserve_tape"] = reserve_tape  # the python backend's (array tapes)
    namespace["checkpoint_plan"] = functools.partial(  # names the loop's function
        warn_checkpointed, filename=parsed.filename, function=parsed.name)
    namespace["array_bytes"] = array_bytes
    return namespace
