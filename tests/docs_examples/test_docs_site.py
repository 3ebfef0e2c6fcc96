"""The documentation site (mkdocs.yml): every page is in the navigation, the pages generated at
build time (scripts/docs_pages.py) show each function beside its generated derivative code and
every example, and CI builds the site with warnings as errors. The build itself runs in CI
(`make docs`), where the `docs` extra is installed."""

import importlib.util
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def docs_pages():
    spec = importlib.util.spec_from_file_location("docs_pages", ROOT / "scripts" / "docs_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_page_is_in_the_navigation():
    config = (ROOT / "mkdocs.yml").read_text()
    listed = set(re.findall(r":\s*([\w-]+\.md)\s*$", config, re.MULTILINE))
    assert listed == {p.name for p in (ROOT / "docs").glob("*.md")}
    assert "strict: true" in config and "mkdocstrings" in config


def test_gallery_shows_each_function_beside_its_generated_code(docs_pages):
    text = docs_pages.gallery_markdown()
    entries = text.split("\n## ")
    assert len(entries) >= 6
    for entry in entries:
        blocks = re.findall(r"```python\n(.*?)```", entry, re.DOTALL)
        assert len(blocks) == 2, entry[:200]
        primal, generated = blocks
        name = re.match(r"def (\w+)\(", primal).group(1)
        assert re.match(rf"def {name}_(reverse|forward\w*)\(", generated), generated[:100]
        compile(generated, "<gallery>", "exec")  # the generated code is complete Python


def test_examples_page_lists_every_example(docs_pages):
    text = docs_pages.examples_markdown()
    for path in (ROOT / "examples").glob("*.py"):
        assert f"## {path.stem}\n" in text


def test_docs_extra_and_ci_build_the_site_with_warnings_as_errors():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert any(d.startswith("mkdocs-material") for d in extras["docs"])
    assert any(d.startswith("mkdocstrings[python]") for d in extras["docs"])
    assert "make docs" in (ROOT / ".ci" / "run").read_text()
    assert "mkdocs build --strict" in (ROOT / "Makefile").read_text()


def test_make_test_leaves_out_the_slow_tests_and_ci_runs_every_test():
    makefile = (ROOT / "Makefile").read_text()
    targets = {line.split(":")[0]: line for line in makefile.splitlines()
               if line and not line.startswith(("\t", "#", " ")) and ":" in line}
    assert {"test", "test-all"} <= set(targets)
    assert '$(PYTEST) -m "not slow"' in makefile and "--durations=25" in makefile
    ci = (ROOT / ".ci" / "run").read_text()
    assert all(f"make {target}" in ci for target in ("test-all", "lint", "docs"))
    readme = (ROOT / "README.md").read_text()
    assert "make test " in readme and "make test-all" in readme
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"]["markers"]
    assert any(m.startswith("slow:") for m in markers)


def test_the_benchmarks_page_shows_the_plot():
    assert "](benchmarks.png)" in (ROOT / "docs" / "benchmarks.md").read_text()


def test_docstring_examples_become_code_blocks_in_the_api_reference():
    spec = importlib.util.spec_from_file_location(
        "griffe_doctest_blocks", ROOT / "scripts" / "griffe_doctest_blocks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = "Adds.\n\n    >>> add(1,\n    ...     2)\n    3\n\nMore text.\n>>> 1\n1"
    assert module.fence_doctests(text) == (
        "Adds.\n\n    ```pycon\n    >>> add(1,\n    ...     2)\n    3\n    ```\n\nMore text.\n"
        "```pycon\n>>> 1\n1\n```")
