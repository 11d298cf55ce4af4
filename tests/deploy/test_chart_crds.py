"""The chart ships the CRDs as manifests (deploy/helm/pinconsole/crds, installed by `helm install` before the
templates, readable by GitOps tools): exactly what the kind registry generates now, and every CRD `install-crds`
applies to a host or a member, so the two cannot drift. `python -m pincompute.operator export-crds` rewrites them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from pincompute.kinds import InstalledOn
from pincompute.operator.crd_files import crd_files
from pincompute.operator.install import install
from tests.support.helm import CHART, ROOT
from tests.support.kubeio import FakeKube

SHIPPED = CHART / "crds"


class EstablishedKube(FakeKube):
    def get(self, res, namespace, name):
        return {"status": {"conditions": [{"type": "Established", "status": "True"}]}}


def _shipped() -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(SHIPPED.iterdir())}


def test_the_shipped_crds_are_what_the_registry_generates() -> None:
    regenerate = "python -m pincompute.operator export-crds --output-dir deploy/helm/pinconsole/crds"
    assert _shipped() == crd_files(), f"the chart's CRDs are stale: run `{regenerate}`"


def test_every_crd_install_crds_applies_is_shipped_and_nothing_else() -> None:
    applied = {name for role in InstalledOn for name in install(EstablishedKube(), role=role)}
    shipped = {yaml.safe_load(text)["metadata"]["name"] for text in _shipped().values()}
    assert shipped == applied


def test_export_crds_writes_the_chart_files(tmp_path: Path) -> None:
    (tmp_path / "retired.pincompute.io.yaml").write_text("kind: CustomResourceDefinition\n")  # a kind since removed

    subprocess.run([sys.executable, "-m", "pincompute.operator", "export-crds", "--output-dir", str(tmp_path)],
                   cwd=ROOT, check=True, capture_output=True, timeout=60)  # fmt: skip

    assert {p.name: p.read_text() for p in sorted(tmp_path.iterdir())} == _shipped()


def test_helm_installs_them_before_the_templates(helm: Path) -> None:
    done = subprocess.run([str(helm), "template", "pc", str(CHART), "--include-crds"], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    kinds = [doc["kind"] for doc in yaml.safe_load_all(done.stdout) if doc]
    crds = kinds.count("CustomResourceDefinition")
    assert crds == len(_shipped()) and kinds[:crds] == ["CustomResourceDefinition"] * crds
