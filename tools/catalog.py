"""What the platform offers one user, one line each (seed 003: one place to discover tools), and the tools of the
projects they may see (each project's team, on-call contact and links: ``projects.ownership``).

Only what exists in this install is listed: the log search when a log archive is configured, metrics when Prometheus
is (and Grafana when ``GRAFANA_URL`` names one), webhooks for the projects the user owns, the clusters' status and
the audit log for platform admins. Every link is a page of this portal or a URL its settings name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.urls import reverse

from base.permissions import is_platform_admin
from pincompute.ownership import Ownership, oncall_href
from projects.models import Project, ProjectRole
from projects.ownership import ownership_of

MAX_PROJECTS = 50  # the projects' section; the search finds the rest
MAX_PROJECT_LINKS = 10  # per-project links of one tool (webhooks)


@dataclass(frozen=True)
class ToolLink:
    label: str
    url: str
    external: bool = False  # another service's page (Prometheus, Grafana), opened in a new tab


@dataclass(frozen=True)
class Tool:
    key: str
    title: str
    line: str
    icon: str
    links: tuple[ToolLink, ...]
    command: str = ""


def _link(label: str, name: str, *args: str) -> ToolLink:
    return ToolLink(label, reverse(name, args=args))


def _metrics() -> Tool | None:
    links = []
    if settings.PROMETHEUS_URL:
        links += [_link("Use against requests", "usage:use"), ToolLink("Prometheus", settings.PROMETHEUS_URL, True)]
    if settings.GRAFANA_URL:
        links.append(ToolLink("Grafana", settings.GRAFANA_URL, True))
    if not links:
        return None
    line = "Containers' CPU and memory use against their requests and limits, from the clusters' Prometheus."
    return Tool("metrics", "Metrics", line, "bi-graph-up", tuple(links))


def _webhooks(user: Any) -> Tool | None:
    owned = Project.objects.for_role(user, (ProjectRole.OWNER,)).active().order_by("name")[:MAX_PROJECT_LINKS]
    links = tuple(_link(p.name, "webhooks:page", p.name) for p in owned)
    if not links:
        return None
    line = (
        "Signed POSTs (Standard Webhooks) to your endpoints when a workload fails or quota is decided; owners set them."
    )
    return Tool("webhooks", "Webhooks", line, "bi-broadcast", links)


def platform_tools(user: Any, portal: str) -> list[Tool]:
    """The tools ``user`` may use here; ``portal`` is this portal's address, for the CLI's login command."""
    admin = is_platform_admin(user)
    tools = [
        Tool(
            "api",
            "API",
            "Every action of these pages as a REST call under /api/v1/, described by OpenAPI 3.",
            "bi-braces",
            (_link("Swagger UI", "api-docs"), _link("ReDoc", "api-redoc"), _link("OpenAPI schema", "api-schema")),
        ),
        Tool(
            "cli",
            "Command line and SDK",
            "pincompute, with kubectl's habits, and a typed Python client over the same API; sign in with a token.",
            "bi-terminal",
            (_link("API tokens", "tokens:list"),),
            command=f"pip install ./sdk && pincompute login --url {portal} --token-file TOKEN_FILE",
        ),
        Tool(
            "search",
            "Search",
            "Projects (by name or team), workloads live and deleted, pods"
            + (", clusters, nodes, users, groups and audit entries" if admin else "")
            + "; press / on any page.",
            "bi-search",
            (_link("Search", "search:page"),),
            command="pincompute search QUERY",
        ),
    ]
    if settings.LOG_ARCHIVE_URL:
        line = "Every pod's console and file logs, live and gone, from the log archive: a workload's page, Logs."
        command = "pincompute logs --since 2h workload/NAME --grep ERROR -n PROJECT"
        tools.append(Tool("logs", "Log search", line, "bi-card-text", (_link("Workloads", "workloads:list"),), command))
    tools += [t for t in (_metrics(), _webhooks(user)) if t is not None]
    tools += [
        Tool(
            "cost",
            "Usage and cost",
            "What each project, team and workload requested and used, priced per tier (CSV too).",
            "bi-cash-coin",
            (_link("Report", "usage:report"), _link("CSV", "usage:report-csv")),
        ),
        Tool(
            "notifications",
            "Notifications",
            "What needs you, in the portal and by mail at once or as a daily digest.",
            "bi-bell",
            (_link("Notifications", "notifications:list"), _link("Preferences", "notifications:preferences")),
        ),
        Tool(
            "ownership",
            "Ownership and links",
            "Each project's team, on-call contact and links; a workload overrides them with annotations.",
            "bi-people",
            (_link("Projects", "projects:list"),),
            command="pincompute owners get -n PROJECT",
        ),
    ]
    if admin:
        tools += [
            Tool(
                "clusters",
                "Clusters",
                "Each member's health, capacity, pools, nodes and maintenance.",
                "bi-hdd-network",
                (_link("Clusters", "clusters:list"),),
            ),
            Tool(
                "audit",
                "Audit log",
                "Every change, who made it, before and after.",
                "bi-journal-text",
                (_link("Audit", "audit:list"),),
            ),
        ]
    return tools


def project_tools(user: Any) -> list[dict[str, Any]]:
    """Each visible active project with its ownership (the first ``MAX_PROJECTS`` by name)."""
    rows = []
    for project in Project.objects.visible_to(user).active().order_by("name")[:MAX_PROJECTS]:
        owned: Ownership = ownership_of(project)
        rows.append({"project": project, "ownership": owned, "oncall_href": oncall_href(owned.oncall)})
    return rows
