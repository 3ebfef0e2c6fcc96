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

from srcad.gradbench import memory
from srcad.gradbench.protocol import dumps
from srcad.gradbench.tool import BACKENDS, Tool
from srcad.runtime.checkpointing import memory_bytes


def load_ports(directory: str | os.PathLike | None = None):
    """The `common` module of the GradBench ports: by default those shipped with srcad
    (srcad.gradbench.ports); `directory` (or $SRCAD_GRADBENCH_PORTS) names another package
    of ports in the same interface (a directory holding `common.py` and port modules),
    imported with its parent directory on sys.path."""
    directory = directory or os.environ.get("SRCAD_GRADBENCH_PORTS")
    if not directory:
        return importlib.import_module("srcad.gradbench.ports.common")
    package = Path(directory).resolve()
    if not (package / "common.py").is_file():
        raise FileNotFoundError(f"no GradBench ports in {package} (expected "
                                f"{package / 'common.py'})")
    if str(package.parent) not in sys.path:
        sys.path.insert(0, str(package.parent))
    return importlib.import_module(f"{package.name}.common")


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
                        help="a directory of ports in srcad.gradbench.ports's interface "
                             "(default: the ports shipped with srcad)")
    parser.add_argument("--multithreaded", action="store_true",
                        help="accepted as GradBench's tools accept it; srcad runs one thread")
    parser.add_argument("--system-malloc", action="store_true",
                        help="leave glibc's malloc settings as they are (by default the tool "
                             "keeps the memory it frees for its next run: "
                             "srcad.gradbench.memory)")
    parser.add_argument("--tape-budget", default=None,
                        help="bytes a loop's tape may take before srcad checkpoints it, as "
                             "srcad's memory= ('2GB'); 'srcad' for srcad's default (256 MiB); "
                             "default: a quarter of the memory available at the start")
    parser.add_argument("--reassociate", action="store_true",
                        help="numba backend: let the compiled code reassociate its sums "
                             "(SRCAD_NUMBA_REASSOCIATE=1: several partial sums, as XLA; results "
                             "may differ in the last bits); default: sums in the order written")
    args = parser.parse_args(argv)
    # the ports and the libraries they import must not write to stdout: it carries responses
    stdout, sys.stdout = sys.stdout, sys.stderr
    try:
        if args.system_malloc:  # also what the numba backend's runtime reads when it loads
            os.environ["SRCAD_SYSTEM_MALLOC"] = "1"
        settings = {"freed_memory": "system" if args.system_malloc else memory.keep_freed_memory()}
        if args.reassociate:  # read by srcad when it builds each function's numba code
            os.environ["SRCAD_NUMBA_REASSOCIATE"] = "1"
        settings["sums"] = ("reassociated" if os.environ.get("SRCAD_NUMBA_REASSOCIATE", "")
                            .strip() == "1" else "in order")
        if args.tape_budget != "srcad":
            settings["tape_budget"] = memory.set_tape_budget(
                memory_bytes(args.tape_budget) if args.tape_budget
                else memory.tape_budget(memory.available_memory()))
        tool = Tool(load_ports(args.ports), args.backend, settings=settings)
        serve(tool, sys.stdin, stdout)
    finally:
        sys.stdout = stdout
