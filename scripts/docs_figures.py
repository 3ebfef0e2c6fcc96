"""The gallery of pictures: the examples that draw a figure, run when the site is built.

Each example of FIGURE_EXAMPLES has `main(figure_path)`: it computes with srcad, checks its
derivatives (against finite differences or a closed form), prints what it found and saves its
figure (matplotlib). `render` runs one and keeps its printed output and the PNG;
`gallery_markdown` writes the gallery's sections: the figure, what the example printed, and
its docstring, linking to its source on the examples page. scripts/mkdocs_hooks.py adds the
PNGs to the site as generated files.

    python scripts/docs_figures.py     # runs every figure example, writes NAME.png here
"""

from __future__ import annotations

import ast
import contextlib
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import docs_pages  # noqa: E402

# in the order the gallery shows them, with the title of each one's section
FIGURE_EXAMPLES = {
    "lotka_volterra_fit": "An ODE model fitted to data, and its sensitivities over time",
    "optimizer_path": "An optimizer's path: exact gradients against finite differences",
    "jacobian_sparsity": "The sparsity pattern of a jacobian",
}


def render(name: str) -> tuple[bytes, str]:
    """Run examples/NAME.py's main; the PNG of its figure and what it printed."""
    module = docs_pages.load_example(name)
    figure, printed = io.BytesIO(), io.StringIO()
    with contextlib.redirect_stdout(printed):
        module.main(figure)
    return figure.getvalue(), printed.getvalue()


def _docstring(name: str) -> str:
    """The example's docstring without its closing "Run with ..." paragraph."""
    docstring = ast.get_docstring(ast.parse((ROOT / "examples" / f"{name}.py").read_text()))
    return docstring.split("\nRun with")[0].strip()


def gallery_markdown(images: dict[str, str], outputs: dict[str, str]) -> str:
    """One section per figure example: title, figure (`images[name]`, a path relative to the
    gallery page), what it printed (`outputs[name]`) and its docstring."""
    parts = []
    for name, title in FIGURE_EXAMPLES.items():
        parts.append(f"## {title}\n\n![{title}]({images[name]})\n\n"
                     f"```text\n$ python examples/{name}.py\n{outputs[name].rstrip()}\n```\n\n"
                     f"{_docstring(name)}\n\nSource: [examples/{name}.py](examples.md#{name}).\n")
    return "\n".join(parts)


if __name__ == "__main__":
    for name in FIGURE_EXAMPLES:
        png, printed = render(name)
        Path(f"{name}.png").write_bytes(png)
        print(printed, end="")
        print(f"wrote {name}.png")
