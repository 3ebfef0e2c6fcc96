"""The user guide is split by task: each page of the guide and of the reference is short, no
heading of them names a file of srcad's source, and docs/usage.md is a map from each feature to
its page that links every page of the guide."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^ *```.*?^ *```", re.DOTALL | re.MULTILINE)
PATH = re.compile(r"[\w/]+\.py\b|\bsrcad/\w")
LONGEST = 400  # lines of a page of the guide


def nav_pages(section):
    """The pages listed under `section:` of mkdocs.yml's nav."""
    pages, inside = [], False
    for line in (ROOT / "mkdocs.yml").read_text().splitlines():
        if re.match(r"^  - [^:]+:\s*$", line):
            inside = line.strip() == f"- {section}:"
        elif inside and (match := re.match(r"^      - .*:\s*([\w-]+\.md)\s*$", line)):
            pages.append(match.group(1))
    return pages


def headings(text):
    return [line for line in FENCE.sub("", text).splitlines() if line.startswith("#")]


def test_the_guide_and_the_reference_are_listed():
    assert {"get_a_gradient.md", "transforms.md", "array_programs.md",
            "when_srcad_refuses.md"} <= set(nav_pages("User guide"))
    assert "usage.md" in nav_pages("Reference")


def test_no_heading_of_the_guide_names_a_source_file():
    found = [(page, heading) for page in nav_pages("User guide") + nav_pages("Reference")
             for heading in headings((ROOT / "docs" / page).read_text())
             if PATH.search(heading)]
    assert found == [], "name the section by what it is; say where in srcad in its text"


def test_a_heading_with_a_path_is_found():
    text = ("# Page\n\n```python\n# not/a/heading.py\n```\n\n"
            "### Syntax (`srcad/analysis/fence.py`)\n")
    assert [h for h in headings(text) if PATH.search(h)] == [
        "### Syntax (`srcad/analysis/fence.py`)"]


def test_each_page_of_the_guide_is_short():
    long = {page: n for page in nav_pages("User guide")
            if (n := (ROOT / "docs" / page).read_text().count("\n")) > LONGEST}
    assert long == {}, f"split these pages by task (more than {LONGEST} lines)"


def test_usage_is_a_map_to_every_page_of_the_guide():
    usage = (ROOT / "docs" / "usage.md").read_text()
    assert usage.count("\n") < 60
    linked = set(re.findall(r"\]\(([\w-]+\.md)\)", usage))
    missing = set(nav_pages("User guide")) - linked - {
        "from_jax.md", "vmap.md", "generated_code.md", "custom_rules.md", "examples.md"}
    assert missing == set()
