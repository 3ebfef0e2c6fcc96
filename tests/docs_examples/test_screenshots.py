"""scripts/screenshots.py: the site's pages rendered by headless Chromium into the PNGs of
docs/screenshots/ (out of git), with no network."""

import importlib.util
import shutil
import struct
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def screenshots():
    spec = importlib.util.spec_from_file_location("screenshots",
                                                  ROOT / "scripts" / "screenshots.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def png_size(path):
    header = path.read_bytes()[:24]
    assert header.startswith(b"\x89PNG\r\n\x1a\n")
    return struct.unpack(">II", header[16:24])


def test_chromium_runs_headless_with_every_host_resolving_to_nothing(screenshots, tmp_path):
    command = screenshots.chromium_command("chromium", "file:///x.html", tmp_path / "x.png",
                                           str(tmp_path))
    assert "--headless" in command and "--host-resolver-rules=MAP * ~NOTFOUND" in command
    assert f"--screenshot={tmp_path / 'x.png'}" in command


def test_screenshots_stay_out_of_git_and_make_regenerates_them(screenshots):
    readme = (ROOT / "README.md").read_text()
    assert "docs/screenshots/" not in readme.replace("PNGs in docs/screenshots/", "")
    assert "](docs/screenshots" not in readme
    assert "docs/screenshots/" in (ROOT / ".gitignore").read_text().splitlines()
    assert "screenshots/" in (ROOT / "mkdocs.yml").read_text()  # not copied into the site
    assert "scripts/screenshots.py" in (ROOT / "Makefile").read_text()
    assert screenshots.OUT == ROOT / "docs" / "screenshots"


@pytest.mark.slow
def test_a_page_is_rendered_to_a_png_of_the_window_size(screenshots, tmp_path):
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.skip("no chromium")
    page = tmp_path / "page.html"
    page.write_text("<html><body><h1>srcad</h1><img src='https://example.invalid/x.png'>"
                    "</body></html>")
    png = tmp_path / "page.png"
    screenshots.screenshot(chromium, page.as_uri(), png)
    assert png_size(png) == (screenshots.WIDTH, screenshots.HEIGHT)
