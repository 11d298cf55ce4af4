"""A project's network isolation on every member, as plain NetworkPolicy manifests; no I/O.

Two policies per project namespace, both selecting every pod in it (``podSelector: {}``), Ingress only:

- ``pincompute-isolation``: admits traffic from the project's own namespace and from the platform's
  namespaces (monitoring, by default: a setting of the portal), on every port;
- ``pincompute-openings``: one rule per opening the project's owners made: a port (and protocol) admitted from
  named projects' namespaces and/or from the ingress controller's namespaces (no opening: ``NO_OPENING_RULE``).

NetworkPolicies are additive, so a pod of the project admits the union of both; everything else is dropped by a
CNI that enforces policies. Egress is not restricted. Namespaces are selected by the ``kubernetes.io/metadata.name``
label the apiserver sets itself (nobody can forge it on another namespace). Both policies are always applied (by
name, server-side, forcing ownership), so removing the last opening or a hand edit converges on the next run;
their lists and selectors are atomic in the API, so an apply replaces them whole.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pincompute.labels import MANAGED_BY, MANAGED_BY_LABEL, PROJECT_LABEL

NETWORKING_API_VERSION = "networking.k8s.io/v1"
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
ISOLATION_POLICY = "pincompute-isolation"
OPENINGS_POLICY = "pincompute-openings"
POLICY_NAMES = (ISOLATION_POLICY, OPENINGS_POLICY)
MIN_PORT, MAX_PORT = 1, 65535
MAX_OPENINGS = 50  # per project: each is one rule in the openings policy


class Protocol(enum.Enum):
    TCP = "TCP"
    UDP = "UDP"
    SCTP = "SCTP"


@dataclass(frozen=True)
class Opening:
    """``port``/``protocol`` admitted from the namespaces of ``projects`` and, if ``ingress``, from the ingress's."""

    port: int
    protocol: Protocol = Protocol.TCP
    projects: tuple[str, ...] = ()  # project namespaces (not project names)
    ingress: bool = False

    def sort_key(self) -> tuple[int, str, tuple[str, ...], bool]:
        return self.port, self.protocol.value, self.projects, self.ingress


@dataclass(frozen=True)
class NetworkSettings:
    """The platform's namespaces: ``platform`` ones are admitted on every port, ``ingress`` ones on opened ports."""

    platform: tuple[str, ...] = ("monitoring",)
    ingress: tuple[str, ...] = ("ingress-nginx",)


@dataclass(frozen=True)
class NetworkPlan:
    """What a project's policies admit (the tenancy carries it; the pages and the preview describe it)."""

    settings: NetworkSettings = field(default_factory=NetworkSettings)
    openings: tuple[Opening, ...] = ()


def _namespace_peer(namespace: str) -> dict[str, Any]:
    return {"namespaceSelector": {"matchLabels": {NAMESPACE_NAME_LABEL: namespace}}}


def _metadata(name: str, namespace: str, project: str) -> dict[str, Any]:
    labels = {PROJECT_LABEL: project, MANAGED_BY_LABEL: MANAGED_BY}
    return {"name": name, "namespace": namespace, "labels": labels}


def _policy(name: str, namespace: str, project: str, rules: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": NETWORKING_API_VERSION,
        "kind": "NetworkPolicy",
        "metadata": _metadata(name, namespace, project),
        "spec": {"podSelector": {}, "policyTypes": ["Ingress"], "ingress": rules},
    }


def _unique(names: Iterable[str]) -> list[str]:
    return sorted(set(names))


def isolation_policy(project: str, namespace: str, settings: NetworkSettings) -> dict[str, Any]:
    """Admits the project's own pods and the platform's namespaces (every port)."""
    peers = [{"podSelector": {}}, *(_namespace_peer(ns) for ns in _unique(settings.platform) if ns != namespace)]
    return _policy(ISOLATION_POLICY, namespace, project, [{"from": peers}])


def opening_rule(opening: Opening, settings: NetworkSettings) -> dict[str, Any] | None:
    """One ingress rule, or None when it admits nobody (no project named and no ingress namespace configured)."""
    sources = [*opening.projects, *(settings.ingress if opening.ingress else ())]
    if not sources:
        return None
    return {
        "from": [_namespace_peer(ns) for ns in _unique(sources)],
        "ports": [{"port": opening.port, "protocol": opening.protocol.value}],
    }


# With no opening, the openings policy holds this rule (the project's own pods, admitted by the isolation policy
# anyway) rather than an empty list: the apiserver drops an empty list, so every apply would write the object again,
# and a list the portal does not set is one a hand edit could add rules to that no apply takes away.
NO_OPENING_RULE: dict[str, Any] = {"from": [{"podSelector": {}}]}


def openings_policy(project: str, namespace: str, plan: NetworkPlan) -> dict[str, Any]:
    """One rule per opening, in a stable order (the same plan always gives the same object)."""
    found = [opening_rule(o, plan.settings) for o in sorted(set(plan.openings), key=Opening.sort_key)]
    rules = [r for r in found if r is not None] or [NO_OPENING_RULE]
    return _policy(OPENINGS_POLICY, namespace, project, rules)


def network_policy_manifests(project: str, namespace: str, plan: NetworkPlan) -> list[dict[str, Any]]:
    """Both policies of one project namespace on a member, in apply order."""
    return [isolation_policy(project, namespace, plan.settings), openings_policy(project, namespace, plan)]


def admits(plan: NetworkPlan, namespace: str, source: str, port: int, protocol: Protocol = Protocol.TCP) -> bool:
    """Whether a pod of ``namespace`` admits a connection from namespace ``source`` on ``port``/``protocol``, as a
    CNI enforcing ``network_policy_manifests`` would decide it (the reference the tests hold the manifests to)."""
    if source == namespace or source in plan.settings.platform:
        return True
    return any(
        o.port == port
        and o.protocol is protocol
        and (source in o.projects or (o.ingress and source in plan.settings.ingress))
        for o in plan.openings
    )


def describe(plan: NetworkPlan) -> dict[str, list[str]]:
    """What each policy admits, one line per source, for pages, the API, the CLI and the preview."""
    isolation = ["every port from the project's own pods"]
    if plan.settings.platform:
        isolation.append(f"every port from the platform's namespaces ({', '.join(_unique(plan.settings.platform))})")
    openings = []
    for o in sorted(set(plan.openings), key=Opening.sort_key):
        sources = [*o.projects, *(["the ingress"] if o.ingress else [])]
        openings.append(f"{o.protocol.value} {o.port} from {', '.join(sources)}")
    return {ISOLATION_POLICY: isolation, OPENINGS_POLICY: openings}
