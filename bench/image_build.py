"""Benchmark: the project image as the suite builds it (tests/harness/image.py), cold and cached (not a test).

    .venv/bin/python bench/image_build.py [--keep DIR]

In a fresh ``PINCONSOLE_CACHE`` (a temporary directory, or ``--keep DIR``): the Debian-made bases (mmdebstrap + podman
import, then node from the npm packages) and deploy/Containerfile with nothing cached, then the same build again (every
layer cached). Prints each figure with the load average and the image's size, and writes
``bench/results/image_build.json``. Never touches ``~/.cache/pinconsole``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "bench" / "results" / "image_build.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="build in this cache directory and keep it")
    args = parser.parse_args()
    cache = args.keep or Path(tempfile.mkdtemp(prefix="pinconsole-image-bench-"))
    os.environ["PINCONSOLE_CACHE"] = str(cache)
    from tests.harness.image import build_project_image
    from tests.harness.podman import Podman

    podman = Podman.in_cache()
    try:
        results: dict[str, object] = {"load_before": os.getloadavg()[0]}
        cold = build_project_image(podman)
        results["cold"] = {**cold.seconds, "load": os.getloadavg()[0]}
        cached = build_project_image(podman)
        results["cached"] = {**cached.seconds, "load": os.getloadavg()[0]}
        size = podman("image", "inspect", "--format", "{{.Size}}", cached.image_id).stdout.strip()
        results["image_mb"] = round(int(size) / 1e6)
        for base in (cached.python_base, cached.node_base):
            base_size = podman("image", "inspect", "--format", "{{.Size}}", base).stdout.strip()
            results[f"{base.split(':')[0].rsplit('/', 1)[1]}_mb"] = round(int(base_size) / 1e6)
    finally:
        if args.keep is None:
            podman("rmi", "--all", "--force", check=False, timeout=600)
            shutil.rmtree(cache, ignore_errors=True)
    for key, value in results.items():
        print(f"{key}: {value}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
