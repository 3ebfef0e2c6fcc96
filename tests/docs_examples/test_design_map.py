"""docs/design.md opens with the map of srcad's packages: its diagram names every package of
srcad/ and no other, in the order of the import contract that `lint-imports` checks
(pyproject.toml), so the picture cannot drift from the code."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _diagram():
    text = (ROOT / "docs" / "design.md").read_text()
    first = text.index("\n## ", text.index("## The map") + 1)
    (block,) = re.findall(r"```mermaid\n(.*?)```", text[:first], re.DOTALL)
    return [tuple(re.findall(r"^\s*(\w+)(?:\[[^\]]*\])? --> (\w+)$", line)[0])
            for line in block.splitlines()[1:] if line.strip()]


def _packages():
    return {p.parent.name for p in (ROOT / "srcad").glob("*/__init__.py")}


def _layers():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["id"] == "layers"]
    return contract["layers"]


def test_the_map_is_a_chain_from_the_public_surface_down():
    edges = _diagram()
    chain = [edges[0][0]] + [b for _, b in edges]
    assert all(a == chain[i] for i, (a, _) in enumerate(edges)), edges
    assert chain[0] == "srcad"


def test_the_map_names_every_package_and_no_other():
    chain = [b for _, b in _diagram()]
    assert sorted(chain) == sorted(_packages())


def test_the_map_is_in_the_order_of_the_import_contract():
    chain = [b for _, b in _diagram()]
    packages = [layer for layer in _layers() if layer in _packages()]
    assert chain == packages


def test_the_map_opens_the_page_and_its_table_lists_every_package():
    text = (ROOT / "docs" / "design.md").read_text()
    first_section = re.search(r"^## (.*)$", text, re.MULTILINE).group(1)
    assert first_section == "The map"
    rows = set(re.findall(r"^\| `(\w+)/` \|", text, re.MULTILINE))
    assert rows == _packages()
