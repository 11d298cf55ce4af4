"""Where search looks, one function per kind of thing: each yields the matches one user may see, as candidates
whose page link is made only if they make the cut (``reverse`` costs more than ranking a name).

Live objects come from the watch caches the pages read (workloads from the host's, pods and nodes from the
members'), never from an apiserver, so a search costs no request to a cluster; names are matched on the caches' keys
and only the matching objects are read. Projects, clusters, users, groups and audit entries come from the database.
Tenancy is decided here, by the callers' scope: workloads and pods are read only in the namespaces of the projects
the user may see; clusters, nodes, users, groups and audit entries are searched only for platform admins, whose pages
they link to.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models import Q
from django.urls import reverse

from base.models import AuditEvent
from clusters import runtime
from clusters.models import Cluster
from pincompute.kinds import KINDS
from pincompute.labels import WORKLOAD_LABEL
from projects.models import Project
from search.ranking import Rank, best, rank
from workloads.history.models import WorkloadRecord

DB_CANDIDATES = 200  # rows read per database source before ranking (the best are among those whose name holds q)
KIND_ORDER = ("project", "workload", "pod", "cluster", "node", "user", "group", "audit")
PER_NAMESPACE = 50  # up to this many projects, a cache is read per namespace; beyond, once for all of them


@dataclass(frozen=True)
class Seen:
    """A project the user may see, as much of it as search shows (an admin's thousand projects, read as plain
    rows: building Project models with their JSON documents cost more than the search)."""

    pk: int
    name: str
    display_name: str
    team: str
    archived_at: Any = None
    created_at: Any = None

    @property
    def namespace(self) -> str:
        return Project.namespace_of(self.name)

    @classmethod
    def visible_to(cls, user: Any) -> dict[str, Seen]:
        rows = Project.objects.visible_to(user).order_by("name")
        fields = ("pk", "name", "display_name", "team", "archived_at", "created_at")
        return {Project.namespace_of(row[1]): cls(*row) for row in rows.values_list(*fields)}


@dataclass(frozen=True)
class Hit:
    kind: str  # project, workload, pod, cluster, node, user, group, audit
    name: str
    where: str  # what and where it is, in a few words
    url: str
    rank: Rank
    project: str = ""
    team: str = ""  # a project's, or a workload's (its spec.team, else its project's)


# A match: (rank, kind's place in KIND_ORDER, name's length, name, a tie-breaker, what builds its hit from the rest).
# A plain tuple, as the sort key and the payload at once: a search may match 100k pod names, of which 20 are shown.
Candidate = tuple[int, int, int, str, int, Callable[[], Hit]]
_ties = itertools.count()


def candidate(found: Rank, kind: str, name: str, make: Callable[[], Hit]) -> Candidate:
    return (found, KIND_ORDER.index(kind), len(name), name, next(_ties), make)


class Best:
    """The best ``size`` candidates offered so far, in order. The big sources (workloads, pods, nodes) ask
    ``excludes`` before building a candidate: once the list is full, a name of a worse rank and kind than the worst
    kept cannot get in, so a word found in 25k pod names costs 25k rank checks and no more."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.kept: list[Candidate] = []

    def offer(self, found: Candidate) -> None:
        if len(self.kept) < self.size:
            bisect.insort(self.kept, found)
        elif found < self.kept[-1]:
            bisect.insort(self.kept, found)
            self.kept.pop()

    def excludes(self, found: Rank, kind: int) -> bool:
        return len(self.kept) == self.size and (found, kind) > self.kept[-1][:2]

    def floor(self, kind: int) -> Rank | None:
        """The worst rank a candidate of ``kind`` may have and still get in (None: none can). A source whose floor
        is ``PREFIX`` looks only at the names that start with the query: a word's 25k pod names are not read once
        the list is full of better matches."""
        if len(self.kept) < self.size:
            return Rank.WITHIN
        worst_rank, worst_kind = self.kept[-1][:2]
        allowed = worst_rank if kind <= worst_kind else worst_rank - 1
        return Rank(allowed) if allowed >= 0 else None


def _matching_keys(
    cache: Any, plural: str, visible: dict[str, Seen], query: str, floor: Rank = Rank.WITHIN
) -> Iterator[tuple[str, str]]:
    """The (namespace, name) keys of ``plural`` in the visible namespaces whose names hold ``query`` (start with it,
    when ``floor`` allows no worse than a prefix). Object names are lower-case in Kubernetes (RFC 1123: the apiserver
    refuses others) and ``query`` is lowered: no ``lower()`` per key."""
    prefix = floor <= Rank.PREFIX
    if len(visible) <= PER_NAMESPACE:
        for namespace in visible:
            keys = cache.keys(plural, namespace)
            yield from ((ns, n) for ns, n in keys if (n.startswith(query) if prefix else query in n))
    else:  # one scan of the kind's joined names (pincompute/kube/name_index.py), then the project filter
        yield from ((ns, n) for ns, n in cache.matching_keys(plural, query, prefix=prefix) if ns in visible)


def _floor(cut: Best | None, kind: int) -> Rank | None:
    return cut.floor(kind) if cut is not None else Rank.WITHIN


def _ranked(
    cache: Any, plural: str, visible: dict[str, Seen], query: str, cut: Best | None, kind: int
) -> Iterator[tuple[str, str, Rank]]:
    """(namespace, name, rank) of the keys that may still get in: once the list is full of better matches, only
    names that start with the query are ranked (the floor is looked at again after each one the caller offers)."""
    floor = _floor(cut, kind)
    if floor is None:
        return
    for namespace, name in _matching_keys(cache, plural, visible, query, floor):
        if floor <= Rank.PREFIX and not name.startswith(query):
            continue
        found = rank(name, query)
        if found is None or (cut is not None and cut.excludes(found, kind)):
            continue
        yield namespace, name, found
        floor = _floor(cut, kind)
        if floor is None:
            return


def projects(visible: Iterable[Seen], query: str) -> Iterator[Candidate]:
    """By name, display name or team: a team's name finds its projects."""
    for project in visible:
        found = best((project.name, project.display_name, project.team), query)
        if found is not None:

            def make(p: Seen = project, r: Rank = found) -> Hit:
                where = f"project of {p.team}" + (" (archived)" if p.archived_at else "")
                return Hit("project", p.name, where, reverse("projects:detail", args=[p.name]), r, p.name, p.team)

            yield candidate(found, "project", project.name, make)


WORKLOAD, POD, NODE = (KIND_ORDER.index(k) for k in ("workload", "pod", "node"))


def workloads(visible: dict[str, Seen], query: str, cut: Best | None = None) -> Iterator[Candidate]:
    host = runtime.host_cache()
    if host is None:
        return
    for kind, info in KINDS.items():
        for namespace, name, found in _ranked(host, info.plural, visible, query, cut, WORKLOAD):
            project = visible[namespace]

            def make(k: str = kind, ns: str = namespace, n: str = name, p: Seen = project, r: Rank = found) -> Hit:
                obj = host.get(KINDS[k].plural, ns, n) or {}
                team = str((obj.get("spec") or {}).get("team") or p.team)
                url = reverse("workloads:detail", args=[p.name, k, n])
                return Hit("workload", n, f"{k} in {p.name}, team {team}", url, r, p.name, team)

            yield candidate(found, "workload", name, make)


def deleted_workloads(visible: dict[str, Seen], query: str, every_project: bool = False) -> Iterator[Candidate]:
    """Workloads deleted since the history's retention began (their page keeps the spec, history and logs).
    ``every_project`` (a platform admin's search) drops the filter on the visible projects' ids: a thousand ids in
    the query cost more than the search."""
    projects_by_id = {p.pk: p for p in visible.values()}
    rows = WorkloadRecord.objects.filter(deleted_at__isnull=False, name__icontains=query)
    if not every_project:
        rows = rows.filter(project_id__in=projects_by_id)
    for row in rows.order_by("name")[:DB_CANDIDATES]:
        found = rank(row.name, query)
        if found is not None and row.project_id in projects_by_id:
            project = projects_by_id[row.project_id].name
            where = f"deleted {row.kind} in {project}, {row.deleted_at:%Y-%m-%d %H:%M}"
            url = reverse("workloads:deleted-detail", args=[project, row.kind, row.name])
            hit = Hit("workload", row.name, where, url, found, project)
            yield candidate(found, "workload", row.name, lambda h=hit: h)


def pods(visible: dict[str, Seen], query: str, cut: Best | None = None) -> Iterator[Candidate]:
    for cluster, cache in sorted(runtime.member_caches().items()):
        for namespace, name, found in _ranked(cache, "pods", visible, query, cut, POD):

            def make(c: Any = cache, cl: str = cluster, ns: str = namespace, n: str = name, r: Rank = found) -> Hit:
                obj = c.get("pods", ns, n) or {"metadata": {"name": n}}
                project = visible[ns].name
                phase = (obj.get("status") or {}).get("phase") or "Pending"
                owner = (obj["metadata"].get("labels") or {}).get(WORKLOAD_LABEL)
                where = f"pod of {owner} on {cl} in {project}" if owner else f"pod on {cl} in {project}"
                url = reverse("debugging:pod", args=[cl, ns, n])
                return Hit("pod", n, f"{where}, {phase}", url, r, project)

            yield candidate(found, "pod", name, make)


def clusters(query: str) -> Iterator[Candidate]:
    for cluster in Cluster.objects.filter(name__icontains=query).order_by("name")[:DB_CANDIDATES]:
        found = rank(cluster.name, query)
        if found is not None:
            where, url = f"{cluster.role} cluster in {cluster.zone}", reverse("clusters:detail", args=[cluster.name])
            hit = Hit("cluster", cluster.name, where, url, found)
            yield candidate(found, "cluster", cluster.name, lambda h=hit: h)


def nodes(query: str, cut: Best | None = None) -> Iterator[Candidate]:
    for cluster, cache in sorted(runtime.member_caches().items()):
        for _, name in cache.keys("nodes"):
            found = rank(name, query)
            if found is not None and not (cut and cut.excludes(found, NODE)):

                def make(c: str = cluster, n: str = name, r: Rank = found) -> Hit:
                    return Hit("node", n, f"node of {c}", reverse("clusters:detail", args=[c]) + "#nodes", r)

                yield candidate(found, "node", name, make)


def users(query: str) -> Iterator[Candidate]:
    model: Any = get_user_model()
    matching = Q(username__icontains=query) | Q(email__icontains=query)
    matching |= Q(first_name__icontains=query) | Q(last_name__icontains=query)
    for user in model.objects.filter(matching).order_by("username")[:DB_CANDIDATES]:
        found = best((user.username, user.email, user.get_full_name()), query)
        if found is not None:
            url = reverse("admin:auth_user_change", args=[user.pk])
            hit = Hit("user", user.username, f"user {user.email}".strip(), url, found)
            yield candidate(found, "user", user.username, lambda h=hit: h)


def groups(query: str) -> Iterator[Candidate]:
    for group in Group.objects.filter(name__icontains=query).order_by("name")[:DB_CANDIDATES]:
        found = rank(group.name, query)
        if found is not None:
            hit = Hit("group", group.name, "group", reverse("admin:auth_group_change", args=[group.pk]), found)
            yield candidate(found, "group", group.name, lambda h=hit: h)


def audit_entries(query: str) -> Iterator[Candidate]:
    matching = Q(target_name__icontains=query) | Q(action__icontains=query) | Q(actor_name__icontains=query)
    shown = ("pk", "target_name", "target_kind", "action", "actor_name", "created_at", "project_name")
    rows = AuditEvent.objects.filter(matching).only(*shown)  # not the before/after documents
    for event in rows.order_by("-created_at")[:DB_CANDIDATES]:
        found = best((event.target_name, event.action, event.actor_name), query)
        if found is not None:
            name = f"{event.action} {event.target_kind}/{event.target_name}"

            def make(e: AuditEvent = event, n: str = name, r: Rank = found) -> Hit:
                where = f"audit entry by {e.actor_name}, {e.created_at:%Y-%m-%d %H:%M}"
                return Hit("audit", n, where, reverse("audit:detail", args=[e.pk]), r, e.project_name)

            yield candidate(found, "audit", name, make)
