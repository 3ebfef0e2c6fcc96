"""What a user reads speaks of the product: no work-log wording in the README, the docs, the
examples, the library's messages or the benchmark suite's output, and the demo prints the
gradient it computed."""

import contextlib
import importlib.util
import io
import pathlib
import re

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
# internal vocabulary: work sessions, tracker numbers, the numbered problem documents
JARGON = re.compile(r"session|issue ?#?[0-9]|seed[- _]?0[0-9][0-9]", re.IGNORECASE)


def user_facing_files():
    yield ROOT / "README.md"
    for folder, pattern in [("docs", "*.md"), ("examples", "*.py"), ("srcad", "**/*.py"),
                            ("benchmarks", "*.py")]:
        yield from sorted((ROOT / folder).glob(pattern))


def test_no_internal_jargon_in_user_facing_text():
    hits = []
    for path in user_facing_files():
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if JARGON.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not hits, "\n".join(hits)


def test_the_demo_prints_the_gradient_it_computed():
    spec = importlib.util.spec_from_file_location("mixture_demo", ROOT / "examples" / "mixture.py")
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        demo.main()
    text = printed.getvalue()
    assert "None" not in text.split("Generated adjoint source")[0]
    params, data = demo.make_problem(500, 4)
    reference = demo.mixture_gradient_numpy(params, data)  # hand-derived
    shown = re.search(r"gradient[^\n]*:\n\s*\[([^\]]*)\]", text).group(1)
    np.testing.assert_allclose(np.array(shown.split(), dtype=float), reference, rtol=1e-6)
