"""Every code block of the README and the docs runs: ```python blocks are executed, blocks of
`>>>` lines are run as doctests (with ELLIPSIS: `...` stands for the digits not shown). The
blocks of one page run in order in one namespace, as a reader runs them. A block that cannot
run (it shows a fragment, or needs what a test must not install) is marked just above it with
`<!-- not run: the reason -->`; shell and output blocks are not Python and are skipped.
"""

import doctest
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```",
                   re.DOTALL | re.MULTILINE)
NOT_RUN = re.compile(r"<!-- not run: [^>]+ -->\s*$")


def code_blocks(path):
    """(line, language, code) of each fenced block; marked blocks are left out."""
    text = path.read_text()
    for match in FENCE.finditer(text):
        if NOT_RUN.search(text[:match.start()].rstrip(" ")):
            continue
        indent = len(match.group("indent"))
        code = "".join(line[indent:] + "\n" for line in match.group("body").splitlines())
        yield text.count("\n", 0, match.start()) + 1, match.group("lang"), code


def runnable(language, code):
    if ">>>" in code:
        return "doctest"
    return "python" if language in ("python", "py") else None


def test_the_extraction_finds_the_blocks():
    blocks = [b for page in PAGES for b in code_blocks(page) if runnable(b[1], b[2])]
    assert len(blocks) > 20
    assert any(kind == "doctest" for kind in (runnable(lang, code) for _, lang, code in blocks))


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_code_blocks_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a block that writes files writes them here
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    namespace = {"__name__": f"doc_{page.stem}"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    ran = 0
    for line, language, code in code_blocks(page):
        kind = runnable(language, code)
        where = f"{page.relative_to(ROOT)}:{line}"
        if kind == "python":
            # from a file, as a reader runs it: srcad reads the source of the functions
            block_file = tmp_path / f"{page.stem}_line{line}.py"
            block_file.write_text(code)
            try:
                exec(compile(code, str(block_file), "exec"), namespace)
            except Exception as err:
                pytest.fail(f"the code block at {where} raises {type(err).__name__}: {err}")
        elif kind == "doctest":
            test = parser.get_doctest(code, namespace, where, where, line)
            result = runner.run(test, out=lambda text: None)
            namespace.update(test.globs)
            if result.failed:
                report = []
                runner.run(parser.get_doctest(code, dict(namespace), where, where, line),
                           out=report.append)
                pytest.fail(f"the doctest block at {where} fails:\n{''.join(report)}")
        else:
            continue
        ran += 1
    if ran == 0:
        pytest.skip(f"{page.name} has no Python blocks")


def test_a_failing_block_is_reported_with_its_line(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text\n\n```python\nx = 1\n```\n\n<!-- not run: a fragment -->\n```python\n"
                    "undefined_name\n```\n\n```python\n>>> 1 + 1\n3\n```\n")
    blocks = list(code_blocks(page))
    assert [(line, runnable(lang, code)) for line, lang, code in blocks] == [
        (3, "python"), (12, "doctest")]


if os.environ.get("SRCAD_DOC_BLOCKS_LIST"):  # print the blocks, to find one by its line
    for page in PAGES:
        for line, language, _ in code_blocks(page):
            print(f"{page.name}:{line} {language}")
