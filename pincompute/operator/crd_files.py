"""The CRDs as YAML files, one per CRD: what ``install-crds`` applies to the host and to the members (the union: the
workload kinds, and the platform's own kinds the host serves), for the chart's ``crds/`` directory and GitOps tools.

``python -m pincompute.operator export-crds --output-dir deploy/helm/pinconsole/crds`` writes them;
``tests/deploy/test_chart_crds.py`` fails when the chart's copies differ from what the registry generates now.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from pincompute.crds import crd_manifests, platform_crd_manifests
from pincompute.kinds import InstalledOn

HEADER = "# Generated from pincompute/kinds.py by `python -m pincompute.operator export-crds`: do not edit.\n"


def all_crds() -> list[dict[str, Any]]:
    """Every CRD any cluster of the federation serves, in install order (the host's superset)."""
    return [*crd_manifests(), *(m for role in InstalledOn for m in platform_crd_manifests(role))]


def crd_files() -> dict[str, str]:
    """``{file name: YAML text}``, one file per CRD, named after it (``pinapps.pincompute.io.yaml``)."""
    return {
        f"{crd['metadata']['name']}.yaml": HEADER + yaml.safe_dump(crd, sort_keys=False, width=120)
        for crd in all_crds()
    }


def write_crd_files(directory: Path) -> list[Path]:
    """Replace ``directory``'s CRD files with the generated ones (stale ones removed); returns the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    files = crd_files()
    for stale in directory.glob("*.yaml"):
        if stale.name not in files:
            stale.unlink()
    written = []
    for name, text in files.items():
        path = directory / name
        path.write_text(text)
        written.append(path)
    return written
