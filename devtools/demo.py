"""Demo data for the embedded default: users, projects, quotas, cluster attributes, the projects'
namespaces on every cluster, and a few workloads written once on the host (the federation places them).

Idempotent: running it again keeps existing passwords and objects. Everything goes through the product's
own service functions and tasks (projects.services, projects.tasks, clusters.services, clusters.provision),
so the audit log shows the seeding like any other change and nothing here knows how a namespace or a
quota is laid out on a cluster.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from kubernetes.client.exceptions import ApiException

from clusters import provision
from clusters import services as cluster_services
from clusters.models import Cluster, ClusterPool, FederationRole, PoolKind
from clusters.runtime import api_for
from pincompute import API_VERSION
from pincompute.labels import HARDWARE_FAMILY_LABEL
from pincompute.quantity import parse_cpu, parse_memory
from pincompute.tiers import Tier as CoreTier
from projects.grants import QuotaInput
from projects.members import MemberInput
from projects.models import Project, ProjectRole, Tier
from projects.onboarding import ProjectDraft, onboard_project
from projects.tasks import provision_project_everywhere

PROJECTS = (
    ("ads-ranking", "Ads Ranking", "ads", "CC-1042", "Online ranking services for ads."),
    ("ml-training", "ML Training", "ml-platform", "CC-2210", "Distributed training and batch features."),
    ("search-infra", "Search Infra", "search", "CC-3307", "Indexing daemons and crawlers."),
)


@dataclass(frozen=True)
class DemoLogin:
    username: str
    password: str
    role: str


def _credentials_file() -> Path:
    return Path(settings.VAR_DIR) / "dev-credentials.json"


def ensure_users() -> list[DemoLogin]:
    path = _credentials_file()
    stored: dict[str, str] = json.loads(path.read_text()) if path.exists() else {}
    users = get_user_model()
    logins = []
    for username, role in (("demo", "developer"), ("admin", "platform admin")):
        password = stored.get(username) or secrets.token_urlsafe(12)
        user, _ = users.objects.get_or_create(username=username, defaults={"email": f"{username}@example.com"})
        if not user.check_password(password):
            user.set_password(password)
            user.save()
        if role == "platform admin":
            user.groups.add(Group.objects.get_or_create(name=settings.PLATFORM_ADMIN_GROUP)[0])
            if user.is_superuser:  # the group is the portal's admin role; Django's superuser is for createsuperuser
                user.is_staff = user.is_superuser = False
                user.save()
        stored[username] = password
        logins.append(DemoLogin(username, password, role))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(stored))
    path.chmod(0o600)
    return logins


def ensure_cluster_attributes(cluster: Cluster, nodes: list[dict[str, Any]]) -> None:
    """Pools sized from real node allocatable: 45% Reserved, 40% OnDemand, 10% burst buffer."""
    cpu = sum(parse_cpu(n["status"]["allocatable"].get("cpu", "0")) for n in nodes)
    mem = sum(parse_memory(n["status"]["allocatable"].get("memory", "0")) for n in nodes)
    gpu = sum(int(n["status"]["allocatable"].get("nvidia.com/gpu", "0")) for n in nodes)
    families = sorted({n["metadata"].get("labels", {}).get(HARDWARE_FAMILY_LABEL, "general") for n in nodes})
    if not cluster.hardware_families:
        cluster_services.update_cluster_attributes(cluster.pk, {"hardware_families": families}, actor=None)
    for kind, share in ((PoolKind.RESERVED, 0.45), (PoolKind.ONDEMAND, 0.40), (PoolKind.BURST, 0.10)):
        if ClusterPool.objects.filter(cluster=cluster, kind=kind).exists():
            continue
        cluster_services.update_pool(
            cluster.pk,
            kind,
            cluster_services.PoolInput(
                cpu=f"{int(cpu * share)}m", memory=str(int(mem * share)), gpu=str(int(gpu * share))
            ),
            actor=None,
        )


def ensure_projects(demo_user: Any, admin_user: Any) -> list[Project]:
    """The demo projects, onboarded by the admin with regional grants (the demo user owns two of them)."""
    quotas = {
        Tier.RESERVED: QuotaInput(cpu="16", memory="64Gi", gpu="0", pods="100"),
        Tier.ONDEMAND: QuotaInput(cpu="32", memory="128Gi", gpu="4", pods="200"),
        Tier.PREEMPTIBLE: QuotaInput(cpu="16", memory="64Gi", gpu="0", pods="100"),
    }
    projects = []
    for name, display, team, cc, description in PROJECTS:
        owner = admin_user if name == "search-infra" else demo_user
        project = Project.objects.filter(name=name).first() or onboard_project(
            ProjectDraft(
                name=name,
                display_name=display,
                team=team,
                cost_center=cc,
                description=description,
                members=[MemberInput("user", owner.get_username(), ProjectRole.OWNER)],
                quotas={str(tier): grant for tier, grant in quotas.items()},
            ),
            actor=admin_user,
        )
        projects.append(project)
    return projects


def demo_workloads(project: Project, members: list[Cluster]) -> list[dict[str, Any]]:
    """A PinApp over every member zone (the federation shards it, one shard per member) and a job set,
    each written once on the host: no placement here, the federation decides it."""
    zones = sorted({cluster.zone for cluster in members})
    owner = {"project": project.name, "team": project.team, "costCenter": project.cost_center}
    app = {
        "apiVersion": API_VERSION,
        "kind": "PinApp",
        "metadata": {"name": "ranker", "namespace": project.namespace},
        "spec": {
            **owner,
            "tier": CoreTier.ONDEMAND.value,
            "replicas": 2 * len(zones),
            "zones": zones,
            "template": {
                "containers": [
                    {
                        "name": "ranker",
                        "image": "registry.local/ads/ranker:1.8.2",
                        "ports": [{"name": "http", "containerPort": 8080}],
                        "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}},
                    }
                ]
            },
        },
    }
    jobset = {
        "apiVersion": API_VERSION,
        "kind": "PinterestJobSet",
        "metadata": {"name": "feature-backfill", "namespace": project.namespace},
        "spec": {
            **owner,
            "tier": CoreTier.PREEMPTIBLE.value,
            "shards": 4,
            "containers": [
                {
                    "name": "backfill",
                    "image": "registry.local/ads/backfill:2.0.0",
                    "resources": {"requests": {"cpu": "250m", "memory": "512Mi"}},
                }
            ],
        },
    }
    return [app, jobset]


def first_workload() -> tuple[str, str, str]:
    """(kind, namespace, name) of the demo PinApp: the dev command waits until the federation placed it."""
    app = demo_workloads(Project.objects.get(name=PROJECTS[0][0]), [])[0]
    return app["kind"], app["metadata"]["namespace"], app["metadata"]["name"]


def apply_demo_workloads(project: Project, host: Cluster, members: list[Cluster]) -> list[str]:
    """Write the demo workloads on the host, in the project's namespace there (provisioning made it), as a
    developer's ``kubectl apply`` to the host would; returns human-readable problems instead of raising."""
    problems = []
    for manifest in demo_workloads(project, members):
        try:
            provision.apply_all(api_for(host), [manifest])
        except ApiException as exc:
            problems.append(f"{host.name}: {manifest['kind']}/{manifest['metadata']['name']}: {exc.reason}")
    return problems


def seed(clusters: list[Cluster]) -> list[str]:
    """Cluster attributes from the members' real nodes, the demo projects with quotas, provisioned on the
    host and every member, and the demo workloads on the host. Returns problems instead of raising."""
    members = [c for c in clusters if c.role == FederationRole.MEMBER]
    host = next((c for c in clusters if c.role == FederationRole.HOST), None)
    for cluster in members:
        nodes = provision.dynamic_client(api_for(cluster)).resources.get(api_version="v1", kind="Node").get()
        ensure_cluster_attributes(cluster, nodes.to_dict()["items"])
    users = get_user_model().objects.in_bulk(["demo", "admin"], field_name="username")
    projects = ensure_projects(users["demo"], users["admin"])
    for project in projects:
        # The product's task (eager in the embedded default): the host and every member, with per-cluster
        # records. The services already queued it on commit; this also covers projects from an earlier run.
        provision_project_everywhere.delay(project.pk)
    if host is None:
        return ["no host cluster registered: the demo workloads need the federation's host"]
    return apply_demo_workloads(projects[0], host, members)
