"""The tables of the GradBench and benchmark pages fit the content column of a 1400 px window
(the GradBench summary has nine columns, its ratios last): the built site, rendered by headless
Chromium with a probe that counts the tables wider than the content column."""

import importlib.util
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# a table scrolls sideways when it is wider than the content column (Material wraps each table in
# a box that scrolls)
PROBE = ('<script>window.addEventListener("load", () => {'
         'const column = document.querySelector(".md-content__inner").getBoundingClientRect();'
         'const t = [...document.querySelectorAll(".md-typeset table")];'
         'document.body.setAttribute("data-overflow", t.filter(x => '
         'x.scrollWidth > column.width + 1).length + "/" + t.length);'
         '});</script></body>')


def overflowing_tables(chromium, page, width=1400):
    """(tables wider than the content column, tables) of a built page at this window width."""
    probe = page.with_name("probe.html")
    probe.write_text(page.read_text().replace("</body>", PROBE))
    with tempfile.TemporaryDirectory() as profile:
        run = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                              "--no-first-run", "--host-resolver-rules=MAP * ~NOTFOUND",
                              f"--user-data-dir={profile}", f"--window-size={width},1000",
                              "--virtual-time-budget=4000", "--dump-dom", probe.as_uri()],
                             capture_output=True, text=True, timeout=120)
    found = re.search(r'data-overflow="(\d+)/(\d+)"', run.stdout)
    assert found, run.stderr[-2000:]
    return int(found.group(1)), int(found.group(2))


@pytest.mark.slow
def test_the_tables_of_the_benchmark_pages_fit_a_1400_px_window(tmp_path):
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.skip("no chromium")
    pytest.importorskip("mkdocs")
    spec = importlib.util.spec_from_file_location("screenshots",
                                                  ROOT / "scripts" / "screenshots.py")
    screenshots = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(screenshots)
    screenshots.build_site(tmp_path / "site")
    for name in ("gradbench", "benchmarks"):
        wide, tables = overflowing_tables(chromium, tmp_path / "site" / name / "index.html")
        assert tables > 3 and wide == 0, f"{name}: {wide} of {tables} tables scroll sideways"
