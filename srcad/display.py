"""How generated code and refusals look in Jupyter and IPython.

`srcad.source` returns a `GeneratedSource`: a `str` (everything that worked on the string
still works) that a notebook shows as highlighted Python (pygments when it is installed, an
escaped <pre> block otherwise) and IPython's terminal shows as plain code, not as a quoted
string. A refusal (`SrcadError`) shows as its one message, file, line and hint, without the
traceback through srcad.
"""

from __future__ import annotations

import html


class GeneratedSource(str):
    """Generated Python source; a `str` with rich displays for notebooks."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        return code_html(str(self))

    def _repr_markdown_(self) -> str:
        return f"```python\n{str(self).rstrip()}\n```\n"

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(str(self))


def code_html(code: str) -> str:
    """`code` as highlighted HTML (inline styles, so no stylesheet is needed), or escaped
    inside <pre> when pygments is not installed."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return f"<pre>{html.escape(code)}</pre>"
    return highlight(code, PythonLexer(), HtmlFormatter(noclasses=True))


def error_html(error) -> str:
    """A refusal as one block: its kind and its message (file, line, construct, hint)."""
    return (f'<div class="srcad-error"><strong>{html.escape(type(error).__name__)}</strong>'
            f"<pre>{html.escape(str(error))}</pre></div>")


def error_lines(error) -> list[str]:
    """What IPython prints for a refusal (`_render_traceback_`): the message, not the
    traceback through srcad's internals, which says nothing about the user's code."""
    return f"{type(error).__name__}: {error}".splitlines()
