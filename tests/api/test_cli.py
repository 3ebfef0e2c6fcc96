"""The `srcad` command line (srcad/cli/__init__.py): `show` prints the generated code for a
signature written as in the Python API, `check` runs check_grads at random inputs, and both exit
nonzero on failure or refusal. One subprocess run checks `python -m srcad` end to end; the rest run
in-process."""

import io
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import numpy as np
import pytest

import srcad
from srcad import cli

ROOT = Path(__file__).resolve().parents[2]

MODULE = textwrap.dedent('''
    import math

    def weighted(x, a, c):
        s = 0.0
        for i in range(len(x)):
            s += c[i] * math.sin(a * x[i])
        return s

    def refused(x):
        try:
            y = x * x
        except ValueError:
            y = x
        return y
''')


@pytest.fixture(scope="module")
def module_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "model.py"
    path.write_text(MODULE)
    return path


def run(argv, stdout=None):
    out, err = stdout or io.StringIO(), io.StringIO()
    status = cli.main(argv, stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_python_dash_m_srcad_shows_reverse_code_plain_when_piped(module_file):
    result = subprocess.run(
        [sys.executable, "-m", "srcad", "show", f"{module_file}:weighted", "--mode", "reverse",
         "--args", "Duplicated(array[5]), Active(float), array[5]"],
        capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    # the adjoint takes the shadow of x beside x, and a is Active, c constant
    assert "def weighted_reverse(x, x_bar, a, c" in result.stdout
    assert "\x1b[" not in result.stdout  # not a terminal: no color codes


def test_help_lists_examples():
    with pytest.raises(SystemExit) as exit_:
        cli.build_parser().parse_args(["--help"])
    assert exit_.value.code == 0


def test_help_text_has_examples_and_the_signature_syntax(capsys):
    with pytest.raises(SystemExit):
        cli.main(["show", "--help"])
    text = capsys.readouterr().out
    assert "srcad show" in text and "Duplicated(array[5])" in text and "--width" in text


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_show_highlights_on_a_terminal_when_pygments_is_installed(module_file):
    pytest.importorskip("pygments")
    status, out, _ = run(["show", f"{module_file}:weighted", "--args",
                          "Duplicated(array[3]), float, array[3]"], stdout=Terminal())
    assert status == 0 and "\x1b[" in out and "weighted_reverse" in out


def test_forward_and_vector_modes_take_tangents_per_lane(module_file):
    status, out, _ = run(["show", f"{module_file}:weighted", "--mode", "forward", "--args",
                          "Duplicated(array[4]), Active(float), array[4]"])
    assert status == 0 and "def weighted_forward(x, x_dot, a, a_dot, c" in out
    status, out, _ = run(["show", f"{module_file}:weighted", "--width", "3", "--args",
                          "Duplicated(array[4]), 2.0, array[4]"])
    assert status == 0 and "3 unrolled lanes" in out


def test_check_passes_and_reports(module_file):
    status, out, _ = run(["check", f"{module_file}:weighted", "--args",
                          "Duplicated(array[4]), Active(float), array[4]"])
    assert status == 0 and out.startswith("ok:")


def test_check_exits_1_when_a_derivative_disagrees(module_file, monkeypatch):
    def disagreeing(*args, **kwargs):
        raise AssertionError("reverse <J^T u, v> = 1.0 disagrees with finite differences 2.0")
    monkeypatch.setattr(cli, "check_grads", disagreeing)
    status, out, _ = run(["check", f"{module_file}:weighted", "--args",
                          "Duplicated(array[4]), Active(float), array[4]"])
    assert status == 1 and "FAILED" in out and "disagrees" in out


def test_a_refusal_exits_2_naming_the_line(module_file):
    status, _, err = run(["show", f"{module_file}:refused", "--args", "Active(float)"])
    assert status == 2 and "model.py:" in err and "try" in err


@pytest.mark.parametrize("signature, message", [
    ("Active(array[3])", "Active takes a float"),
    ("Duplicated(float)", "Duplicated takes a float array"),
    ("array[2.5]", "is not a type"),
    ("Duplicated(array[3]", "cannot read"),
])
def test_bad_signatures_are_refused_with_a_hint(signature, message):
    with pytest.raises(cli.UsageError, match=message.replace("[", r"\[")):
        cli.parse_signature(signature)


def test_signature_values_have_the_written_shapes():
    signature = cli.parse_signature("Duplicated(array[2, 3]), Active(float), int, 7, -0.5, float")
    args = cli.annotated_arguments(signature)
    assert isinstance(args[0], srcad.Duplicated) and args[0].value.shape == (2, 3)
    assert np.all(args[0].shadow == 0)
    assert isinstance(args[1], srcad.Active) and isinstance(args[1].value, float)
    assert args[2:5] == [3, 7, -0.5] and isinstance(args[5], float)


def test_missing_function_or_file_is_a_usage_error(module_file):
    assert run(["show", f"{module_file}:absent", "--args", "float"])[0] == 2
    assert run(["show", "no/such/file.py:f", "--args", "float"])[0] == 2
    assert run(["show", "no_colon", "--args", "float"])[0] == 2


def test_console_script_is_declared():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, name = scripts["srcad"].partition(":")
    assert module == "srcad.cli" and callable(getattr(cli, name))


# -- every user mistake: one or two lines on stderr, exit status 2 (the console script) --------

MISTAKES = {
    "shapes.py": textwrap.dedent('''
        import numpy as np

        def project(x, A):
            return np.sum(A @ x)
    '''),
    "broken.py": "def f(x:\n    return x\n",
    "helpers.py": "def inner(x, A):\n    return A @ x\n",
    "script.py": "import sys\n\ndef f(x):\n    return x\n\nsys.exit(0)\n",
    "raises.py": "def f(x):\n    return x\n\nDATA = 1 / 0\n",
    "uses_helper.py": "import numpy as np\nfrom helpers import inner\n\n\ndef outer(x, A):\n"
                      "    return np.sum(inner(x, A))\n",
    "needs.py": "import a_module_nobody_installed\n\ndef f(x):\n    return x\n",
    "model.py": MODULE + textwrap.dedent('''
        class Model:
            def __init__(self):
                self.w = 2.0

            def loss(self, x):
                return self.w * x * x
    '''),
    "outputs.py": "def text(x):\n    return 'a'\n\n\ndef squares(x):\n"
                  "    for i in range(len(x)):\n        x[i] = x[i] * x[i]\n",
    "mypackage/__init__.py": "",
    "mypackage/physics.py": MODULE,
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("mistakes")
    for name, text in MISTAKES.items():
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text(text)
    return root


def console(argv, cwd):
    """The console script as installed: `console_main` with the current folder NOT on the
    import path (python -P), run in `cwd`."""
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-P", "-c",
                           "from srcad.cli import console_main; console_main()", *argv],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


@pytest.mark.parametrize("argv, expected", [
    # a shape that does not fit what the function does: the user's line, the numpy message
    (["check", "shapes.py:project", "--args", "Duplicated(array[3]), array[4, 5]"],
     ["shapes.py:5: ValueError: matmul", "--args"]),
    # ... raised in a helper of another file of the user's: there, not in NumPy
    (["check", "uses_helper.py:outer", "--args", "Duplicated(array[3]), array[4, 5]"],
     ["helpers.py:2: ValueError: matmul"]),
    (["check", "shapes.py:project", "--args", "Duplicated(array[3])"],
     ["project takes 2 arguments (x, A); --args gives 1"]),
    (["show", "broken.py:f", "--args", "Active(float)"], ["broken.py:1:6: syntax error"]),
    (["show", "needs.py:f", "--args", "Active(float)"],
     ["needs.py:1: No module named 'a_module_nobody_installed'"]),
    (["show", "model.py:weighted", "--args", "Duplicated(array[]), float, array[3]"],
     ["array[] has no shape", "array[5]"]),
    (["show", "model.py:weighted", "--args", "Duplicated(array[3] float"],
     ["cannot read --args"]),
    (["show", "script.py:f", "--args", "Active(float)"],
     ["script.py:6: the module exits while it is imported", "__main__"]),
    (["show", "raises.py:f", "--args", "Active(float)"],
     ["raises.py:4: importing the module raised ZeroDivisionError"]),
    (["show", "model.py:Model.loss", "--args", "Active(float)"],
     ["model.py:", "Model.loss is a method", "def loss(w, x)"]),
    (["show", "model.py:Model", "--args", "Active(float)"], ["Model is a class"]),
    (["show", "model.py:math.sin", "--args", "Active(float)"], ["not a function defined"]),
    (["show", "mypackage.absent:f", "--args", "float"], ["no module named 'mypackage.absent'"]),
    (["check", "outputs.py:text", "--args", "Active(float)"], ["text returns str"]),
    (["check", "shapes.py:project", "--args", "array[3], array[4, 3]"],
     ["needs an argument to differentiate", "Active(float)"]),
    # mistakes argparse finds: its message and where help is, without the whole usage
    (["show"], ["the following arguments are required: target", "srcad show --help"]),
    (["show", "shapes.py:project", "--backend", "jax"], ["invalid choice: 'jax'"]),
    (["check", "shapes.py:project", "--seed", "x"], ["invalid int value: 'x'"]),
])
def test_a_mistake_is_told_in_two_lines_with_exit_status_2(folder, argv, expected):
    result = console(argv, folder)
    lines = result.stderr.splitlines()
    assert result.returncode == 2, result.stderr
    assert 1 <= len(lines) <= 2 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith(f"srcad {argv[0]}: ")
    for text in expected:
        assert text in result.stderr, result.stderr
    assert "Perhaps you forgot a comma" not in result.stderr
    assert "arguments, 1 given" not in result.stderr  # a method is explained, not miscounted


@pytest.mark.parametrize("argv, expected", [
    ([], "the following arguments are required"),
    (["frob"], "invalid choice: 'frob'"),
])
def test_a_mistake_before_the_command_is_told_in_two_lines(folder, argv, expected):
    result = console(argv, folder)
    lines = result.stderr.splitlines()
    assert result.returncode == 2 and len(lines) == 2, result.stderr
    assert lines[0].startswith("srcad: ") and expected in lines[0]
    assert "srcad --help" in lines[1]


def test_package_module_form_imports_from_the_current_folder(folder):
    result = console(["show", "mypackage.physics:weighted", "--args",
                      "Duplicated(array[3]), float, array[3]"], folder)
    assert result.returncode == 0, result.stderr
    assert "def weighted_reverse(x, x_bar, a, c" in result.stdout


def test_check_of_a_function_writing_its_argument_in_place(folder):
    result = console(["check", "outputs.py:squares", "--args", "Duplicated(array[3])"], folder)
    assert result.returncode == 0 and result.stdout.startswith("ok:"), result.stderr


def test_version(folder):
    result = console(["--version"], folder)
    assert result.returncode == 0 and result.stdout.strip() == f"srcad {srcad.__version__}"


SPRINGS = ["examples/springs.py:final_kinetic_energy", "--args",
           "Duplicated(array[5]), array[6], 1.0, 0.01, 20"]


def test_show_prints_the_plain_derivative_and_names_the_checkpointed_variant():
    status, out, err = run(["show", *[str(ROOT / SPRINGS[0])], *SPRINGS[1:]])
    assert status == 0
    assert "checkpoint_plan" not in out and "def final_kinetic_energy_reverse" in out
    assert "left out 1 variant" in err and "loop at line 25" in err and "--variants" in err
    status, out, err = run(["show", str(ROOT / SPRINGS[0]), *SPRINGS[1:], "--variants"])
    assert status == 0 and err == ""
    plain, _, variant = out.partition("# variant: ")
    assert "checkpoint_plan" not in plain and "checkpoint_plan" in variant


def test_show_names_the_variant_recording_shapes(tmp_path):
    path = tmp_path / "grow.py"
    path.write_text("import numpy as np\n\ndef grow(y0, v, n):\n    y = y0\n"
                    "    for i in range(n):\n        y = y + 0.1 * v * np.sin(y)\n"
                    "    return np.sum(y)\n")
    signature = ["--args", "Duplicated(array[3]), array[3], 4"]
    status, out, err = run(["show", f"{path}:grow", *signature])
    assert status == 0 and "LoopShapeError" in out
    assert "recording shapes" in err and "`y` at line 6" in err
    status, out, err = run(["show", f"{path}:grow", *signature, "--variants"])
    assert out.count("def grow_reverse(") == 2 and "LoopShapeError" not in out.split(
        "# variant: ")[1]


def test_show_on_numba_names_the_checkpointed_code_run_over_the_budget():
    pytest.importorskip("numba")
    status, out, err = run(["show", str(ROOT / SPRINGS[0]), *SPRINGS[1:], "--backend", "numba"])
    assert status == 0 and "TapeOverBudget" in out  # the check before the loop, shown
    assert "left out 1 variant" in err and "the checkpointed code run instead" in err
    status, out, err = run(["show", str(ROOT / SPRINGS[0]), *SPRINGS[1:], "--backend", "numba",
                            "--variants"])
    plain, _, variant = out.partition("# variant: ")
    assert "checkpoint_plan" not in plain and "checkpoint_plan" in variant
