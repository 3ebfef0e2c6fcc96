"""Fuzz programs run as IPython and Jupyter run a cell (`run.py --cells`): the program's text
is one cell, kept in `linecache` under an `<ipython-input-N-...>` name, and each top-level
statement is compiled and run on its own in one namespace, so a function is compiled apart
from the imports above it (what srcad's source check must recognise,
srcad/frontend/source_check.py). The program and its inputs are the ones the seed gives.
"""

from __future__ import annotations

import ast
import hashlib
import itertools
import linecache
import os
import sys
import types

_COUNTER = itertools.count(1)


def enabled() -> bool:
    """Set by `run.py --cells` for its workers (read by checking.load_module)."""
    return os.environ.get("SRCAD_FUZZ_CELLS") == "1"


def load_cell(text: str):
    """(module, name): `text` run as IPython runs a cell, in a module registered as `name`."""
    number = next(_COUNTER)
    digest = hashlib.sha1(text.encode()).hexdigest()[:12]
    filename = f"<ipython-input-{number}-{digest}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    name = f"fz_cell_{os.getpid()}_{number}"
    module = types.ModuleType(name)
    sys.modules[name] = module
    try:
        for statement in ast.parse(text, filename).body:
            code = compile(ast.Module([statement], type_ignores=[]), filename, "exec")
            exec(code, module.__dict__)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module, name
