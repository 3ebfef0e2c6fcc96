"""A progress bar for long derivative work: the rows of a jacobian, the columns of a Hessian,
the colors of a sparse jacobian.

A jacobian or Hessian of a few thousand inputs runs thousands of passes and can take many
seconds. Each such loop counts its steps through a `Progress`; once the work has run
`DELAY_SECONDS` (a couple of seconds) and is not finished, a tqdm bar appears on stderr (in a
notebook, tqdm's notebook widget) and follows the remaining steps; quick work never shows one.

The bar is shown only when all of these hold:

- tqdm is installed (an optional dependency: `pip install ".[progress]"`);
- the environment variable `SRCAD_PROGRESS` is not `0` (`SRCAD_PROGRESS=1` shows it even
  when stderr is not a terminal or `CI` is set), and `srcad.build.progress.enable(False)` was not
  called (`enable(True)` forces it as `SRCAD_PROGRESS=1` does, `enable(None)` restores the
  default);
- stderr is a terminal, or the code runs in a Jupyter kernel;
- the environment variable `CI` is not set.

Counting costs one clock reading per step; nothing else runs until the delay has passed.
"""

from __future__ import annotations

import os
import sys
import time

DELAY_SECONDS = 2.0
clock = time.perf_counter  # module attributes, so tests replace the clock and the bar
_forced: bool | None = None


def enable(on: bool | None = True) -> None:
    """Show progress bars (True), never show them (False), or decide as by default (None)."""
    global _forced
    _forced = on


def enabled() -> bool:
    """Whether a progress bar may be shown now (module docstring)."""
    if _forced is not None:
        return _forced
    setting = os.environ.get("SRCAD_PROGRESS", "").strip().lower()
    if setting in ("0", "false", "no", "off"):
        return False
    if setting in ("1", "true", "yes", "on"):
        return True
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false"):
        return False
    return _in_notebook() or bool(getattr(sys.stderr, "isatty", lambda: False)())


def _in_notebook() -> bool:
    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    return get is not None and type(get()).__name__ == "ZMQInteractiveShell"


def make_bar(total: int, what: str, done: int):
    """A tqdm bar at `done` of `total` steps, or None when tqdm is not installed."""
    try:
        if _in_notebook():
            from tqdm.auto import tqdm
        else:
            from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, initial=done, desc=f"srcad: {what}", file=sys.stderr,
                leave=False, dynamic_ncols=True)


class Progress:
    """Counts the steps of one loop; shows a bar once it has run DELAY_SECONDS.

    >>> with Progress(3, "jacobian rows") as progress:
    ...     for row in range(3):
    ...         progress.step()
    """

    __slots__ = ("total", "what", "done", "start", "bar", "off")

    def __init__(self, total: int, what: str):
        self.total, self.what, self.done = total, what, 0
        self.start, self.bar, self.off = clock(), None, False

    def step(self, count: int = 1) -> None:
        self.done += count
        if self.bar is not None:
            self.bar.update(count)
        elif not self.off and clock() - self.start >= DELAY_SECONDS:
            self.bar = make_bar(self.total, self.what, self.done) if enabled() else None
            self.off = self.bar is None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()
