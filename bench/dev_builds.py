"""Benchmark: the Go builds ``manage.py dev`` waits for on a fresh machine before its clusters start (not a test).

    .venv/bin/python bench/dev_builds.py [--floor] [--keep DIR]

Runs ``build_binaries.sh`` for each binary ``build_binaries.sh missing dev`` names, one at a time and in that order,
in a fresh ``PINCONSOLE_CACHE`` with a fresh ``GOCACHE`` shared by the builds, exactly as the dev command does on a
fresh machine except for the module cache (``~/go/pkg/mod`` is kept: a fresh machine fills it from the module proxy
while its Python packages install). ``--floor`` then builds kube-apiserver alone again with another cold GOCACHE in
the same wrapper module: the floor of the critical path. Never touches ``~/.cache/pinconsole``.

Prints each build's wall time with the load average, and writes ``bench/results/dev_builds.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "devtools" / "localcp" / "build_binaries.sh"
RESULTS = ROOT / "bench" / "results" / "dev_builds.json"


def timed(cmd: list[str], env: dict[str, str], log: Path, cwd: Path | None = None) -> float:
    start = time.monotonic()
    with log.open("a") as out:
        subprocess.run(cmd, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, check=True)
    return round(time.monotonic() - start, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--floor", action="store_true", help="also kube-apiserver alone with a cold GOCACHE")
    ap.add_argument("--keep", type=Path, help="work in this dir and keep it (default: a temporary dir, removed)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="dev-builds-"))
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PINCONSOLE_CACHE": str(work / "cache"), "GOCACHE": str(work / "gocache")}
    env.pop("PINCONSOLE_BIN_DIR", None)
    log = work / "build.log"
    script = ["bash", str(SCRIPT)]
    missing = subprocess.run([*script, "missing", "dev"], env=env, capture_output=True, text=True, check=True)
    results: dict[str, Any] = {"load_at_start": [round(x, 2) for x in os.getloadavg()], "builds": {}}
    try:
        for name in missing.stdout.split():
            seconds = timed([*script, name], env, log)
            results["builds"][name] = {"seconds": seconds, "load": round(os.getloadavg()[0], 2)}
            print(f"{name:26} {seconds:7.1f} s   (load {os.getloadavg()[0]:.1f})", flush=True)
        total = round(sum(b["seconds"] for b in results["builds"].values()), 1)
        results["total_seconds"] = total
        print(f"{'all, one after another':26} {total:7.1f} s", flush=True)
        if args.floor:
            floor_env = {**env, "GOCACHE": str(work / "gocache-floor"), "CGO_ENABLED": "0", "GOTOOLCHAIN": "local"}
            module = next((work / "cache" / "src").glob("k8s-*"))
            out = work / "kube-apiserver-floor"
            build = ["go", "build", "-trimpath", "-pgo=off", "-tags", "grpcnotrace", "-ldflags=-s -w", "-o", str(out)]
            seconds = timed([*build, "k8s.io/kubernetes/cmd/kube-apiserver"], floor_env, log, cwd=module)
            results["kube_apiserver_alone_cold_gocache"] = {"seconds": seconds, "load": round(os.getloadavg()[0], 2)}
            print(f"{'kube-apiserver alone':26} {seconds:7.1f} s   (cold GOCACHE, warm modules)", flush=True)
    finally:
        results["load_at_end"] = [round(x, 2) for x in os.getloadavg()]
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n")
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
