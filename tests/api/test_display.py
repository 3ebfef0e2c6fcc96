"""Generated code and refusals display well in notebooks (srcad/display.py): the methods
Jupyter and IPython call are called here directly."""

import math

import pytest

import srcad
from srcad import display


def f(x, y):
    return x * math.sin(y)


def refused(x):
    try:
        y = x * x
    except ValueError:
        y = x
    return y


@pytest.fixture(scope="module")
def code():
    return srcad.source(f, srcad.Reverse, srcad.Active(2.0), srcad.Active(0.5))


def test_source_is_still_a_string(code):
    assert isinstance(code, str) and code.startswith("def f_reverse(")


def test_html_is_highlighted_with_pygments(code):
    pytest.importorskip("pygments")
    page = code._repr_html_()
    assert "<span" in page and "style=" in page  # inline colors, no stylesheet needed
    assert "f_reverse" in page and "def f_reverse(" not in page  # split into tokens


def test_html_without_pygments_is_escaped_pre(code, monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_pygments(name, *args, **kwargs):
        if name.startswith("pygments"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_pygments)
    page = display.code_html("if a < b and c > d:\n    pass\n")
    assert page == "<pre>if a &lt; b and c &gt; d:\n    pass\n</pre>"


def test_markdown_is_a_python_code_block(code):
    text = code._repr_markdown_()
    assert text.startswith("```python\ndef f_reverse(") and text.endswith("\n```\n")


def test_ipython_pretty_prints_the_code_not_a_quoted_string(code):
    class Printer:
        text_out = ""

        def text(self, s):
            self.text_out += s
    printer = Printer()
    code._repr_pretty_(printer, False)
    assert printer.text_out == str(code)


def test_decorator_source_displays_too():
    cube = srcad.reverse(f)
    assert hasattr(cube.source(srcad.Active(2.0), 0.5), "_repr_html_")


def test_refusal_renders_as_one_message(monkeypatch):
    monkeypatch.delenv("SRCAD_DEBUG", raising=False)
    with pytest.raises(srcad.SrcadError) as caught:
        srcad.autodiff(srcad.Reverse, refused, srcad.Active(1.0))
    error = caught.value
    lines = error._render_traceback_()
    assert lines[0].startswith(type(error).__name__ + ": ")
    assert "test_display.py" in lines[0] and "try" in "\n".join(lines)
    assert not any("Traceback" in line or "srcad/" in line for line in lines)
    page = error._repr_html_()
    assert "test_display.py" in page and "<pre>" in page


def test_srcad_debug_keeps_the_full_traceback(monkeypatch):
    monkeypatch.setenv("SRCAD_DEBUG", "1")
    with pytest.raises(NotImplementedError):  # IPython falls back to its own traceback
        srcad.SrcadError("no rule")._render_traceback_()
