"""The chart applied to the local clusters for its tests: a release (its namespace, kubectl as its ServiceAccounts), the
host-mode release on the host and on member-a (kwok nodes), the member-mode release on member-b, removed afterwards."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from devtools.localcp import LocalControlPlane, binaries
from devtools.localcp.pods.watch import SANDBOX_LABEL
from devtools.operator_process import install_crds
from tests.support.helm import PRODUCTION_VALUES, Render

# kwok's kubelet, without this process's per-pod sandboxes (the image is never run).
ON_KWOK = {"nodeSelector": None, "tolerations": [], "podLabels": {SANDBOX_LABEL: "off"}}
PROJECT = "proj-helm-check"  # a project namespace the rights are asked about (need not exist)


@dataclass(frozen=True)
class Release:
    name: str
    namespace: str
    context: str
    kubectl: tuple[str, ...]

    @property
    def fullname(self) -> str:
        """The chart's ``pinconsole.fullname``: the prefix of every object it names per release."""
        return f"{self.name}-pinconsole"

    def sa(self, component: str) -> str:
        return f"system:serviceaccount:{self.namespace}:{self.fullname}-{component}"

    def run(self, *args: str, stdin: str | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([*self.kubectl, "--context", self.context, *args], input=stdin, capture_output=True,
                              text=True, timeout=120)  # fmt: skip
        assert not check or done.returncode == 0, f"kubectl {' '.join(args)}: {done.stderr}"
        return done

    def apply(self, objects: list[dict[str, object]]) -> None:
        manifest = yaml.safe_dump_all(objects)
        self.run("apply", "--server-side", "--field-manager=pinconsole-chart-test", "-n", self.namespace, "-f", "-",
                 stdin=manifest)  # fmt: skip

    def can_i(self, component: str, question: str) -> bool:
        """``question``: ``"VERB RESOURCE[/NAME] [flags]"``; ``-n`` defaults to the project namespace."""
        args = question.split()
        if "-A" not in args and "-n" not in args:
            args += ["-n", PROJECT]
        done = self.run("auth", "can-i", *args, "--as", self.sa(component), check=False)
        assert done.stdout.strip() in ("yes", "no"), done.stderr
        return done.stdout.strip() == "yes"

    def delete(self) -> None:
        self.run("delete", "namespace", self.namespace, "--wait=false", "--ignore-not-found")
        selector = f"app.kubernetes.io/instance={self.name}"
        cluster_wide = "clusterrole,clusterrolebinding,validatingadmissionpolicy,validatingadmissionpolicybinding"
        self.run("delete", cluster_wide, "-l", selector, "--ignore-not-found")


def new_release(cp: LocalControlPlane, context: str) -> Release:
    suffix = uuid.uuid4().hex[:6]
    kubectl = (str(binaries.locate(("kubectl",)).kubectl), "--kubeconfig", str(cp.kubeconfig_path))
    release = Release(f"h{suffix}", f"pinconsole-{suffix}", context, kubectl)
    release.run("create", "namespace", release.namespace)
    return release


def _secret(name: str, **data: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "stringData": data}


@pytest.fixture(scope="module")
def crds(local_control_plane: LocalControlPlane) -> None:
    """The kinds the rights are about: `kubectl auth can-i` resolves a resource through discovery (an unknown
    ``pinapps.pincompute.io`` would be asked about as a core resource of that name)."""
    install_crds(local_control_plane.kubeconfig_path, ["member-b"], host="host")


@pytest.fixture(scope="module")
def host_release(local_control_plane: LocalControlPlane, render: Render, crds: None) -> Iterator[Release]:
    yield from _host_mode(local_control_plane, render, "host")


@pytest.fixture(scope="module")
def kwok_release(local_control_plane: LocalControlPlane, render: Render) -> Iterator[Release]:
    yield from _host_mode(local_control_plane, render, "member-a")


def _host_mode(local_control_plane: LocalControlPlane, render: Render, context: str) -> Iterator[Release]:
    """The production-like values applied with the Secrets they name (what an admin creates first)."""
    release = new_release(local_control_plane, context)
    settings = {"SECRET_KEY": "k" * 50, "DATABASE_URL": "postgres://pc@db/pc", "REDIS_URL": "redis://redis:6379/0"}
    kubeconfig = {"kubeconfig": Path(local_control_plane.kubeconfig_path).read_text()}
    secrets = [
        _secret("pinconsole-settings", **settings),
        _secret("pinconsole-portal-kubeconfig", **kubeconfig),
        _secret("pinconsole-operator-kubeconfig", **kubeconfig),
    ]
    try:
        release.apply(secrets + render(PRODUCTION_VALUES, values=ON_KWOK, release=release.name,
                                       namespace=release.namespace))  # fmt: skip
        yield release
    finally:
        release.delete()


@pytest.fixture(scope="module")
def member_release(local_control_plane: LocalControlPlane, render: Render, crds: None) -> Iterator[Release]:
    release = new_release(local_control_plane, "member-b")
    try:
        release.apply(render(values={"mode": "member"}, release=release.name, namespace=release.namespace))
        yield release
    finally:
        release.delete()
