"""A function made from source text srcad wrote (a partial's call, a derivative), with its
source kept in `linecache` under a file name of its own, so that tracebacks and srcad's own
parser (srcad/frontend/parse.py) read it like any function's.
"""

from __future__ import annotations

import itertools
import linecache

from srcad.runtime.runtime_names import MODULES

_counter = itertools.count()


def function_from_source(source: str, name: str, env: dict):
    """Execute `source` (defining function `name`) with the globals `env`; its function."""
    filename = f"<srcad {name} #{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    code = compile(source, filename, "exec")
    exec(code, env)
    return env[name]


def compile_source(source: str, name: str, namespace: dict, origin: str = ""):
    """Compile generated `source` (defining function `name`) in a copy of `namespace`, where
    `np` and `math` are the modules (a user's name for something else was renamed:
    srcad/runtime/runtime_names.py)."""
    return function_from_source(source, name, {**namespace, **MODULES})
