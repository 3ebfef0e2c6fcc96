"""Say while numba compiles generated code that it is compiling, once it has run a second.

The first call (or preparation) of a function under the numba backend compiles the generated
code, which can take seconds; later calls, and later processes, do not (numba keeps the
machine code in srcad's disk cache). Without a word, a user sees only a slow call. So every
compilation of generated code that is still running after `THRESHOLD_SECONDS` logs one
WARNING on the "srcad" logger, from a timer thread, while it runs: it names the function
being compiled and says the machine code is cached for next time (the cache folder). Every
slow compilation says so, not only the first of the process; a generated function compiled
as part of another (numba compiles the callees of the function it compiles) is covered by
the outer one's message. Silence it with `logging.getLogger("srcad").setLevel(logging.ERROR)`.

It listens to numba's "numba:compile" events, which numba sends only when it compiles (not
when it loads from its disk cache), and only for modules srcad generated (named `srcad_*`).
"""

from __future__ import annotations

import functools
import logging
import threading

from srcad.build.cache_folder import cache_dir

logger = logging.getLogger("srcad")

THRESHOLD_SECONDS = 1.0
GENERATED_MODULE_PREFIX = "srcad_"

_lock = threading.Lock()
_installed = False
_compiling = threading.local()  # per thread: depth of generated compilations, their timer


def start_timer(seconds: float, callback):
    """Run `callback` in `seconds` on a daemon thread; returns what `.cancel()` stops.
    A module attribute, so tests replace the timer instead of waiting."""
    timer = threading.Timer(seconds, callback)
    timer.daemon = True
    timer.start()
    return timer


def install() -> None:
    """Start listening to numba's compile events (once per process)."""
    global _installed
    with _lock:
        if _installed:
            return
        from numba.core import event

        class SlowCompile(event.Listener):
            def on_start(self, ev):
                if _generated(ev):
                    started(ev.data["dispatcher"].py_func.__name__)

            def on_end(self, ev):
                if _generated(ev):
                    ended()

        event.register("numba:compile", SlowCompile())
        _installed = True


def started(name: str) -> None:
    """numba started compiling generated function `name` on this thread."""
    depth = getattr(_compiling, "depth", 0)
    _compiling.depth = depth + 1
    if depth == 0:  # the outermost: its callees' compilations are part of it
        _compiling.timer = start_timer(THRESHOLD_SECONDS, functools.partial(announce, name))


def ended() -> None:
    """numba finished compiling the generated function it last started on this thread."""
    depth = getattr(_compiling, "depth", 0)
    if depth == 0:
        return  # started before the listener was installed
    _compiling.depth = depth - 1
    timer = getattr(_compiling, "timer", None)
    if depth == 1 and timer is not None:
        timer.cancel()
        _compiling.timer = None


def compiling() -> bool:
    """Is numba compiling generated code on this thread now?"""
    return getattr(_compiling, "depth", 0) > 0


def _generated(ev) -> bool:
    """Whether the event is the compilation of a generated function. Never raises: numba
    compiles other objects too (a `__module__` may be None), and a listener that raised would
    break their compilation."""
    data = ev.data if isinstance(ev.data, dict) else {}
    function = getattr(data.get("dispatcher"), "py_func", None)
    module = getattr(function, "__module__", None)
    return isinstance(module, str) and module.startswith(GENERATED_MODULE_PREFIX)


def announce(name: str) -> None:
    """The compilation of `name` has run THRESHOLD_SECONDS and goes on: say so."""
    logger.warning(
        "srcad: numba is compiling %s (generated derivative code; running for %.0f s so "
        "far). This is a one-time cost: the machine code is cached in %s (set "
        "SRCAD_CACHE_DIR to move it) for next time, so later calls and later runs skip it. "
        "Silence this message with logging.getLogger('srcad').setLevel(logging.ERROR).",
        name, THRESHOLD_SECONDS, cache_dir())
