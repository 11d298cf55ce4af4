"""Benchmark: the portal's memory over a burst of refused request bodies (not a test).

    .venv/bin/python bench/bad_bodies.py [--bodies 1000] [--backing eager|worker] [--root DIR]

The portal as ONE uvicorn process (DEBUG off, as production; ``bench/api_floor.py`` starts it the same way), a
platform admin's API token (no write refuses them, so every body reaches the gate and the parsers), then --bodies
refused bodies, round robin over the kinds below and over four writes (``POST /api/v1/tokens/``, ``PATCH
/api/v1/projects/<p>/``, ``PUT /api/v1/prices/ondemand/``, ``POST /api/v1/projects/<p>/workloads/``):

- 20 MB of JSON (one string value), with its Content-Length;
- 2 MB sent chunked (no Content-Length);
- JSON nested 10,000 deep;
- ~400 KB: an object of 30,000 unknown keys (error amplification);
- invalid UTF-8; a gzip Content-Encoding.

Prints and writes (``bench/results/bad_bodies.json``) the process's RSS before (after 50 good requests), at the peak
(the kernel's high-water mark, VmHWM) and after (5 s after the burst), each status counted, and the answers' bytes.
``--root`` serves another checkout of the portal (e.g. ``git archive`` of an older commit) with this one's venv.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from provisioning import Backing  # noqa: E402
from served_portal import api_token, serve, wait_until_healthy  # noqa: E402

from tests.harness.services import free_port  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "bad_bodies.json"
PROJECT = "bodies"
MB = 2**20


def rss_mib(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise LookupError(field)


def chunks(size: int, piece: int = 64 * 1024) -> Iterator[bytes]:
    body = b'{"name": "' + b"x" * (size - 12) + b'"}'
    for start in range(0, len(body), piece):
        yield body[start : start + piece]


def kinds() -> list[tuple[str, Any, dict[str, str]]]:
    json_type = {"Content-Type": "application/json"}
    return [
        ("20 MB", b'{"name": "' + b"x" * (20 * MB - 12) + b'"}', json_type),
        ("2 MB chunked", None, json_type),  # a fresh generator each time: chunks(2 MB)
        ("nested 10,000 deep", b"[" * 10_000 + b"]" * 10_000, json_type),
        ("30,000 unknown keys", ("{" + ",".join(f'"k{i:05d}":0' for i in range(30_000)) + "}").encode(), json_type),
        ("invalid UTF-8", b'{"name": "\xff\xfe"}', json_type),
        ("gzip", gzip.compress(b'{"name": "x"}'), {**json_type, "Content-Encoding": "gzip"}),
    ]


def writes() -> list[tuple[str, str]]:
    return [
        ("POST", "/api/v1/tokens/"),
        ("PATCH", f"/api/v1/projects/{PROJECT}/"),
        ("PUT", "/api/v1/prices/ondemand/"),
        ("POST", f"/api/v1/projects/{PROJECT}/workloads/"),
    ]


def burst(client: Any, count: int) -> dict[str, Any]:
    statuses: collections.Counter[str] = collections.Counter()
    answer_bytes = {"max": 0, "total": 0}
    slowest = 0.0
    bodies, targets = kinds(), writes()
    for i in range(count):
        name, body, headers = bodies[i % len(bodies)]
        method, path = targets[(i // len(bodies)) % len(targets)]
        content = chunks(2 * MB) if body is None else body
        t0 = time.perf_counter()
        response = client.request(method, path, content=content, headers=headers)
        slowest = max(slowest, time.perf_counter() - t0)
        statuses[f"{name}: {response.status_code}"] += 1
        answer_bytes["max"] = max(answer_bytes["max"], len(response.content))
        answer_bytes["total"] += len(response.content)
    return {"statuses": dict(sorted(statuses.items())), "answer_bytes": answer_bytes, "slowest_s": round(slowest, 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bodies", type=int, default=1000)
    ap.add_argument("--backing", choices=("eager", "worker"), default="eager")
    ap.add_argument("--root", type=Path, default=ROOT, help="the portal checkout to serve (default: this one)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    backing = Backing(args.backing, Path(tempfile.mkdtemp(prefix="bench-bodies-")), 1)
    backing.start()
    import httpx

    results: dict[str, Any] = {
        "root": str(args.root),
        "backing": args.backing,
        "bodies": args.bodies,
        "load_at_start": [round(x, 2) for x in os.getloadavg()],
    }
    proc = None
    try:
        token = api_token(PROJECT, "bodies-admin", superuser=True)
        port = free_port()
        unlimited = {
            "API_WRITE_RATE_LIMIT": "1000000/min",
            "API_RATE_LIMIT": "1000000/min",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        proc = serve(port, root=args.root.resolve(), log_level="critical", env=unlimited)
        base = f"http://127.0.0.1:{port}"
        wait_until_healthy(proc, base)
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=120) as client:
            for _ in range(50):
                assert client.get(f"/api/v1/projects/{PROJECT}/").status_code == 200
            time.sleep(1)
            results["rss_before_mib"] = rss_mib(proc.pid)
            t0 = time.monotonic()
            results |= burst(client, args.bodies)
            results["burst_s"] = round(time.monotonic() - t0, 1)
            results["rss_peak_mib"] = rss_mib(proc.pid, "VmHWM")
            results["rss_at_end_of_burst_mib"] = rss_mib(proc.pid)
            time.sleep(5)
            assert client.get(f"/api/v1/projects/{PROJECT}/").status_code == 200
            results["rss_after_mib"] = rss_mib(proc.pid)
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(20)
        backing.stop()
    results["load_at_end"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(results, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
