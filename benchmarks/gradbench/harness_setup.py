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

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
VENDORED = ROOT / "third_party" / "gradbench"
GRADBENCH_PYTHON = VENDORED / "python" / "gradbench"
EVALS = GRADBENCH_PYTHON / "gradbench" / "evals"
JAX_TOOL = GRADBENCH_PYTHON / "gradbench" / "tools" / "jax" / "run.py"
BUILD = ROOT / "build" / "gradbench"
# GradBench's lstm eval reads its text from here (relative to its working directory, BUILD)
LSTM_TEXT = Path("evals") / "lstm" / "data" / "lstm_full.txt"
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
    link = BUILD / "cpp"  # the headers
    if not link.exists():
        link.symlink_to(VENDORED / "cpp", target_is_directory=True)
    evals = BUILD / "evals"  # ba's and ht's data files, and lstm's substitute text
    if evals.is_symlink():  # an older build linked the whole vendored folder
        evals.unlink()
    for source in (VENDORED / "evals").iterdir():
        link = evals / source.name
        if not link.exists():
            evals.mkdir(exist_ok=True)
            link.symlink_to(source, target_is_directory=True)
    write_lstm_text(evals / "lstm" / "data" / LSTM_TEXT.name)
    for source in (VENDORED / "tools" / "manual").iterdir():
        link = BUILD / "tools" / "manual" / source.name
        if not link.exists():
            link.symlink_to(source)


def substitute_text(length: int = 8192, seed: int = 31337) -> str:
    """A seeded random text of lowercase letters, spaces and punctuation: 7 bits per
    character, as the English text GradBench's lstm eval reads (which GradBench keeps
    outside its git tree); the eval generates the parameters and judges every answer against
    its C++ reference on the same input, so the text only sets the characters' bits."""
    rng = np.random.default_rng(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyz      .,"
    return "".join(alphabet[i] for i in rng.integers(len(alphabet), size=length))


def write_lstm_text(path: Path) -> None:
    """`path` holds the substitute text (written once; a file already there is kept)."""
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(substitute_text(), encoding="utf8")


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


def srcad_tool_command(backend: str, options=()) -> list[str]:
    return [sys.executable, "-m", "srcad.gradbench", "--backend", backend, *options]


def srcad_tool_environment() -> dict:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return dict(os.environ, PYTHONPATH=path)


def jax_tool_command() -> list[str]:
    """GradBench's JAX tool through a launcher that makes its timed runs wait for the results
    (jax_tool_waiting.py; the tool's code is unchanged)."""
    return [sys.executable, str(Path(__file__).resolve().parent / "jax_tool_waiting.py")]


def jax_tool_evals() -> set[str]:
    return set((VENDORED / "tools" / "jax" / "evals.txt").read_text().split())
