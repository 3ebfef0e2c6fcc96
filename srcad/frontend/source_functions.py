"""A function made from source text srcad wrote (a partial's call, a derivative), with its
source kept in `linecache` under a file name of its own, so that tracebacks and srcad's own
parser (srcad/frontend/parse.py) read it like any function's.
"""

from __future__ import annotations

import itertools
import linecache

_counter = itertools.count()


def function_from_source(source: str, name: str, env: dict):
    """Execute `source` (defining function `name`) with the globals `env`; its function."""
    filename = f"<srcad {name} #{next(_counter)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    code = compile(source, filename, "exec")
    exec(code, env)
    return env[name]
