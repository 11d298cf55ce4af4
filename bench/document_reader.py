"""Benchmark: reading a user's document (YAML or JSON text), libyaml's parser against PyYAML's Python one (not a test).

    .venv/bin/python bench/document_reader.py [--repeat 5]

``pincompute.documents.load_document`` reads every body the API and the pages take. It parses with libyaml and
falls back to PyYAML's Python reader and scanner only for what libyaml refuses; both compose with the same bounded
composer. For documents of about 10 KB, 100 KB and 450 KB (the limit is 512 KiB and 20,000 values), as YAML and as
JSON, this prints the best CPU time of --repeat reads by each path and writes ``bench/results/document_reader.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pincompute import documents  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "document_reader.json"


def sample(containers: int, value_bytes: int) -> dict[str, Any]:
    """A PinApp-shaped document: ``containers`` entries of about a dozen values each."""
    return {
        "apiVersion": "pincompute.io/v1",
        "kind": "PinApp",
        "metadata": {"name": "bench", "labels": {f"team-{i}": f"value-{i}" for i in range(10)}},
        "spec": {
            "containers": [
                {
                    "name": f"c{i}",
                    "image": "registry.example/app:1.2.3",
                    "args": ["--port", str(8000 + i), "--verbose"],
                    "env": [{"name": "NOTE", "value": "n" * value_bytes}, {"name": "INDEX", "value": str(i)}],
                    "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}},
                }
                for i in range(containers)
            ]
        },
    }


def best_cpu(read: Callable[[str], Any], text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.process_time()
        read(text)
        times.append(time.process_time() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    shapes = {"10 KB": sample(40, 20), "100 KB": sample(400, 20), "450 KB": sample(550, 550)}
    rows = []
    for size, document in shapes.items():
        for form, text in (("YAML", yaml.safe_dump(document, sort_keys=False)), ("JSON", json.dumps(document))):
            assert documents.load_document(text) == documents._load_exactly(text) == document
            libyaml = best_cpu(documents.load_document, text, args.repeat)
            pyyaml = best_cpu(documents._load_exactly, text, args.repeat)
            rows.append(
                {
                    "document": size,
                    "form": form,
                    "bytes": len(text.encode()),
                    "libyaml_ms": round(libyaml * 1000, 1),
                    "pyyaml_ms": round(pyyaml * 1000, 1),
                    "speedup": round(pyyaml / libyaml, 1),
                }
            )
            row = rows[-1]
            print(
                f"{size:>6} {form}: {row['bytes']:>7} bytes  libyaml {row['libyaml_ms']:7.1f} ms  "
                f"PyYAML {row['pyyaml_ms']:7.1f} ms  x{row['speedup']}"
            )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"repeat": args.repeat, "rows": rows}, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
