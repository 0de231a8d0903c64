"""Write the static files as the app serves them, for nginx to serve in production.

    python -m tools.static DIR

Each file under static/ is written to DIR as app/web/static_files.py serves it (a module's imports carry their
versions), with ``<file>.gz`` beside each one the app keeps gzipped, for nginx's ``gzip_static``. The page
names every file by its version (``?v=``), which nginx ignores when it finds the file: the files written
here must come from the same tree as the app that renders the page, as they do when the Dockerfile writes
them from the image's own files.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from app.web.static_files import StaticSite


def write(site: StaticSite, out: Path) -> int:
    """Write ``site``'s files under ``out`` (emptied first); the number of files written."""
    if out.exists():
        shutil.rmtree(out)
    count = 0
    for path, body in site.files():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
        count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path, help="the folder to write (replaced if it exists)")
    parser.add_argument(
        "--static", type=Path, default=None, help="the static folder to read (default: the app's own)"
    )
    args = parser.parse_args()
    from app.config import get_settings

    site = StaticSite(args.static or get_settings().static_dir)
    print(f"wrote {write(site, args.out)} files to {args.out} (static version {site.version})")


if __name__ == "__main__":
    main()
