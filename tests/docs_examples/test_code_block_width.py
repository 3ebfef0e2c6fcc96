"""The docs' code blocks fit the page: no line of a fenced block of docs/*.md is longer than
WIDTH characters, so no block scrolls sideways on the site. Measured with headless Chromium
on the built site: the content column (widened in docs/stylesheets/extra.css) shows about
100 characters of code in a 1400 px window and 85 in a 1280 px one; Material's default
column shows about 80.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").glob("*.md"))
WIDTH = 88
FENCE = re.compile(r"^(?P<indent> *)```[^\n]*\n(?P<body>.*?)^(?P=indent)```",
                   re.DOTALL | re.MULTILINE)


def long_lines(text):
    """(line number, length) of each line of a fenced block longer than WIDTH."""
    found = []
    for match in FENCE.finditer(text):
        first = text.count("\n", 0, match.start("body")) + 1
        indent = len(match.group("indent"))
        for offset, line in enumerate(match.group("body").splitlines()):
            if len(line) - indent > WIDTH:
                found.append((first + offset, len(line) - indent))
    return found


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_code_blocks_fit_the_page_width(page):
    assert long_lines(page.read_text()) == [], (
        f"{page.name}: code lines longer than {WIDTH} characters (line, length); wrap them "
        "or move a trailing comment above its line")


def test_a_long_line_is_found_with_its_line_number():
    text = "intro\n\n```python\nx = 1\n" + "y = " + "1 + " * 30 + "1\n```\n\n" + "z " * 60
    assert long_lines(text) == [(5, 4 + 4 * 30 + 1)]
    indented = "- item\n\n    ```sh\n    " + "a" * 88 + "\n    ```\n"
    assert long_lines(indented) == []
