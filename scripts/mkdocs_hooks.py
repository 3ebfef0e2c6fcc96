"""mkdocs hooks: fill in the generated pages (scripts/docs_pages.py), draw the gallery's
figures (scripts/docs_figures.py, by running the examples) and the benchmark charts
(scripts/docs_charts.py, from the committed result tables) into the site, point links to the
examples at the examples page, so that the markdown reads right on GitHub and on the site, and
let srcad read the functions of the code blocks that markdown-exec runs (`exec="on"`)."""

import linecache
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import docs_charts  # noqa: E402
import docs_figures  # noqa: E402
import docs_pages  # noqa: E402
from markdown_exec._internal.formatters import python as exec_formatter  # noqa: E402
from mkdocs.structure.files import File  # noqa: E402

GENERATED = "generated"  # the site folder of the drawn PNGs
_outputs: dict[str, str] = {}  # figure example -> what it printed, filled in by on_files
MARKERS = {
    "<!-- generated: generated code -->": docs_pages.gallery_markdown,
    "<!-- generated: examples -->": docs_pages.examples_markdown,
    "<!-- generated: figures -->": lambda: docs_figures.gallery_markdown(
        {name: f"{GENERATED}/{name}.png" for name in docs_figures.FIGURE_EXAMPLES}, _outputs),
    "<!-- generated: chart benchmarks -->": lambda: (
        f"![Gradient time of each contender as a ratio to JAX's, per problem (log scale)]"
        f"({GENERATED}/benchmarks_vs_jax.png)"),
    "<!-- generated: chart gradbench -->": lambda: (
        f"![Derivative time of srcad and autograd as a ratio to JAX's, per eval, misses "
        f"marked (log scale)]({GENERATED}/gradbench_vs_jax.png)"),
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


def on_files(files, config):
    """Draw the gallery's figures and the charts, and add them to the site as files."""
    drawn = dict(docs_charts.charts())
    for name in docs_figures.FIGURE_EXAMPLES:
        drawn[f"{name}.png"], _outputs[name] = docs_figures.render(name)
    for name, png in drawn.items():
        files.append(File.generated(config, f"{GENERATED}/{name}", content=png))
    return files


def on_page_markdown(markdown, page, config, files):
    for marker, generate in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, generate())
    # the executed blocks of a page share one namespace, as a notebook's cells do
    stem = page.file.src_uri.rsplit("/", 1)[-1].removesuffix(".md")
    markdown = EXECUTED_BLOCK.sub(lambda m: f'{m.group(1)} session="{stem}"', markdown)
    return EXAMPLE_LINK.sub(lambda m: f"](examples.md#{m.group(1)})", markdown)
