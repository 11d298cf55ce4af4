"""A project's network openings as stored, and the ``NetworkPlan`` its members' NetworkPolicies are made from
(read by ``projects.provisioning``; changed only through ``projects.network``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings

from pincompute.netpol import NetworkPlan, NetworkSettings, Opening, Protocol, describe
from projects.models import Project


@dataclass(frozen=True)
class OpeningInput:
    """One opening as the portal stores and shows it: project names, not namespaces."""

    port: int
    protocol: str = Protocol.TCP.value
    projects: tuple[str, ...] = ()
    ingress: bool = False

    def body(self) -> dict[str, Any]:
        return {**asdict(self), "projects": list(self.projects)}


def network_settings() -> NetworkSettings:
    return NetworkSettings(tuple(settings.NETWORK_PLATFORM_NAMESPACES), tuple(settings.NETWORK_INGRESS_NAMESPACES))


def openings_of(project: Project) -> list[OpeningInput]:
    """The stored openings (written only by ``set_openings``, so already valid)."""
    return [
        OpeningInput(int(o["port"]), str(o["protocol"]), tuple(o.get("projects") or ()), bool(o.get("ingress")))
        for o in project.network_openings or []
    ]


def plan_of(project: Project) -> NetworkPlan:
    """What the project's NetworkPolicies admit (``projects.provisioning.tenant_of`` carries it to the members)."""
    openings = tuple(
        Opening(o.port, Protocol(o.protocol), tuple(Project(name=n).namespace for n in o.projects), o.ingress)
        for o in openings_of(project)
    )
    return NetworkPlan(network_settings(), openings)


def network_view(project: Project) -> dict[str, Any]:
    """The project's openings and what each of its policies admits (the page, the API, the CLI, the preview)."""
    plan = plan_of(project)
    return {
        "openings": [o.body() for o in openings_of(project)],
        "policies": [{"name": name, "admits": lines} for name, lines in describe(plan).items()],
        "platform_namespaces": list(plan.settings.platform),
        "ingress_namespaces": list(plan.settings.ingress),
    }
