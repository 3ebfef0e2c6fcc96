"""srcad as a GradBench tool: `python -m srcad.gradbench` speaks GradBench's protocol (one JSON
message per line on stdin, one response per line on stdout) and answers with the Python ports
of the evals shipped in srcad.gradbench.ports, and GradBench's `hello` itself.

Guarantees: every message gets exactly one response carrying its "id"; responses are standard
JSON (a non-finite number is `null`); "define" succeeds only for an eval whose functions the
tool can all run; "evaluate" runs the requested function at least `min_runs` times and until
the runs add up to `min_seconds`, and reports each run as an "evaluate" timing (the one-time
parse, transform, compilation and warm-up run, paid once per function and input, as one
"prepare" timing); a failure is a response with "success": false and the error, never a dead
tool. Nothing but responses is written to stdout.

    python -m srcad.gradbench [--backend numba|python] [--ports DIRECTORY]

This package may import srcad's public API and the packages below it (pyproject.toml's
import-linter layers); nothing in srcad imports it.
"""

from srcad.gradbench.main import load_ports, main, serve
from srcad.gradbench.protocol import dumps, run_timed, strict
from srcad.gradbench.tool import BACKENDS, Tool

__all__ = ["BACKENDS", "Tool", "dumps", "load_ports", "main", "run_timed", "serve", "strict"]
