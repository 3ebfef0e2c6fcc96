"""mkdocs hooks: fill in the generated pages (scripts/docs_pages.py) and point links to the
examples at the examples page, so that the markdown reads right on GitHub and on the site."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import docs_pages  # noqa: E402

MARKERS = {
    "<!-- generated: gallery -->": docs_pages.gallery_markdown,
    "<!-- generated: examples -->": docs_pages.examples_markdown,
}
EXAMPLE_LINK = re.compile(r"\]\(\.\./examples/(\w+)\.py\)")


def on_page_markdown(markdown, page, config, files):
    for marker, generate in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, generate())
    return EXAMPLE_LINK.sub(lambda m: f"](examples.md#{m.group(1)})", markdown)
