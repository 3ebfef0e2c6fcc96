"""The `srcad` command line (srcad/cli.py): `show` prints the generated code for a signature
written as in the Python API, `check` runs check_grads at random inputs, and both exit nonzero
on failure or refusal. One subprocess run checks `python -m srcad` end to end; the rest run
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
    monkeypatch.setattr(srcad.testing, "check_grads", disagreeing)
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
