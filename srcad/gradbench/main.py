"""The command line of srcad's GradBench tool: find the ports, answer stdin on stdout.

Guarantees: nothing but responses is written to stdout (whatever the ports and the libraries
they import print goes to stderr); every line of stdin gets its response before the next is
read.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path
from typing import TextIO

from srcad.gradbench.protocol import dumps
from srcad.gradbench.tool import BACKENDS, Tool


def load_ports(root: str | os.PathLike | None = None):
    """The `benchmarks.gradbench.common` module of the checkout at `root` (by default the one
    holding this srcad), imported with `root` on sys.path."""
    root = Path(root or os.environ.get("SRCAD_GRADBENCH_PORTS")
                or Path(__file__).resolve().parents[2])
    if not (root / "benchmarks" / "gradbench" / "common.py").is_file():
        raise FileNotFoundError(f"no GradBench ports under {root} (expected "
                                f"{root / 'benchmarks' / 'gradbench'}); pass --ports")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module("benchmarks.gradbench.common")


def serve(tool: Tool, stdin: TextIO, stdout: TextIO) -> None:
    """Answer every line of stdin until it ends."""
    for line in stdin:
        if not line.strip():
            continue
        print(dumps(tool.respond(json.loads(line))), file=stdout, flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m srcad.gradbench",
                                     description="srcad as a GradBench tool")
    parser.add_argument("--backend", choices=BACKENDS, default="numba")
    parser.add_argument("--ports", default=None,
                        help="directory holding benchmarks/gradbench (default: this checkout)")
    parser.add_argument("--multithreaded", action="store_true",
                        help="accepted as GradBench's tools accept it; srcad runs one thread")
    args = parser.parse_args(argv)
    # the ports and the libraries they import must not write to stdout: it carries responses
    stdout, sys.stdout = sys.stdout, sys.stderr
    try:
        tool = Tool(load_ports(args.ports), args.backend)
        serve(tool, sys.stdin, stdout)
    finally:
        sys.stdout = stdout
