"""Say once when numba's first compilation of generated code is slow.

The first call (or preparation) of a function under the numba backend compiles the generated
code, which can take seconds; later calls, and later processes, do not (numba keeps the
machine code in srcad's disk cache). Without a word, a user sees only a slow first call. The
first compilation of generated code that takes longer than `THRESHOLD_SECONDS` logs one
WARNING on the "srcad" logger naming the function, the time and the cache folder; no later
compilation in the process logs again. Silence it with
`logging.getLogger("srcad").setLevel(logging.ERROR)`.

It listens to numba's "numba:compile" events, which numba sends only when it compiles (not
when it loads from its disk cache), and only for modules srcad generated (named `srcad_*`).
"""

from __future__ import annotations

import logging
import threading
import time

logger = logging.getLogger("srcad")

THRESHOLD_SECONDS = 1.0
GENERATED_MODULE_PREFIX = "srcad_"
clock = time.perf_counter  # a module attribute, so tests can replace the clock

_lock = threading.Lock()
_installed = False
_said = False


def install() -> None:
    """Start listening to numba's compile events (once per process)."""
    global _installed
    with _lock:
        if _installed:
            return
        from numba.core import event

        class SlowFirstCompile(event.Listener):
            def __init__(self):
                self.started = {}

            def on_start(self, ev):
                if _generated(ev):
                    self.started[id(ev.data["dispatcher"])] = clock()

            def on_end(self, ev):
                start = self.started.pop(id(ev.data["dispatcher"]), None) if _generated(ev) \
                    else None
                if start is not None:
                    compiled(ev.data["dispatcher"].py_func.__name__, clock() - start)

        event.register("numba:compile", SlowFirstCompile())
        _installed = True


def _generated(ev) -> bool:
    """Whether the event is the compilation of a generated function. Never raises: numba
    compiles other objects too (a `__module__` may be None), and a listener that raised would
    break their compilation."""
    data = ev.data if isinstance(ev.data, dict) else {}
    function = getattr(data.get("dispatcher"), "py_func", None)
    module = getattr(function, "__module__", None)
    return isinstance(module, str) and module.startswith(GENERATED_MODULE_PREFIX)


def compiled(name: str, seconds: float) -> None:
    """numba compiled generated function `name` in `seconds`: log the first slow one."""
    global _said
    if seconds <= THRESHOLD_SECONDS or _said:
        return
    _said = True
    from srcad.build.compiler import cache_dir
    logger.warning(
        "numba compiled %s in %.1f s; this is a one-time cost: the machine code is kept in "
        "srcad's disk cache %s (set SRCAD_CACHE_DIR to move it), so later calls and later "
        "runs skip it. Silence this message with "
        "logging.getLogger('srcad').setLevel(logging.ERROR).", name, seconds, cache_dir())
