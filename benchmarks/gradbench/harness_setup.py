"""Where GradBench's vendored eval programs and C++ reference tool live, and the one build of
that reference (third_party/gradbench, see its README).

Guarantees: the reference tool `manual` is built by its own Makefile, with g++, in
build/gradbench/ (never in the source tree), once: make rebuilds a program only when its
sources changed. The eval programs run with build/gradbench/ as their working directory, as
GradBench runs them from its checkout (they call `tools/manual/bin/<eval>` by that relative
path), and with the vendored `gradbench` package on their PYTHONPATH. Nothing is fetched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENDORED = ROOT / "third_party" / "gradbench"
GRADBENCH_PYTHON = VENDORED / "python" / "gradbench"
EVALS = GRADBENCH_PYTHON / "gradbench" / "evals"
JAX_TOOL = GRADBENCH_PYTHON / "gradbench" / "tools" / "jax" / "run.py"
BUILD = ROOT / "build" / "gradbench"
# evals whose validator runs the C++ reference (hello checks by assertion; particle and saddle
# compare the tool's answers among themselves)
REFERENCE_MODULES = ("gmm", "lstm", "ba", "ht", "kmeans", "ode", "llsq", "det", "lse")
# nlohmann's json.hpp, which GradBench's Makefile downloads: Debian's nlohmann-json3-dev
JSON_INCLUDE = Path("/usr/include/nlohmann")


def json_header_found() -> bool:
    return (JSON_INCLUDE / "json.hpp").is_file()


def link_tree() -> None:
    """build/gradbench/{cpp,tools/manual} as links to the vendored sources, so that make's
    relative paths (../../cpp) resolve and its bin/ lands in build/."""
    (BUILD / "tools" / "manual").mkdir(parents=True, exist_ok=True)
    for folder in ("cpp", "evals"):  # the headers; ba's and ht's data files
        link = BUILD / folder
        if not link.exists():
            link.symlink_to(VENDORED / folder, target_is_directory=True)
    for source in (VENDORED / "tools" / "manual").iterdir():
        link = BUILD / "tools" / "manual" / source.name
        if not link.exists():
            link.symlink_to(source)


def build_reference(modules=REFERENCE_MODULES, jobs: int = 2) -> Path:
    """Build GradBench's C++ reference programs for `modules` (cached); the tool's folder."""
    if not shutil.which("make") or not shutil.which("g++"):
        raise RuntimeError("building GradBench's C++ reference needs make and g++")
    if not json_header_found():
        raise RuntimeError(f"{JSON_INCLUDE / 'json.hpp'} not found: GradBench's C++ reference "
                           "needs nlohmann's JSON header (apt-get install nlohmann-json3-dev)")
    link_tree()
    # CXXFLAGS from the environment: common.mk's `?=` takes it and its `+=` still adds
    # -march=native and -Wno-unknown-pragmas
    env = dict(os.environ, CXX="g++",
               CXXFLAGS=f"-std=c++17 -O3 -Wall -I../../cpp -isystem {JSON_INCLUDE}")
    targets = [f"bin/{module}" for module in modules]
    result = subprocess.run(["make", f"-j{jobs}", "-s", "-C", str(BUILD / "tools" / "manual"),
                             *targets], env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"building GradBench's C++ reference failed:\n{result.stderr[-4000:]}")
    return BUILD / "tools" / "manual"


def eval_command(name: str, args=()) -> list[str]:
    return [sys.executable, str(EVALS / name / "run.py"), *map(str, args)]


def eval_environment(extra_path: str | None = None) -> dict:
    """The environment of an eval program: the vendored gradbench package importable (and
    $SRCAD_GRADBENCH_PYTHONPATH, a folder holding pydantic where the venv lacks it)."""
    paths = [str(GRADBENCH_PYTHON)]
    extra = extra_path or os.environ.get("SRCAD_GRADBENCH_PYTHONPATH")
    if extra:
        paths.append(extra)
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths))


def srcad_tool_command(backend: str) -> list[str]:
    return [sys.executable, "-m", "srcad.gradbench", "--backend", backend]


def srcad_tool_environment() -> dict:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return dict(os.environ, PYTHONPATH=path)


def jax_tool_command() -> list[str]:
    """GradBench's JAX tool through a launcher that makes its timed runs wait for the results
    (jax_tool_waiting.py; the tool's code is unchanged)."""
    return [sys.executable, str(Path(__file__).resolve().parent / "jax_tool_waiting.py")]


def jax_tool_evals() -> set[str]:
    return set((VENDORED / "tools" / "jax" / "evals.txt").read_text().split())
