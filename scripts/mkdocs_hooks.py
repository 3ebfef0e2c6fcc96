"""mkdocs hooks: fill in the generated pages (scripts/docs_pages.py), point links to the
examples at the examples page, so that the markdown reads right on GitHub and on the site, and
let srcad read the functions of the code blocks that markdown-exec runs (`exec="on"`)."""

import linecache
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import docs_pages  # noqa: E402
from markdown_exec._internal.formatters import python as exec_formatter  # noqa: E402

MARKERS = {
    "<!-- generated: gallery -->": docs_pages.gallery_markdown,
    "<!-- generated: examples -->": docs_pages.examples_markdown,
}
EXAMPLE_LINK = re.compile(r"\]\(\.\./examples/(\w+)\.py\)")
EXECUTED_BLOCK = re.compile(r'^(```python exec="on")(?![^\n]*session=)', re.MULTILINE)


def on_config(config):
    """markdown-exec compiles each block under a name like
    `<code block: session getting_started; n2>` and keeps no text of it; srcad reads a
    function's source (through linecache), so the block's text is registered under that name
    first, as IPython does for a cell."""
    run = exec_formatter.exec_python
    if getattr(run, "registers_source", False):  # mkdocs serve calls on_config again
        return config

    def exec_python(code, filename, exec_globals=None):
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        return run(code, filename, exec_globals)

    exec_python.registers_source = True
    exec_formatter.exec_python = exec_python
    return config


def on_page_markdown(markdown, page, config, files):
    for marker, generate in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, generate())
    # the executed blocks of a page share one namespace, as a notebook's cells do
    stem = page.file.src_uri.rsplit("/", 1)[-1].removesuffix(".md")
    markdown = EXECUTED_BLOCK.sub(lambda m: f'{m.group(1)} session="{stem}"', markdown)
    return EXAMPLE_LINK.sub(lambda m: f"](examples.md#{m.group(1)})", markdown)
