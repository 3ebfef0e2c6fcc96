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

`show` prints the plain derivative (loops taped whole) and names on stderr the variants srcad
generates besides it, which `--variants` prints too (srcad/cli/variants.py); the code is
highlighted when stdout is a terminal and `rich` or `pygments` is installed, plain otherwise.
`check` exits with status 1 when a derivative disagrees with finite differences, and every
command exits with status 2 and one or two lines on stderr on a mistake in its input or the
user's file, or when srcad refuses the function (the message names the file, the line and a
fix; srcad/cli/target.py). `srcad --version` prints the version.
"""

from __future__ import annotations

import argparse
import ast
import copy
import re
import sys

import numpy as np

from srcad._version import __version__
from srcad.annotations import Active, BatchDuplicated, Duplicated, Forward, Reverse
from srcad.cli.target import UsageError, check_arity, load_function, user_frame
from srcad.cli.variants import note, shown
from srcad.errors import SrcadError
from srcad.testing import check_grads

EXAMPLES = """\
examples:
  srcad show examples/mixture.py:mixture_loglikelihood --args "Duplicated(array[12]), array[50]"
  srcad show model.py:f --mode forward --args "Active(float), float"
  srcad show model.py:f --mode vector --width 4 --args "Duplicated(array[4]), 2.0"
  srcad show model.py:f --backend numba --args "Duplicated(array[5])"
  srcad show model.py:f --variants --args "Duplicated(array[5])"   # checkpointed loops too
  srcad check examples/springs.py:final_kinetic_energy \\
      --args "Duplicated(array[5]), array[6], 1.0, 0.01, 20"

signature (--args), comma separated, one entry per argument:
  Active(float)          a scalar that is differentiated
  Duplicated(array[5])   a float array of shape (5,) that is differentiated
  float, int, array[3, 4], 2.5, 7
                         a constant (a literal number is passed as it is)
"""


SIGNATURE_HINT = ("write one entry per argument, comma separated: Active(float), "
                  "Duplicated(array[5]), float, int, array[3, 4] or a number")


def parse_signature(text: str) -> list:
    """The signature string as a list of (kind, type) pairs: kind is "active", "duplicated"
    or "const"; type is "float", "int", a shape tuple (a float array) or a number literal."""
    empty = re.search(r"\barray\[\s*\]", text)
    if empty:
        raise UsageError(f"in --args {text!r}: array[] has no shape",
                         "write array[5] for 5 floats, array[3, 4] for a 3 by 4 array, float "
                         "for a number")
    try:
        tree = ast.parse(f"({text},)" if text.strip() else "()", mode="eval").body
    except SyntaxError as err:
        # Python's guesses ("Perhaps you forgot a comma?") are about Python, not a signature
        reason = err.msg.split(". Perhaps")[0].split("; perhaps")[0]
        raise UsageError(f"cannot read --args {text!r}: {reason}", SIGNATURE_HINT) from None
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


class _Parser(argparse.ArgumentParser):
    """argparse's parser, with a mistake in the command line told in two lines (argparse
    prints its whole usage first); the subcommands' parsers are of this class too."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message}\n  `{self.prog} --help` lists the options, with "
                     "examples\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="srcad", description="Show or check the derivative code srcad generates for a "
        "Python function.", epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"srcad {__version__}")
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
            command.add_argument("--variants", action="store_true",
                                 help="also print the variants srcad generates besides the "
                                      "plain derivative (checkpointed loops, shapes recorded)")
    return parser


def _function_and_signature(options):
    """The target function and the parsed --args, checked against each other."""
    signature = parse_signature(options.args)
    f = load_function(options.target)
    check_arity(f, len(signature), options.target.rpartition(":")[2])
    return f, signature


def show(options, stdout, stderr) -> int:
    mode = "vector" if options.width is not None else options.mode
    width = options.width if options.width is not None else 2
    if width < 1:
        raise UsageError("--width must be at least 1")
    f, signature = _function_and_signature(options)
    args = annotated_arguments(signature, mode, width, options.seed)
    result = shown(f, Reverse if mode == "reverse" else Forward, args, options.backend,
                   options.variants)
    print_code(result.code, stdout)
    stderr.write(note(result.left_out))
    return 0


def check(options, stdout, stderr) -> int:
    f, signature = _function_and_signature(options)
    name = options.target.rpartition(":")[2]
    if all(kind == "const" for kind, _ in signature):
        raise UsageError(f"check of {name} needs an argument to differentiate",
                         "mark one in --args: Active(float) or Duplicated(array[5])")
    args = annotated_arguments(signature, "reverse", None, options.seed)
    try:
        values = [copy.deepcopy(getattr(a, "value", a)) for a in args]
        _check_output(f(*values), name)
        check_grads(f, *args, seed=options.seed, backend=options.backend)
    except AssertionError as failure:
        stdout.write(f"FAILED: {options.target}: {failure}\n")
        return 1
    except (SrcadError, KeyboardInterrupt):
        raise
    except Exception as err:
        where = user_frame(err)  # the innermost line of the user's files (or a helper's)
        if where is None:
            raise  # not raised by the user's code: srcad's own bug, shown whole
        raise UsageError(f"{where}: {type(err).__name__}: {err}",
                         f"raised running {options.target.rpartition(':')[2]} on random "
                         f"values of --args {options.args!r}: do the shapes and types fit "
                         "what it does there?") from None
    stdout.write(f"ok: {options.target}: forward, vector and reverse mode agree with finite "
                 f"differences at a random point (seed {options.seed})\n")
    return 0


def _check_output(value, name: str) -> None:
    """`check` compares numbers: refuse an output that is none (None is a function that
    writes its results into its array arguments)."""
    leaves = value if isinstance(value, (tuple, list)) else (value,)
    for leaf in leaves:
        if leaf is not None and (isinstance(leaf, (str, bytes))
                                 or np.asarray(leaf).dtype.kind not in "biuf"):
            raise UsageError(f"{name} returns {type(value).__name__} {value!r:.40}; check "
                             "compares the derivatives of float or float-array outputs",
                             "return the number (or array) to differentiate")


def main(argv=None, stdout=None, stderr=None) -> int:
    """Run the command line; returns the exit status."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    options = build_parser().parse_args(argv)
    try:
        return (show if options.command == "show" else check)(options, stdout, stderr)
    except (UsageError, SrcadError) as err:
        stderr.write(f"srcad {options.command}: {err}\n")
        return 2


def console_main() -> None:
    """Entry point of the `srcad` console script and `python -m srcad`."""
    sys.exit(main())
