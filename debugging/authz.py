"""Who may debug which pod: one resolver shared by the debug pages and the websocket consumers.

Rules (decided against the object, never just the URL):
- no authenticated user -> Unauthenticated (401 / close 4401);
- the namespace must be `proj-<name>` of a project the user can see (`Project.objects.visible_to`),
  otherwise NotFound (404 / 4404): another tenant's pods are reported as missing, not forbidden, so their
  names leak nothing;
- the pod must be in the member cluster's watch cache and the container in its spec -> else NotFound;
- a shell needs owner/developer (or platform admin) -> else Forbidden (403 / 4403); logs need any
  visible membership; a shell into one of the platform's injected containers (``policy.platform_containers``)
  needs a platform admin or a live sidecar-exec grant in the project (``projects.access_requests``), and the grant
  counts only while the project's policy allows sidecar exec (``pincompute.policy``: ``sidecarExec``);
- an archived project's pods are gone: NotFound.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from base.errors import Conflict, Forbidden, NotFound, Unauthenticated
from base.permissions import is_platform_admin
from clusters.models import Cluster, FederationRole
from debugging.policy import platform_containers, valid_name
from pincompute.policy import sidecar_exec_refusal
from projects.access_requests.rules import may_exec_sidecars
from projects.models import Project, ProjectRole
from projects.policy import policy_of

EXEC_ROLES: tuple[str, ...] = (ProjectRole.OWNER, ProjectRole.DEVELOPER)
MAX_STREAM_PODS = 20
FIRST_LIST_WAIT_SECONDS = 15.0  # a member's pods not listed yet (the process's caches just started): wait, not "gone"
PROJECT_PREFIX = "proj-"


FINISHED_PHASES = ("Succeeded", "Failed")


@dataclass(frozen=True)
class PodRef:
    """A pod the user may look at, resolved from the watch cache."""

    cluster: Cluster
    project: Project
    namespace: str
    name: str
    pod: dict[str, Any]
    containers: list[str]
    can_exec: bool
    phase: str = ""
    sidecars: frozenset[str] = frozenset()
    is_admin: bool = False

    @property
    def finished(self) -> bool:
        """Its containers have ended for good (a job's pod): there is nothing to open a shell in, only logs."""
        return self.phase in FINISHED_PHASES

    def may_exec(self, container: str) -> bool:
        return self.can_exec and not self.finished and (container not in self.sidecars or self.is_admin)


@dataclass(frozen=True)
class SelectorRef:
    cluster: Cluster
    project: Project
    namespace: str
    selector: dict[str, str]
    pods: list[dict[str, Any]] = field(default_factory=list)


class PodGone(NotFound):
    """The pod is not (or no longer) in a project the user may see: a 404 like any missing pod, carrying what the
    log streams need to serve its archived lines instead (the project is the user's: tenancy was decided)."""

    def __init__(self, cluster: Cluster, project: Project, namespace: str, name: str) -> None:
        super().__init__("No such pod.")
        self.cluster, self.project, self.namespace, self.name = cluster, project, namespace, name


def parse_selector(raw: str) -> dict[str, str]:
    """`a=b,c=d` (equality only: that is what the watch cache indexes)."""
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in raw.split(","))):
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip().lstrip("=")
        if not sep or not key or not value:
            raise NotFound(f"Unsupported selector term {part!r} (use key=value).")
        out[key] = value
    if not out:
        raise NotFound("A label selector is required.")
    return out


def container_names(pod: dict[str, Any]) -> list[str]:
    spec = pod.get("spec") or {}
    return [
        c["name"]
        for key in ("containers", "initContainers", "ephemeralContainers")
        for c in spec.get(key) or []
        if c.get("name")
    ]


def _project(user: Any, namespace: str) -> tuple[Project, bool]:
    if not getattr(user, "is_authenticated", False):
        raise Unauthenticated("Sign in first.")
    project = None
    # A name no project can have is missing without a query: PostgreSQL refuses a NUL in one (a 500, not the 404).
    if namespace.startswith(PROJECT_PREFIX) and valid_name(namespace):
        name = namespace.removeprefix(PROJECT_PREFIX)
        project = Project.objects.visible_to(user).active().filter(name=name).first()
    grants = getattr(user, "api_token_grants", None)  # set by token authentication
    if project is not None and getattr(user, "api_token_project", "") not in ("", project.name):
        project = None  # a robot account's token reaches only its own project
    if project is None:
        raise NotFound("No such pod.")
    if grants is not None and not grants & {"logs", "exec"}:
        raise Forbidden("This API token has neither the logs nor the exec scope.")
    can_exec = Project.objects.for_role(user, EXEC_ROLES).filter(pk=project.pk).exists()
    return project, can_exec


def _cache(cluster_name: str) -> tuple[Cluster, Any]:
    from clusters import runtime

    cluster = None
    if valid_name(cluster_name):  # as for a namespace: a name no cluster can have is missing, without a query
        cluster = Cluster.objects.filter(name=cluster_name, role=FederationRole.MEMBER).first()
    cache = runtime.member_caches().get(cluster_name) if cluster is not None else None
    if cluster is None or cache is None:
        raise NotFound("No such pod.")
    return cluster, cache


def resolve_pod(
    user: Any,
    cluster_name: str,
    namespace: str,
    pod_name: str,
    *,
    container: str | None = None,
    need_exec: bool = False,
) -> PodRef:
    """The pod if `user` may see it (and, with need_exec, shell into it); else NotFound, Forbidden or
    Unauthenticated."""
    project, can_exec = _project(user, namespace)
    cluster, cache = _cache(cluster_name)
    pod = cache.get("pods", namespace, pod_name)
    if pod is None and cache.wait_listed("pods", FIRST_LIST_WAIT_SECONDS):
        pod = cache.get("pods", namespace, pod_name)  # listed just now: a new portal process's first request
    if pod is None:
        raise PodGone(cluster, project, namespace, pod_name)
    names = container_names(pod)
    if container is not None and container not in names:
        raise NotFound(f"Pod {pod_name} has no container {container!r}.")
    if need_exec and not can_exec:
        raise Forbidden("Viewers can read logs but not open a shell.")
    if need_exec and getattr(user, "api_token_scope", "write") == "read":  # set by token authentication
        raise Forbidden("This API token is read-only: a shell needs a token with the write scope.")
    if need_exec and "exec" not in getattr(user, "api_token_grants", {"exec"}):
        raise Forbidden("This robot account has no exec scope.")
    sidecars = platform_containers(pod)
    by_policy = sidecar_exec_refusal(policy_of(project), project.name) if sidecars else ""
    granted = bool(sidecars) and can_exec and not by_policy and may_exec_sidecars(user, project.pk)
    admin = is_platform_admin(user) or granted
    if need_exec and container in sidecars and not admin:
        raise Forbidden(
            f"{container} is a platform sidecar: only platform admins may open a shell in it; {by_policy}."
            if by_policy
            else f"{container} is a platform sidecar: only platform admins (or a time-limited sidecar-exec grant) "
            "may open a shell in it."
        )
    phase = (pod.get("status") or {}).get("phase", "")
    if need_exec and phase in FINISHED_PHASES:
        raise Conflict(
            f"Pod {pod_name} has finished ({phase}): its containers have ended, so there is no shell to open; "
            "its logs remain."
        )
    return PodRef(cluster, project, namespace, pod_name, pod, names, can_exec, phase, sidecars, admin)


def resolve_selector(user: Any, cluster_name: str, namespace: str, raw_selector: str) -> SelectorRef:
    """Pods matching the selector in a visible project namespace, capped at MAX_STREAM_PODS."""
    project, _ = _project(user, namespace)
    selector = parse_selector(raw_selector)
    cluster, cache = _cache(cluster_name)
    cache.wait_listed("pods", FIRST_LIST_WAIT_SECONDS)  # a new portal process's first request: none listed yet
    pods = [
        p
        for p in cache.list("pods", namespace=namespace, label_selector=selector)
        if (p.get("status") or {}).get("phase") in ("Running", "Succeeded", "Failed")
    ]
    pods.sort(key=lambda p: p["metadata"]["name"])
    return SelectorRef(cluster, project, namespace, selector, pods[:MAX_STREAM_PODS])


def resolve_namespace(user: Any, namespace: str) -> Project:
    """The active project of a ``proj-<name>`` namespace the user can see; else NotFound / Unauthenticated."""
    return _project(user, namespace)[0]
