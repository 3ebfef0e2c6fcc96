"""Stage: generated source -> a callable, registered with `linecache` so tracebacks, `inspect`
and `pdb` show the generated code."""

from __future__ import annotations

import itertools
import linecache
import math

import numpy as np

from srcad.errors import SrcadError

_counter = itertools.count()
RUNTIME_NAMES = {"math": math, "np": np}


def compile_source(source: str, name: str, namespace: dict, origin: str = ""):
    """Compile `source` (defining function `name`) in a copy of `namespace`."""
    env = dict(namespace)
    for key, value in RUNTIME_NAMES.items():
        if key in env and env[key] is not value:
            raise SrcadError(f"the function's module binds `{key}` to something other than "
                             f"the {value.__name__} module; generated code needs it",
                             filename=origin, construct="name clash")
        env[key] = value
    filename = f"<srcad {name} #{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    code = compile(source, filename, "exec")
    exec(code, env)
    return env[name]
