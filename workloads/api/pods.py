"""``GET /api/v1/projects/<project>/pods/``: a project's pods on every member cluster, from the watch caches.

Never a LIST per request: each member's cache keeps its pods in (namespace, name) order, so a page is a bisect
to the cursor and a walk of about ``limit`` pods (``workloads.paging.pod_page``). Scoped like every endpoint:
the caller's project or a 404. Each pod carries where to debug it: the pod discovery endpoint's URL
(``api:pod-debug``, which authorizes again and answers the same websockets) and, per container, the shell and
log websockets the consumers serve (``debugging.routing``; no shell for viewers, as the consumers refuse it).
The layers keep ``workloads`` and ``debugging`` independent of each other, so the discovery endpoint is reached
by its URL name, not imported.
"""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from base.api_schema import error_response
from base.errors import Invalid
from base.throttling import api_throttles
from pincompute.labels import KIND_LABEL, WORKLOAD_LABEL
from projects.access import ADMIN, visible_project_role
from projects.models import Project
from workloads.api.common import LIST_RENDERERS, bounded_int, label_selector
from workloads.api.encoded import Encoded, encode
from workloads.api.schema import MAX_PAGE_SIZE, PAGE_SIZE, SELECTOR_PARAM
from workloads.memo import VersionMemo
from workloads.paging import POD_PHASES, PodKey, pod_page
from workloads.reads import pod_state, ready_count, restarts_of
from workloads.services import WRITE_ROLES

Obj = dict[str, Any]
CURSOR_PATTERN = r"^[^/]+/[^/]+$"
CONTAINER_STATES = ("running", "waiting", "terminated", "unknown")


class PodContainerSerializer(serializers.Serializer):
    name = serializers.CharField()
    image = serializers.CharField(allow_blank=True)
    ready = serializers.BooleanField()
    restarts = serializers.IntegerField()
    state = serializers.ChoiceField(choices=CONTAINER_STATES, help_text="unknown: no status reported yet")
    reason = serializers.CharField(allow_blank=True, help_text="why it waits or ended (CrashLoopBackOff, Completed)")
    startedAt = serializers.CharField(allow_null=True)
    shell = serializers.CharField(allow_null=True, help_text="the terminal's websocket; null for viewers")
    logs = serializers.CharField(help_text="the container's log stream (websocket)")


class PodSerializer(serializers.Serializer):
    name = serializers.CharField()
    cluster = serializers.CharField()
    namespace = serializers.CharField()
    workload = serializers.CharField(allow_null=True, help_text="the workload it runs for (its label)")
    kind = serializers.CharField(allow_null=True, help_text="that workload's kind")
    phase = serializers.ChoiceField(choices=POD_PHASES)
    status = serializers.CharField(help_text="as kubectl's STATUS: Terminating, a waiting reason, else the phase")
    ready = serializers.CharField(help_text='ready containers of all, e.g. "1/2"')
    restarts = serializers.IntegerField()
    node = serializers.CharField(allow_null=True)
    ip = serializers.CharField(allow_null=True)
    started = serializers.CharField(allow_null=True, help_text="when the kubelet started it (RFC 3339)")
    debug = serializers.CharField(help_text="the pod discovery endpoint (its shell and log websockets)")
    containers = PodContainerSerializer(many=True)


class PodPageSerializer(serializers.Serializer):
    next = serializers.CharField(allow_null=True, help_text="the following page; null on the last")
    problems = serializers.ListField(child=serializers.CharField(), help_text="clusters whose cache is not synced")
    results = PodSerializer(many=True)


EXAMPLE_POD = {
    "name": "web-local-1a-7d9f-abcde",
    "cluster": "member-a",
    "namespace": "proj-ads",
    "workload": "web",
    "kind": "PinApp",
    "phase": "Running",
    "status": "Running",
    "ready": "1/1",
    "restarts": 0,
    "node": "kwok-node-3",
    "ip": "10.0.0.12",
    "started": "2026-11-22T00:00:05Z",
    "debug": "https://portal.example.com/api/v1/projects/ads/pods/member-a/web-local-1a-7d9f-abcde/",
    "containers": [
        {
            "name": "app",
            "image": "registry.local/web:1.4",
            "ready": True,
            "restarts": 0,
            "state": "running",
            "reason": "",
            "startedAt": "2026-11-22T00:00:06Z",
            "shell": "wss://portal.example.com/ws/exec/member-a/proj-ads/web-local-1a-7d9f-abcde/app/",
            "logs": "wss://portal.example.com/ws/logs/member-a/proj-ads/web-local-1a-7d9f-abcde/app/",
        }
    ],
}
PAGE_EXAMPLE = OpenApiExample(
    "One page",
    value={
        "next": "https://portal.example.com/api/v1/projects/ads/pods/?cursor=member-a%2Fweb-local-1a-7d9f-abcde&limit=1",
        "problems": [],
        "results": [EXAMPLE_POD],
    },
    response_only=True,
)
PARAMS = [
    OpenApiParameter("project", str, OpenApiParameter.PATH, description="the project's name"),
    OpenApiParameter("cluster", str, description="only this member cluster", required=False),
    OpenApiParameter("workload", str, description="only this workload's pods (by name)", required=False),
    OpenApiParameter("phase", str, enum=list(POD_PHASES), required=False),
    SELECTOR_PARAM,
    OpenApiParameter(
        "cursor",
        {"type": "string", "pattern": CURSOR_PATTERN},
        description="the `next` link's cursor: the last pod's cluster/name; the page starts after it",
        required=False,
    ),
    OpenApiParameter(
        "limit",
        {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
        description=f"page size, 1 to {MAX_PAGE_SIZE} (default {PAGE_SIZE})",
        required=False,
    ),
]


def _container(spec: Obj, status: Obj | None, streams: dict[str, str | None]) -> Obj:
    status = status or {}
    state = status.get("state") or {}
    which = next((s for s in CONTAINER_STATES if s in state), "unknown")
    detail = state.get(which) or {}
    return {
        "name": str(spec.get("name") or ""),
        "image": str(spec.get("image") or ""),
        "ready": bool(status.get("ready")),
        "restarts": int(status.get("restartCount") or 0),
        "state": which,
        "reason": str(detail.get("reason") or ""),
        "startedAt": detail.get("startedAt") or None,
        **streams,
    }


class Links:
    """Where to debug a pod, per request: URL prefixes resolved once, not once per pod (a ``reverse`` per pod
    was a third of a page's time)."""

    def __init__(self, request: Request, project: Project, *, can_exec: bool) -> None:
        # pod and cluster names are DNS labels: the placeholders cannot occur in them
        self.debug = reverse("api:pod-debug", args=(project.name, "__cluster__", "__pod__"), request=request)
        self.websockets = f"{'wss' if request.is_secure() else 'ws'}://{request.get_host()}/ws"
        self.can_exec = can_exec

    def of(self, cluster: str, namespace: str, name: str) -> tuple[str, str]:
        """(the discovery endpoint's URL, the websockets' ``cluster/namespace/pod`` path)."""
        return self.debug.replace("__cluster__", cluster).replace("__pod__", name), f"{cluster}/{namespace}/{name}"


def pod(links: Links, cluster: str, obj: Obj) -> Obj:
    """The slim representation of one cached pod on ``cluster``."""
    meta, spec, status = obj.get("metadata") or {}, obj.get("spec") or {}, obj.get("status") or {}
    labels = meta.get("labels") or {}
    name, namespace = str(meta.get("name") or ""), str(meta.get("namespace") or "")
    statuses = {str(c.get("name")): c for c in status.get("containerStatuses") or []}
    base, can_exec = links.websockets, links.can_exec
    debug, where = links.of(cluster, namespace, name)
    ready, total = ready_count(obj)
    phase = str(status.get("phase") or "Unknown")
    return {
        "name": name,
        "cluster": cluster,
        "namespace": namespace,
        "workload": labels.get(WORKLOAD_LABEL),
        "kind": labels.get(KIND_LABEL),
        "phase": phase if phase in POD_PHASES else "Unknown",
        "status": pod_state(obj),
        "ready": f"{ready}/{total}",
        "restarts": restarts_of(obj),
        "node": spec.get("nodeName") or None,
        "ip": status.get("podIP") or None,
        "started": status.get("startTime") or None,
        "debug": debug,
        "containers": [
            _container(
                c,
                statuses.get(str(c.get("name"))),
                {
                    "shell": f"{base}/exec/{where}/{c.get('name')}/" if can_exec else None,
                    "logs": f"{base}/logs/{where}/{c.get('name')}/",
                },
            )
            for c in spec.get("containers") or []
        ],
    }


# A pod's representation and its JSON, remembered by the pod's version and what the links add (the host the request
# named, the project, whether the caller may exec): a client polling a page pays once per change, not per request.
_ENTRIES: VersionMemo[tuple[Obj, str]] = VersionMemo()


def pod_entry(links: Links, cluster: str, obj: Obj) -> tuple[Obj, str]:
    """(``pod``'s representation, its JSON text) of one cached pod, remembered per version."""

    def build() -> tuple[Obj, str]:
        representation = pod(links, cluster, obj)
        return representation, encode(representation)

    return _ENTRIES.get(obj, (cluster, links.debug, links.websockets, links.can_exec), build)


def query(request: Request) -> tuple[str, str, str, PodKey | None, int]:
    """(cluster, workload, phase, cursor, limit) from the query; a wrong one is a 400 naming it."""
    q = request.query_params
    phase = q.get("phase", "")
    if phase and phase not in POD_PHASES:
        raise Invalid.on("phase", f"must be one of {', '.join(POD_PHASES)}")
    raw = q.get("cursor")
    after: PodKey | None = None
    if raw is not None:
        if not re.match(CURSOR_PATTERN, raw):
            raise Invalid.on("cursor", "must be cluster/name, as the `next` link gives it")
        cluster_after, name_after = raw.split("/")
        after = (cluster_after, name_after)
    limit = bounded_int(request, "limit", PAGE_SIZE, MAX_PAGE_SIZE)
    return q.get("cluster", ""), q.get("workload", ""), phase, after, limit


class ProjectPodsView(APIView):
    throttle_classes = api_throttles()
    renderer_classes = LIST_RENDERERS

    @extend_schema(
        operation_id="project_pods_list",
        parameters=PARAMS,
        responses={
            200: PodPageSerializer,
            400: error_response("a filter, the cursor or the limit is invalid (the error body names it)"),
            401: error_response("no session, or a bad, expired or revoked token"),
            403: error_response("the caller may not use the API"),
            404: error_response("no such project, or another tenant's"),
            429: error_response("over the per-user rate (Retry-After)"),
        },
        examples=[PAGE_EXAMPLE],
        description="The project's pods on every member cluster, sorted by cluster and name, from the members' "
        "watch caches (never a LIST per request). Each pod carries its debugging URLs, as the pod discovery "
        "endpoint gives them. Follow `next` for the following page.",
        tags=["debugging"],
    )
    def get(self, request: Request, project: str) -> Response:
        found, role = visible_project_role(request.user, project)
        cluster, workload, phase, after, limit = query(request)
        selector = label_selector(request)
        page = pod_page(
            found.namespace,
            cluster=cluster,
            workload=workload,
            phase=phase,
            selector=selector,
            after=after,
            limit=limit,
        )
        # who may open a shell: owners, developers and platform admins (debugging.authz.EXEC_ROLES, the same roles)
        links = Links(request, found, can_exec=role == ADMIN or role in WRITE_ROLES)
        entries = [pod_entry(links, name, obj) for name, obj in page.items]
        results = Encoded([rep for rep, _ in entries], [text for _, text in entries])
        next_url = None
        if page.more:
            last = page.items[-1]
            cursor = f"{last[0]}/{last[1]['metadata']['name']}"
            next_url = replace_query_param(request.build_absolute_uri(), "cursor", cursor)
        # built to PodPageSerializer's shape (tests check the round trip): running 100 pods through DRF's
        # serializer again cost as much as building them; each pod's JSON is spliced in (workloads.api.encoded)
        return Response({"next": next_url, "problems": page.problems, "results": results})
