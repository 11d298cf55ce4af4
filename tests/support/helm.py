"""The Helm chart (deploy/helm/pinconsole): helm built from its pinned Go module by the harness, charts rendered with
`helm template` and parsed with PyYAML."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from devtools.localcp import binaries

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "deploy" / "helm" / "pinconsole"
PRODUCTION_VALUES = ROOT / "deploy" / "helm" / "values-production.example.yaml"

Render = Callable[..., list[dict[str, Any]]]


@pytest.fixture(scope="session")
def helm() -> Path:
    """helm from ~/.cache/pinconsole (built on first use, like the control plane's binaries)."""
    return binaries.helm(build_missing=True)


@pytest.fixture(scope="session")
def render(helm: Path, tmp_path_factory: pytest.TempPathFactory) -> Render:
    """``render(*values_files, values=None, release="pc", namespace="pinconsole")``: the parsed objects."""
    tmp = tmp_path_factory.mktemp("helm-values")

    def run(
        *files: Path, values: dict[str, Any] | None = None, release: str = "pc", namespace: str = "pinconsole"
    ) -> list[dict[str, Any]]:
        args = [str(helm), "template", release, str(CHART), "--namespace", namespace]
        for path in files:
            args += ["--values", str(path)]
        if values:
            extra = tmp / f"values-{len(list(tmp.iterdir()))}.yaml"
            extra.write_text(yaml.safe_dump(values))
            args += ["--values", str(extra)]
        done = subprocess.run(args, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return [doc for doc in yaml.safe_load_all(done.stdout) if doc]

    return run


def by_kind(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def pod_templates(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """{name: pod spec} of every Deployment and Job."""
    return {o["metadata"]["name"]: o["spec"]["template"]["spec"] for o in objects if o["kind"] in ("Deployment", "Job")}
