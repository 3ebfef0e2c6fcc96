"""A griffe extension for the API reference: the `>>>` examples of srcad's docstrings (plain
doctest text, which the tests run) become fenced `pycon` code blocks on the site, instead of
Markdown block quotes."""

try:
    import griffe
except ImportError:  # the tests import fence_doctests without the docs extra
    griffe = None


def fence_doctests(text: str) -> str:
    """Wrap each run of `>>>` lines and their output in a ```pycon fence (same indentation)."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if not stripped.startswith(">>>"):
            out.append(line)
            i += 1
            continue
        indent = line[: len(line) - len(stripped)]
        out.append(f"{indent}```pycon")
        while i < len(lines) and lines[i].strip() and lines[i].startswith(indent):
            out.append(lines[i])
            i += 1
        out.append(f"{indent}```")
    return "\n".join(out)


if griffe is not None:
    class DoctestBlocks(griffe.Extension):
        def on_object(self, *, obj, **kwargs) -> None:
            if obj.docstring is not None and ">>>" in obj.docstring.value:
                obj.docstring.value = fence_doctests(obj.docstring.value)
