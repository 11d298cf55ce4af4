"""Demo data for the embedded default: users, projects, quotas, cluster attributes and a few workloads.

Idempotent: running it again keeps existing passwords and objects. Everything goes through the same
service functions as the UI, so the audit log shows the seeding like any other change.
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

from clusters import services as cluster_services
from clusters.models import Cluster, ClusterPool, PoolKind
from projects import services as project_services
from projects.models import Project, Role, Tier
from workloads.core.labels import HARDWARE_FAMILY_LABEL

GIB = 2**30
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
            user.is_staff = user.is_superuser = True
            user.save()
        stored[username] = password
        logins.append(DemoLogin(username, password, role))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(stored))
    path.chmod(0o600)
    return logins


def ensure_cluster_attributes(cluster: Cluster, nodes: list[dict[str, Any]]) -> None:
    """Pools sized from real node allocatable: 45% Reserved, 40% OnDemand, 10% burst buffer."""
    cpu = sum(_cpu(n["status"]["allocatable"].get("cpu", "0")) for n in nodes)
    mem = sum(_mem(n["status"]["allocatable"].get("memory", "0")) for n in nodes)
    gpu = sum(int(n["status"]["allocatable"].get("nvidia.com/gpu", "0")) for n in nodes)
    families = sorted({n["metadata"].get("labels", {}).get(HARDWARE_FAMILY_LABEL, "general") for n in nodes})
    if not cluster.hardware_families:
        cluster_services.update_cluster_attributes(cluster.pk, {"hardware_families": families}, actor=None)
    for kind, share in ((PoolKind.RESERVED, 0.45), (PoolKind.ONDEMAND, 0.40), (PoolKind.BURST, 0.10)):
        if ClusterPool.objects.filter(cluster=cluster, kind=kind).exists():
            continue
        cluster_services.update_pool(cluster.pk, kind, cluster_services.PoolInput(
            cpu=f"{int(cpu * share)}m", memory=str(int(mem * share)), gpu=str(int(gpu * share))), actor=None)


def ensure_projects(members: list[Cluster], demo_user: Any, admin_user: Any) -> list[Project]:
    projects = []
    for name, display, team, cc, description in PROJECTS:
        project = Project.objects.filter(name=name).first() or project_services.create_project(
            name=name, display_name=display, team=team, cost_center=cc, description=description, actor=admin_user)
        if name != "search-infra":
            project_services.add_member(project=project, user=demo_user, role=Role.OWNER, actor=admin_user)
        for cluster in members:
            for tier, cpu_cores, mem_gib, gpu in ((Tier.RESERVED, 16, 64, 0), (Tier.ONDEMAND, 32, 128, 4),
                                                   (Tier.PREEMPTIBLE, 16, 64, 0)):
                if not project.quotas.filter(cluster=cluster, tier=tier).exists():
                    project_services.grant_quota(project=project, cluster=cluster, tier=tier,
                                                 cpu_milli=cpu_cores * 1000, memory_bytes=mem_gib * GIB, gpu=gpu,
                                                 actor=admin_user)
        projects.append(project)
    return projects


def _cpu(value: str) -> int:
    from workloads.core.quantity import parse_cpu

    return parse_cpu(value)


def _mem(value: str) -> int:
    from workloads.core.quantity import parse_memory

    return parse_memory(value)
