"""Benchmark: what a request costs the portal over HTTP when it has almost nothing to do (not a test).

    .venv/bin/python bench/api_floor.py [--reps 1000] [--backing eager|worker]

The floor under ``read_path.py``'s page figures: the portal as ONE uvicorn process (DEBUG off, as production), its
watch caches off, one project with one member and an API token; the same httpx keep-alive client as ``read_path``.
Each path: 50 unrecorded requests, then --reps, p50/p99:

- ``/healthz``: uvicorn, Django's handler and middleware, no database;
- ``/api/v1/me/``: plus DRF and the API token's authentication (one query) and throttles;
- ``/api/v1/projects/<p>/``: plus the project and the caller's role;
- ``/api/v1/projects/<p>/pods/?limit=100`` and ``.../workloads/?limit=100``: the list views on empty caches (the
  project, the role, the member clusters; no object to render);
- ``bare ASGI, prebuilt page of 100 pods``: not the portal, ``bench/floorapp.py`` under the same uvicorn: one
  prebuilt body of 100 example pods (~70 KB, parsed by the client): what any Python server pays for such a page.

Writes ``bench/results/api_floor.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from provisioning import Backing  # noqa: E402
from served_portal import api_token, serve, wait_until_healthy  # noqa: E402

from tests.harness.services import free_port  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "api_floor.json"
PROJECT = "floor"


def bare_floor(reps: int) -> dict[str, Any]:
    """``bench/floorapp.py`` under uvicorn, the same client: p50/p99 of its prebuilt page, parsed."""
    import httpx

    port = free_port()
    env = dict(os.environ) | {"DEBUG": "false", "SECRET_KEY": "bench-" + "x" * 50, "ALLOWED_HOSTS": "127.0.0.1"}
    args = ["--app-dir", str(ROOT / "bench"), "floorapp:app", "--port", str(port), "--log-level", "warning"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", *args, "--no-access-log"], cwd=ROOT, env=env, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 60
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            while True:
                try:
                    client.get("/")
                    break
                except httpx.TransportError:
                    assert proc.poll() is None and time.monotonic() < deadline, "floorapp did not start"
                    time.sleep(0.2)
            for _ in range(50):
                client.get("/").json()
            samples = []
            for _ in range(reps):
                t0 = time.perf_counter()
                size = len(client.get("/").json()["results"])
                samples.append((time.perf_counter() - t0) * 1000)
            assert size == 100
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
    floor = {"p50_ms": pct(samples, 50), "p99_ms": pct(samples, 99), "n": len(samples)}
    print(f"{'bare ASGI, prebuilt page of 100 pods':50s} p50 {floor['p50_ms']:6.2f} ms  p99 {floor['p99_ms']:6.2f} ms")
    return floor


def pct(samples: list[float], p: int) -> float:
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))], 2)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--backing", choices=("eager", "worker"), default="worker")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    os.environ |= {"API_READ_RATE_LIMIT": "1000000/min", "API_RATE_LIMIT": "1000000/min"}  # measure, not throttle
    backing = Backing(args.backing, Path(tempfile.mkdtemp(prefix="bench-floor-")), 1)
    backing.start()
    import httpx

    results: dict[str, Any] = {"load_at_start": [round(x, 2) for x in os.getloadavg()], "backing": args.backing}
    proc = None
    try:
        token = api_token(PROJECT, "floor-dev")
        port = free_port()
        proc = serve(port)
        base = f"http://127.0.0.1:{port}"
        wait_until_healthy(proc, base)
        paths = [
            "/healthz",
            "/api/v1/me/",
            f"/api/v1/projects/{PROJECT}/",
            f"/api/v1/projects/{PROJECT}/pods/?limit=100",
            f"/api/v1/projects/{PROJECT}/workloads/?limit=100",
        ]
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30) as client:
            for path in paths:
                for _ in range(50):
                    client.get(path)
                samples = []
                for _ in range(args.reps):
                    t0 = time.perf_counter()
                    response = client.get(path)
                    response.json()
                    samples.append((time.perf_counter() - t0) * 1000)
                assert response.status_code == 200, (path, response.status_code, response.text[:200])
                results[path] = {"p50_ms": pct(samples, 50), "p99_ms": pct(samples, 99), "n": len(samples)}
                print(f"{path:50s} p50 {results[path]['p50_ms']:6.2f} ms  p99 {results[path]['p99_ms']:6.2f} ms")
        results["bare ASGI, prebuilt page of 100 pods"] = bare_floor(args.reps)
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(20)
        backing.stop()
    results["load_at_end"] = [round(x, 2) for x in os.getloadavg()]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
