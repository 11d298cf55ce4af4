"""Append one CRI-format log line per interval to a file, forever (until SIGTERM).

Run as a script (``python logpump.py FILE LABEL``), not as a package module, so it needs no imports
from the project. kwok's ClusterLogs/ClusterAttach rules point at FILE, so ``kubectl logs -f`` on any
pod of the cluster shows these lines arriving. CRI format::

    2026-01-01T00:00:00.000000000Z stdout F message
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import signal
import sys
import time
from pathlib import Path

MAX_BYTES = 32 * 1024 * 1024

_MESSAGES = (
    ("stdout", 'level=info msg="processed batch" items={n} latency_ms={ms}'),
    ("stdout", 'level=info msg="GET /healthz" status=200 duration_ms={ms}'),
    ("stdout", 'level=debug msg="cache refresh" entries={n}'),
    ("stderr", 'level=warn msg="slow upstream" latency_ms={ms}'),
)


def cri_line(stream: str, message: str, now: dt.datetime | None = None) -> str:
    now = now or dt.datetime.now(dt.UTC)
    ts = now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond * 1000:09d}Z"
    return f"{ts} {stream} F {message}\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("file", type=Path)
    ap.add_argument("label")
    ap.add_argument("--interval", type=float, default=1.0)
    args = ap.parse_args(argv)

    stop = False

    def _term(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, _term)
    signal.signal(signal.SIGINT, _term)
    args.file.parent.mkdir(parents=True, exist_ok=True)
    rnd = random.Random()  # noqa: S311 - demo output, not crypto
    seq = 0
    while not stop:
        if args.file.exists() and args.file.stat().st_size > MAX_BYTES:
            os.replace(args.file, args.file.with_name(args.file.name + ".1"))
        stream, tmpl = _MESSAGES[0] if seq % 5 else _MESSAGES[rnd.randrange(len(_MESSAGES))]
        msg = f"[{args.label}] seq={seq} " + tmpl.format(n=rnd.randint(1, 500), ms=rnd.randint(1, 900))
        with args.file.open("a") as fh:
            fh.write(cri_line(stream, msg))
        seq += 1
        deadline = time.monotonic() + args.interval
        while not stop and time.monotonic() < deadline:
            time.sleep(min(0.1, args.interval))
    return 0


if __name__ == "__main__":
    sys.exit(main())
