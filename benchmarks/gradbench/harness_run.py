"""GradBench's CLI, played in Python: an eval program and a tool connected over the protocol,
every message recorded with its timings and the eval's own analysis.

    python benchmarks/gradbench/harness_run.py --eval lse --tool srcad-numba -- -n 1000

Follows crates/gradbench/src/intermediary.rs: each line the eval writes is recorded with the
time since the start, forwarded to the tool, the tool's one line of response is recorded and
forwarded back to the eval; "analysis" messages go to the tool too (it answers with the id),
and the eval's verdict is kept with the evaluate message it judges. A tool that does not
answer within `timeout` seconds is killed and the run's outcome is "timeout". The outcome is
the CLI's: "undefined" if a define failed, else "failure" if an evaluate failed, else
"invalid" if an analysis said so, else "success" ("error" for a broken conversation).
Inputs and outputs are not kept in the log (they can be megabytes), only their sizes.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness_setup as setup  # noqa: E402


class Timeout(Exception):
    pass


class LineReader:
    """Lines from a pipe, each awaited at most `timeout` seconds."""

    def __init__(self, stream):
        self.fd = stream.fileno()
        self.buffer = b""
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.fd, selectors.EVENT_READ)

    def readline(self, timeout: float | None = None) -> str:
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise Timeout
            if not self.selector.select(left):
                raise Timeout
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:  # end of file: what is left, possibly ""
                line, self.buffer = self.buffer, b""
                return line.decode()
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode() + "\n"


@dataclass
class Program:
    command: list[str]
    cwd: Path
    env: dict


def timings_summary(timings) -> dict:
    """{name: {"count", "total_ns", "min_ns"}} of a response's timings."""
    summary: dict[str, dict] = {}
    for timing in timings or []:
        entry = summary.setdefault(timing["name"], {"count": 0, "total_ns": 0, "min_ns": None})
        entry["count"] += 1
        entry["total_ns"] += timing["nanoseconds"]
        entry["min_ns"] = (timing["nanoseconds"] if entry["min_ns"] is None
                           else min(entry["min_ns"], timing["nanoseconds"]))
    return summary


def record(message: dict, response: dict | None, sent: int, answered: int | None) -> dict:
    entry = {"id": message.get("id"), "kind": message.get("kind"), "elapsed_ns": sent}
    for key in ("module", "function", "description", "eval"):
        if key in message:
            entry[key] = message[key]
    if "input" in message:
        entry["input_bytes"] = len(json.dumps(message["input"]))
    if response is None:
        return entry
    entry["response_ns"] = answered - sent
    for key in ("success", "error", "tool", "config"):
        if key in response:
            entry[key] = response[key]
    if "timings" in response:
        entry["timings"] = timings_summary(response["timings"])
    if "output" in response:
        entry["output_bytes"] = len(json.dumps(response["output"]))
    return entry


def converse(eval_program: Program, tool_program: Program, timeout: float | None = 600,
             stderr_dir: Path | None = None) -> dict:
    """Run one eval against one tool; the log: messages, outcome, wall time."""
    stderr_dir = Path(stderr_dir or setup.BUILD / "logs")
    stderr_dir.mkdir(parents=True, exist_ok=True)
    stamp = f"{os.getpid()}-{time.monotonic_ns()}"
    eval_err = open(stderr_dir / f"eval-{stamp}.err", "w+")
    tool_err = open(stderr_dir / f"tool-{stamp}.err", "w+")
    start = time.monotonic_ns()
    tool = subprocess.Popen(tool_program.command, cwd=tool_program.cwd, env=tool_program.env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=tool_err)
    evaluator = subprocess.Popen(eval_program.command, cwd=eval_program.cwd,
                                 env=eval_program.env, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=eval_err)
    eval_out, tool_out = LineReader(evaluator.stdout), LineReader(tool.stdout)
    messages: list[dict] = []
    by_id: dict = {}
    outcome, problem = None, None
    counts = {"undefined": 0, "failure": 0, "invalid": 0}
    try:
        while True:
            line = eval_out.readline()
            if not line:
                break
            sent = time.monotonic_ns() - start
            message = json.loads(line)
            if message.get("kind") == "analysis":
                judged = by_id.get(message["of"])
                if judged is not None:
                    judged["valid"] = message["valid"]
                    if message.get("error"):
                        judged["analysis_error"] = message["error"]
                if not message["valid"]:
                    counts["invalid"] += 1
            tool.stdin.write(line.encode() if line.endswith("\n") else (line + "\n").encode())
            tool.stdin.flush()
            if message.get("kind") == "end":
                messages.append(record(message, None, sent, None))
                continue
            try:
                reply = tool_out.readline(timeout)
            except Timeout:
                outcome = "timeout"
                entry = record(message, None, sent, None)
                entry["timeout_s"] = timeout
                messages.append(entry)
                break
            answered = time.monotonic_ns() - start
            if not reply:
                raise RuntimeError("the tool ended without answering")
            response = json.loads(reply)
            if response.get("id") != message.get("id"):
                raise RuntimeError(f"response id {response.get('id')} to message "
                                   f"{message.get('id')}")
            if message.get("kind") == "define" and not response.get("success"):
                counts["undefined"] += 1
            if message.get("kind") == "evaluate" and not response.get("success"):
                counts["failure"] += 1
            if message.get("kind") == "evaluate" and response.get("success") \
                    and "output" not in response:
                raise RuntimeError("tool reported success but gave no output")
            entry = record(message, response, sent, answered)
            if message.get("kind") != "analysis":
                messages.append(entry)
                by_id[message.get("id")] = entry
            evaluator.stdin.write(reply.encode() if reply.endswith("\n")
                                  else (reply + "\n").encode())
            evaluator.stdin.flush()
    except (BrokenPipeError, RuntimeError, ValueError) as exc:
        outcome, problem = "error", f"{type(exc).__name__}: {exc}"
    finally:
        for process in (evaluator, tool):
            try:
                process.stdin.close()
            except BrokenPipeError:
                pass
        if outcome == "timeout":
            tool.kill()
        for process in (evaluator, tool):
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    if outcome is None:
        outcome = next((name for name, count in counts.items() if count), "success")
    if evaluator.returncode not in (0, None) and outcome == "success":
        outcome, problem = "error", f"the eval exited with {evaluator.returncode}"
    eval_err.seek(0)
    tool_err.seek(0)
    return {"outcome": outcome, "problem": problem, "messages": messages,
            "wall_ns": time.monotonic_ns() - start,
            "eval_stderr_tail": eval_err.read()[-2000:],
            "tool_stderr_tail": tool_err.read()[-2000:],
            "eval_command": eval_program.command[1:], "tool_command": tool_program.command[1:]}


def tool_program(tool: str, options=()) -> Program:
    """srcad-numba, srcad-python or jax, as a Program; `options`: srcad's tool's own options
    (`--reassociate`)."""
    if tool.startswith("srcad-"):
        return Program(setup.srcad_tool_command(tool.removeprefix("srcad-"), options), setup.ROOT,
                       setup.srcad_tool_environment())
    if tool == "jax":
        return Program(setup.jax_tool_command(), setup.ROOT, setup.eval_environment())
    raise ValueError(f"unknown tool {tool!r}")


def eval_program(name: str, args=()) -> Program:
    return Program(setup.eval_command(name, args), setup.BUILD, setup.eval_environment())


def run(name: str, tool: str, args=(), timeout: float | None = 600, options=()) -> dict:
    """One eval (GradBench's program, with `args`) against one tool (srcad's with `options`);
    the C++ reference built first where the eval validates with it."""
    setup.link_tree()
    if name in setup.REFERENCE_MODULES:
        setup.build_reference((name,))
    log = converse(eval_program(name, args), tool_program(tool, options), timeout)
    log.update(eval=name, tool=tool, args=list(map(str, args)))
    return log


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval", required=True)
    parser.add_argument("--tool", default="srcad-numba")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--out", default=None, help="the JSON log (default: stdout)")
    parser.add_argument("--tool-option", action="append", default=[],
                        help="an option of srcad's tool (--tool-option=--reassociate)")
    parser.add_argument("eval_args", nargs="*", help="arguments of the eval program")
    args = parser.parse_args(argv)
    log = run(args.eval, args.tool, args.eval_args, args.timeout, args.tool_option)
    text = json.dumps(log, indent=1)
    if args.out:
        Path(args.out).write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
