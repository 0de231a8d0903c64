"""Shared by the benchmarks: what a server process costs (memory, CPU), read from Linux's /proc.

The benchmarks start their servers with tools/serving.py's `served` and `app_server`, as the tests do.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux /proc): a server's supervisor and its workers."""
    pids, todo = [], [pid]
    while todo:
        current = todo.pop()
        pids.append(current)
        children = Path(f"/proc/{current}/task/{current}/children")
        with contextlib.suppress(OSError):
            todo += [int(child) for child in children.read_text().split()]
    return pids


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    """A /proc/<pid>/status memory figure in KiB (VmRSS: resident now; VmHWM: its peak), summed over the
    process and its descendants."""
    total = 0
    for member in process_tree(pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith(field + ":"):
                    total += int(line.split()[1])
    return total


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds used so far by the process and its descendants (Linux /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for member in process_tree(pid):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / ticks
