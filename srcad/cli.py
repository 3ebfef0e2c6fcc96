"""The `srcad` command line: show the generated derivative code of a function in a file, or
check its derivatives against finite differences, without writing a script.

    srcad show model.py:loss --mode reverse --args "Duplicated(array[5]), Active(float), float"
    srcad check model.py:loss --args "Duplicated(array[5]), Active(float), float"

The argument signature is written the way the Python API annotates arguments:
`Active(float)` for a differentiated scalar, `Duplicated(array[5])` for a differentiated float
array of shape (5,), and a bare `float`, `int`, `array[3, 4]` or a number literal for a
constant. The values are random (uniform in [0.5, 1.5), so that logarithms and square roots
are defined; ints are 3 unless given as a literal): the generated code depends only on the
signature, and `check` compares derivatives at a random point.

`show` prints the code highlighted when stdout is a terminal and `rich` or `pygments` is
installed, plain otherwise. `check` exits with status 1 when a derivative disagrees with
finite differences, and every command exits with status 2 on an error in its input or when
srcad refuses the function (the message names the file, the line and a fix).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import sys
from pathlib import Path

import numpy as np

from srcad.annotations import Active, BatchDuplicated, Duplicated, Forward, Reverse
from srcad.errors import SrcadError

EXAMPLES = """\
examples:
  srcad show examples/mixture.py:mixture_loglikelihood --args "Duplicated(array[12]), array[50]"
  srcad show model.py:f --mode forward --args "Active(float), float"
  srcad show model.py:f --mode vector --width 4 --args "Duplicated(array[4]), 2.0"
  srcad show model.py:f --backend numba --args "Duplicated(array[5])"
  srcad check examples/springs.py:final_kinetic_energy \\
      --args "Duplicated(array[5]), array[6], 1.0, 0.01, 20"

signature (--args), comma separated, one entry per argument:
  Active(float)          a scalar that is differentiated
  Duplicated(array[5])   a float array of shape (5,) that is differentiated
  float, int, array[3, 4], 2.5, 7
                         a constant (a literal number is passed as it is)
"""


class UsageError(Exception):
    """Bad input on the command line (exit status 2)."""


def parse_signature(text: str) -> list:
    """The signature string as a list of (kind, type) pairs: kind is "active", "duplicated"
    or "const"; type is "float", "int", a shape tuple (a float array) or a number literal."""
    try:
        tree = ast.parse(f"({text},)" if text.strip() else "()", mode="eval").body
    except SyntaxError as err:
        raise UsageError(f"cannot read --args {text!r}: {err.msg}") from None
    return [_entry(node, text) for node in tree.elts]


def _entry(node, text):
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        kind = node.func.id
        if kind not in ("Active", "Duplicated", "Const") or len(node.args) != 1 or node.keywords:
            raise UsageError(f"in --args {text!r}: {ast.unparse(node)} is not Active(float), "
                             "Duplicated(array[shape]) or Const(type)")
        inner = _type(node.args[0], text)
        if kind == "Active" and inner != "float":
            raise UsageError(f"in --args {text!r}: Active takes a float (Active(float)); use "
                             "Duplicated(array[shape]) for an array")
        if kind == "Duplicated" and not isinstance(inner, tuple):
            raise UsageError(f"in --args {text!r}: Duplicated takes a float array "
                             "(Duplicated(array[5])); use Active(float) for a scalar")
        return kind.lower(), inner
    return "const", _type(node, text)


def _type(node, text):
    if isinstance(node, ast.Name) and node.id in ("float", "int"):
        return node.id
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _type(node.operand, text)
        if type(value) in (int, float):
            return -value
    if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
            and node.value.id == "array"):
        dims = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if all(isinstance(d, ast.Constant) and type(d.value) is int and d.value >= 0
               for d in dims):
            return tuple(d.value for d in dims)
    raise UsageError(f"in --args {text!r}: {ast.unparse(node)} is not a type; write float, "
                     "int, array[shape] (array[5], array[3, 4]) or a number")


def random_value(kind_type, rng):
    """A value of that type: floats uniform in [0.5, 1.5), ints 3, literals as written."""
    if isinstance(kind_type, tuple):
        return rng.uniform(0.5, 1.5, size=kind_type)
    if kind_type == "float":
        return float(rng.uniform(0.5, 1.5))
    if kind_type == "int":
        return 3
    return kind_type


def annotated_arguments(signature, mode="reverse", width=None, seed=0):
    """The annotated arguments for `srcad.source` / `check_grads` in this mode."""
    rng = np.random.default_rng(seed)
    args = []
    for kind, kind_type in signature:
        value = random_value(kind_type, rng)
        if kind == "const":
            args.append(value)
        elif mode == "vector":
            shadows = np.zeros((width,) + np.shape(value))
            args.append(BatchDuplicated(value, shadows if np.ndim(value) else list(shadows)))
        elif kind == "duplicated":
            args.append(Duplicated(value, np.zeros_like(value)))
        elif mode == "forward":
            args.append(Duplicated(value, 1.0))
        else:
            args.append(Active(value))
    return args


def load_function(target: str):
    """`path/to/module.py:func` or `package.module:func` -> the function."""
    location, sep, name = target.rpartition(":")
    if not sep or not location or not name:
        raise UsageError(f"{target!r}: write the function as path/to/module.py:func or "
                         "package.module:func")
    if location.endswith(".py") or "/" in location or "\\" in location:
        path = Path(location).resolve()
        if not path.is_file():
            raise UsageError(f"{location}: no such file")
        module_name = "_cli_module_" + path.stem  # not srcad_*: the prefix of generated modules
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module  # inspect.getsource and pickling look it up here
        sys.path.insert(0, str(path.parent))  # the module may import its neighbours
        try:
            spec.loader.exec_module(module)
        finally:
            sys.path.remove(str(path.parent))
    else:
        module = importlib.import_module(location)
    function = module
    for part in name.split("."):
        if not hasattr(function, part):
            raise UsageError(f"{location} has no {name!r}")
        function = getattr(function, part)
    return function


def highlighted(code: str, stream) -> str:
    """`code` with terminal colors when `stream` is a terminal and pygments is installed."""
    if not (hasattr(stream, "isatty") and stream.isatty()):
        return code
    try:
        from pygments import highlight
        from pygments.formatters import TerminalFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return code
    return highlight(code, PythonLexer(), TerminalFormatter())


def print_code(code: str, stream) -> None:
    """Print generated code: through rich when it is installed and `stream` is a terminal,
    else through pygments, else plain."""
    if hasattr(stream, "isatty") and stream.isatty():
        try:
            from rich.console import Console
            from rich.syntax import Syntax
        except ImportError:
            pass
        else:
            Console(file=stream).print(Syntax(code, "python"))
            return
    stream.write(highlighted(code, stream).rstrip("\n") + "\n")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="srcad", description="Show or check the derivative code srcad generates for a "
        "Python function.", epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True, metavar="{show,check}")
    for name, text in (("show", "print the generated derivative code"),
                       ("check", "compare forward, vector and reverse derivatives with finite "
                                 "differences at random inputs")):
        command = commands.add_parser(name, help=text, description=text, epilog=EXAMPLES,
                                      formatter_class=argparse.RawDescriptionHelpFormatter)
        command.add_argument("target", help="path/to/module.py:func or package.module:func")
        command.add_argument("--args", default="", metavar="SIGNATURE",
                             help='the arguments, e.g. "Duplicated(array[5]), Active(float), '
                                  'float"')
        command.add_argument("--backend", choices=("python", "numba"), default="python")
        command.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
        if name == "show":
            command.add_argument("--mode", choices=("reverse", "forward", "vector"),
                                 default="reverse")
            command.add_argument("--width", type=int, default=None, metavar="W",
                                 help="tangent lanes of vector mode (implies --mode vector; "
                                      "default 2)")
    return parser


def show(options, stdout) -> int:
    mode = "vector" if options.width is not None else options.mode
    width = options.width if options.width is not None else 2
    if width < 1:
        raise UsageError("--width must be at least 1")
    f = load_function(options.target)
    args = annotated_arguments(parse_signature(options.args), mode, width, options.seed)
    from srcad.api.decorators import source
    code = source(f, Reverse if mode == "reverse" else Forward, *args, backend=options.backend)
    print_code(code, stdout)
    return 0


def check(options, stdout) -> int:
    from srcad.testing import check_grads
    f = load_function(options.target)
    args = annotated_arguments(parse_signature(options.args), "reverse", None, options.seed)
    try:
        check_grads(f, *args, seed=options.seed, backend=options.backend)
    except AssertionError as failure:
        stdout.write(f"FAILED: {options.target}: {failure}\n")
        return 1
    stdout.write(f"ok: {options.target}: forward, vector and reverse mode agree with finite "
                 f"differences at a random point (seed {options.seed})\n")
    return 0


def main(argv=None, stdout=None, stderr=None) -> int:
    """Run the command line; returns the exit status."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    options = build_parser().parse_args(argv)
    try:
        return (show if options.command == "show" else check)(options, stdout)
    except (UsageError, SrcadError) as err:
        stderr.write(f"srcad {options.command}: {err}\n")
        return 2


def console_main() -> None:
    """Entry point of the `srcad` console script and `python -m srcad`."""
    sys.exit(main())
