"""Screenshots of the documentation site: build it, render pages in headless Chromium and write
PNGs to docs/screenshots/ (kept out of git: look at them to see the site as a reader
does). `make screenshots` runs it.

    python scripts/screenshots.py                   # build the site, then every page
    python scripts/screenshots.py --site site       # an already built site
    python scripts/screenshots.py --pages gallery   # some pages only

Chromium is Debian's (`apt-get install chromium`; another binary with --chromium or the
CHROMIUM environment variable). Pages are read from the built files (file://) and every host
name resolves to nothing, so nothing is fetched from the network (the theme's web font falls
back to the system's). Each PNG is reduced to a 256-colour palette when Pillow is installed
(it comes with matplotlib), which keeps the files small.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
# name -> the page's file in the built site
PAGES = {
    "home": "index.html",
    "getting_started": "getting_started/index.html",
    "gallery": "gallery/index.html",
    "benchmarks": "benchmarks/index.html",
    "gradbench": "gradbench/index.html",
}
WIDTH, HEIGHT = 1280, 1000


def chromium_command(chromium: str, url: str, png: Path, profile: str) -> list[str]:
    """The headless Chromium command that renders `url` into `png`, with no network."""
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--disable-extensions", "--disable-background-networking",
            "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={profile}",
            f"--window-size={WIDTH},{HEIGHT}", "--virtual-time-budget=4000",
            f"--screenshot={png}", url]


def screenshot(chromium: str, url: str, png: Path) -> None:
    with tempfile.TemporaryDirectory() as profile:
        run = subprocess.run(chromium_command(chromium, url, png, profile), capture_output=True,
                             text=True, timeout=120)
    if run.returncode != 0 or not png.exists():
        raise SystemExit(f"chromium could not render {url}:\n{run.stderr[-2000:]}")
    _palette(png)


def _palette(png: Path) -> None:
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(png) as image:
        reduced = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    reduced.save(png, optimize=True)


def build_site(into: Path) -> None:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                    str(into)], cwd=ROOT, check=True, env=env)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", help="an already built site (default: build one)")
    parser.add_argument("--pages", nargs="*", choices=sorted(PAGES), default=sorted(PAGES))
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM") or
                        shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as built:
        site = Path(args.site) if args.site else Path(built)
        if not args.site:
            build_site(site)
        for name in args.pages:
            png = OUT / f"{name}.png"
            screenshot(args.chromium, (site / PAGES[name]).resolve().as_uri(), png)
            print(f"wrote {png.relative_to(ROOT)} ({png.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
