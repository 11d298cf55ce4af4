"""The chart installed with helm on the real node (tests/harness/realnode.py): the pods' view of the machine.

The pods live on the node's bridge: PostgreSQL, Redis and the local apiservers listen on 127.0.0.1 only, so each is
reached through a forwarder on the node's address, and the kubeconfigs the chart mounts name those (with
``tls-server-name: localhost``, what the apiservers' certificate names). The settings, portal and operator kubeconfig
Secrets are what an admin creates before ``helm install`` (deploy/README.md).

The IdP is a dex of the test's own on the node's address, so the user's browser (the test) and the web pods reach the
same issuer; its certificate names that address and its CA is the chart's ``config.oidc.caBundle``; its client's
redirect URI is the portal's callback on the public host, as the portal builds it behind its ingress.
"""

from __future__ import annotations

import base64
import json
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import yaml

from devtools.localcp import LocalControlPlane, binaries
from devtools.localcp.dex import DexClient, DexServer, DexUser
from pincompute.operator.webhook.registration import NAME as WEBHOOK_NAME
from tests.harness.forwarder import TcpForwarder
from tests.harness.image import ROOT
from tests.harness.podman import Podman
from tests.harness.realnode import BRIDGE, NODE_LABEL
from tests.support.helm import CHART

PORTAL_HOST = "portal.test"  # the chart's ingress.host: Django answers it, the probes name it
PORTAL_ORIGIN = f"https://{PORTAL_HOST}"
OIDC_CLIENT, OIDC_SECRET, OIDC_CA = "pinconsole", "real-node-oidc-secret", "pinconsole-oidc-ca"
USER: DexUser = {"email": "ada@example.com", "username": "ada", "password": "correct-horse-battery", "groups": ["devs"]}
CHART_KUBECONFIG = "/etc/pinconsole/clusters/kubeconfig"  # where the chart mounts clusters.kubeconfigSecret


@dataclass
class PodNetwork:
    """Forwarders on the node's address to the host's services; stopped together."""

    forwarders: dict[str, TcpForwarder]

    def url(self, url: str) -> str:
        """``url`` (a database or Redis URL on 127.0.0.1) as a pod reaches it."""
        parts = urlsplit(url)
        forwarder = self.forwarders[str(parts.port)]
        netloc = parts.netloc.rsplit("@", 1)
        where = f"{BRIDGE.gateway}:{forwarder.port}"
        return urlunsplit(parts._replace(netloc=f"{netloc[0]}@{where}" if len(netloc) == 2 else where))

    def kubeconfig(self, local_kubeconfig: Path, contexts: list[str]) -> str:
        """The local clusters' kubeconfig for ``contexts``, as pods reach them (the CA and token inlined)."""
        config = yaml.safe_load(local_kubeconfig.read_text())
        keep = {c["name"]: c for c in config["contexts"] if c["name"] in contexts}
        clusters = {c["context"]["cluster"] for c in keep.values()}
        config["contexts"] = list(keep.values())
        config["clusters"] = [c for c in config["clusters"] if c["name"] in clusters]
        for entry in config["clusters"]:
            cluster = entry["cluster"]
            cluster["certificate-authority-data"] = base64.b64encode(
                Path(cluster.pop("certificate-authority")).read_bytes()
            ).decode()
            cluster["server"] = (
                f"https://{BRIDGE.gateway}:{self.forwarders[str(urlsplit(cluster['server']).port)].port}"
            )
            cluster["tls-server-name"] = "localhost"
        config["current-context"] = contexts[0]
        return yaml.safe_dump(config)


@contextmanager
def pod_network(ports: list[int]) -> Iterator[PodNetwork]:
    network = PodNetwork({str(port): TcpForwarder(("127.0.0.1", port), host=BRIDGE.gateway) for port in ports})
    try:
        for forwarder in network.forwarders.values():
            forwarder.start()
        yield network
    finally:
        for forwarder in network.forwarders.values():
            forwarder.stop()


@contextmanager
def node_dex(state_dir: Path) -> Iterator[DexServer]:
    """dex on the node's address (the bridge must exist: after the node started), with ``USER``; stopped after."""
    client: DexClient = {"id": OIDC_CLIENT, "secret": OIDC_SECRET, "redirect_uris": [f"{PORTAL_ORIGIN}/oidc/callback/"]}
    dex = DexServer(state_dir, users=[USER], clients=[client], host=BRIDGE.gateway)
    try:
        yield dex.start()
    finally:
        dex.stop()


def oidc(issuer: str) -> dict[str, Any]:
    """The chart's ``config.oidc`` for dex at ``issuer``, its CA from the ConfigMap ``OIDC_CA``."""
    return {"clientId": OIDC_CLIENT, "authorizationEndpoint": f"{issuer}/auth", "tokenEndpoint": f"{issuer}/token",
            "userEndpoint": f"{issuer}/userinfo", "jwksEndpoint": f"{issuer}/keys",
            "caBundle": {"configMap": OIDC_CA, "key": "ca.crt"}}  # fmt: skip


def values(image: str, members: list[str], issuer: str) -> dict[str, Any]:
    """The chart's values for the real node: every pod pinned there, small, the operator's two replicas, OIDC."""
    repository, tag = image.rsplit(":", 1)
    small = {"requests": {"cpu": "50m", "memory": "128Mi"}, "limits": {"memory": "768Mi"}}
    return {
        "mode": "host",
        "config": {"oidc": oidc(issuer)},
        "image": {"repository": repository, "tag": tag, "pullPolicy": "Never"},
        "nodeSelector": {NODE_LABEL: "true"},
        "tolerations": [{"key": NODE_LABEL, "operator": "Exists", "effect": "NoSchedule"}],
        "secrets": {"existingSecret": "pinconsole-settings"},
        "clusters": {"kubeconfigSecret": "pinconsole-portal-kubeconfig"},
        "ingress": {"enabled": False, "host": PORTAL_HOST},
        "web": {"replicas": 2, "resources": small},
        "worker": {"replicas": 1, "concurrency": 2, "resources": small},
        "beat": {"resources": small},
        "migrate": {"resources": small},
        "operator": {"replicas": 2, "resources": small, "members": [{"context": m} for m in members]},
    }


@dataclass(frozen=True)
class Release:
    name: str
    namespace: str
    kubeconfig: Path
    helm: Path

    def kubectl(self, *args: str, stdin: str | None = None, check: bool = True) -> str:
        kubectl = str(binaries.locate(("kubectl",)).kubectl)
        done = subprocess.run([kubectl, "--kubeconfig", str(self.kubeconfig), "--context", "host", "-n",
                               self.namespace, *args], input=stdin, capture_output=True, text=True,
                              timeout=300)  # fmt: skip
        assert not check or done.returncode == 0, f"kubectl {' '.join(args)}: {done.stderr}"
        return done.stdout

    def helm_run(self, verb: str, values_file: Path, *extra: str) -> subprocess.CompletedProcess[str]:
        args = [str(self.helm), verb, self.name, str(CHART), "-n", self.namespace, "--kubeconfig",
                str(self.kubeconfig), "--kube-context", "host", "-f", str(values_file), *extra]  # fmt: skip
        return subprocess.run(args, capture_output=True, text=True, timeout=900)

    def secret(self, name: str, **data: str) -> None:
        manifest = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "stringData": data}
        self.kubectl("apply", "-f", "-", stdin=json.dumps(manifest))

    def config_map(self, name: str, **data: str) -> None:
        manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}
        self.kubectl("apply", "-f", "-", stdin=json.dumps(manifest))

    def pods(self, component: str) -> list[dict[str, Any]]:
        selector = f"app.kubernetes.io/instance={self.name},app.kubernetes.io/component={component}"
        items: list[dict[str, Any]] = json.loads(self.kubectl("get", "pods", "-l", selector, "-o", "json"))["items"]
        return items

    def web_url(self) -> str:
        """The web Service's address, as a client inside the cluster network reaches it (kube-proxy's rules)."""
        service = json.loads(self.kubectl("get", "service", f"{self.name}-pinconsole-web", "-o", "json"))
        return f"http://{service['spec']['clusterIP']}:{service['spec']['ports'][0]['port']}"

    def uninstall(self) -> None:
        subprocess.run([str(self.helm), "uninstall", self.name, "-n", self.namespace, "--kubeconfig",
                        str(self.kubeconfig), "--kube-context", "host", "--wait", "--timeout", "3m"],
                       capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
        # What the pre-delete hook removes; again here, so a failed uninstall never leaves a Fail-policy webhook
        # nobody serves on the session's host cluster.
        self.kubectl("delete", "validatingwebhookconfiguration", WEBHOOK_NAME, "--ignore-not-found", check=False)
        self.kubectl("delete", "namespace", self.namespace, "--ignore-not-found", "--wait=false", check=False)


MIGRATION = """from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("{app}", "{latest}")]
    operations = [migrations.RunSQL(migrations.RunSQL.noop, migrations.RunSQL.noop)]
"""


def derived_image(podman: Podman, image: str, tmp: Path) -> tuple[str, str, str]:
    """``image`` with one more migration (a no-op) layered on: the next release of the portal, as an upgrade brings
    it. (reference, app, migration name)."""
    app = "usage"
    latest = sorted(p.stem for p in (ROOT / app / "migrations").glob("[0-9][0-9][0-9][0-9]_*.py"))[-1]
    name = f"{int(latest[:4]) + 1:04d}_real_node_upgrade"
    context = tmp / "upgrade"
    context.mkdir()
    (context / f"{name}.py").write_text(MIGRATION.format(app=app, latest=latest))
    (context / "Containerfile").write_text(f"FROM {image}\nCOPY {name}.py /app/{app}/migrations/{name}.py\n")
    ref = f"{image}-upgrade"
    podman("build", "--pull=never", "--tag", ref, str(context), timeout=600)
    return ref, app, name


def portal_client(url: str) -> httpx.Client:
    """A client of the portal behind its TLS proxy: the Host and scheme the chart's probes send too."""
    return httpx.Client(base_url=url, headers={"Host": PORTAL_HOST, "X-Forwarded-Proto": "https"}, timeout=30)


def answers(url: str) -> bool:
    try:
        return portal_client(url).get("/healthz").status_code == 200
    except httpx.TransportError:
        return False


def member_contexts(cp: LocalControlPlane) -> list[str]:
    return [c.context for c in cp.clusters if c.role == "member"]


def seconds_since(started: float) -> float:
    return round(time.monotonic() - started, 1)
