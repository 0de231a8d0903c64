"""Where Debian's Chromium lives and the flags it runs with here, shared by the browser tests and bench/."""

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
# Headless, and quiet: no background connections, updates or sync on a machine without a network.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
