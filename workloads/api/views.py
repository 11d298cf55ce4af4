"""The Compute API's workload, operation and insight endpoints: thin views over the services the pages call.

- Reads come from the watch caches (``workloads.services.find_workload``, ``workloads.reads.list_workloads``,
  ``workloads.timeline.timeline``), never a LIST per request.
- Writes go through ``workloads.submission.submit`` and ``workloads.operations`` (authorize, validate, check the
  grant, write conditionally, audit). Another tenant's project or workload is a 404, a viewer's write a 403.
- Every workload answer carries ``version`` and an ``ETag``; ``If-Match`` makes PUT, PATCH, DELETE and the
  operations conditional: a stale one is a 409 naming the version sent and the live one.
- Per-user rate limits (``base.throttling``): reads and writes apart, 429 with ``Retry-After``.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from base.api_schema import error_response
from base.errors import Invalid, NotFound
from base.throttling import api_throttles
from clusters import runtime
from projects.access import visible_project
from projects.models import Project
from workloads import host, operations, submission
from workloads.api import representation as rep
from workloads.api.parsers import BODY_PARSERS, PATCH_PARSERS
from workloads.api.serializers import (
    STATES,
    TIERS,
    DocumentSerializer,
    PatchSerializer,
    RestartContainerSerializer,
    ScaleSerializer,
    TimelineSerializer,
    WorkloadPageSerializer,
    WorkloadSerializer,
)
from workloads.core.errors import FieldError
from workloads.core.kinds import KINDS
from workloads.documents import editable, merge_patch
from workloads.reads import Filters, list_workloads, revisions_of
from workloads.services import Found, find_workload, kind_named, visible_projects
from workloads.timeline import timeline

PAGE_SIZE = 100
MAX_PAGE_SIZE = 500
TIMELINE_LIMIT = 200
MAX_TIMELINE_LIMIT = 1000

# --- examples (the OpenAPI description's) ---------------------------------------------------------------

EXAMPLE_DOCUMENT = {
    "apiVersion": "pincompute.io/v1",
    "kind": "PinApp",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {
        "tier": "OnDemand",
        "replicas": 2,
        "zones": ["local-1a", "local-1b"],
        "template": {
            "containers": [
                {
                    "name": "app",
                    "image": "registry.local/web:1.4",
                    "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}},
                }
            ]
        },
    },
}
EXAMPLE_WORKLOAD = {
    "apiVersion": "pincompute.io/v1",
    "kind": "PinApp",
    "name": "web",
    "project": "ads",
    "tier": "OnDemand",
    "labels": {"app": "web"},
    "annotations": {},
    "spec": {**EXAMPLE_DOCUMENT["spec"], "project": "ads", "team": "ads", "costCenter": "CC-1042"},
    "version": "3",
    "admission": {"admitted": True, "reason": "Admitted", "message": "fits the OnDemand grant"},
    "status": {
        "state": "running",
        "reason": "",
        "phase": "Running",
        "ready": 2,
        "desired": 2,
        "clusters": ["member-a", "member-b"],
        "conditions": [
            {
                "type": "Ready",
                "status": "True",
                "reason": "AllShards",
                "message": "",
                "lastTransitionTime": "2026-11-22T00:01:00Z",
            }
        ],
    },
    "shards": [
        {
            "cluster": "member-a",
            "zone": "local-1a",
            "replicas": 1,
            "ready": 1,
            "state": "Ready",
            "message": "",
            "lastSeen": "2026-11-22T00:02:00Z",
            "unreachableSince": None,
        },
        {
            "cluster": "member-b",
            "zone": "local-1b",
            "replicas": 1,
            "ready": 1,
            "state": "Ready",
            "message": "",
            "lastSeen": "2026-11-22T00:02:00Z",
            "unreachableSince": None,
        },
    ],
    "createdAt": "2026-11-22T00:00:00Z",
    "deleting": False,
}
WORKLOAD_EXAMPLE = OpenApiExample("A PinApp on two members", value=EXAMPLE_WORKLOAD, response_only=True)
PAGE_EXAMPLE = OpenApiExample(
    "One page",
    value={
        "next": "https://portal.example.com/api/v1/workloads/?cursor=WyJhZHMiLCJQaW5BcHAiLCJ3ZWIiXQ&limit=1",
        "problems": [],
        "results": [EXAMPLE_WORKLOAD],
    },
    response_only=True,
)
DOCUMENT_EXAMPLE = OpenApiExample("A PinApp (JSON or YAML)", value=EXAMPLE_DOCUMENT, request_only=True)
PATCH_EXAMPLE = OpenApiExample(
    "Change the image and drop a label",
    value={
        "metadata": {"labels": {"app": None}},
        "spec": {"template": {"containers": [{"name": "app", "image": "registry.local/web:1.5"}]}},
    },
    request_only=True,
)
TIMELINE_EXAMPLE = OpenApiExample(
    "State changes and events, newest first",
    value={
        "results": [
            {
                "at": "2026-11-22T00:04:00Z",
                "source": "member-a",
                "category": "event",
                "level": "warning",
                "title": "BackOff",
                "message": "Back-off restarting failed container app",
                "subject": "Pod web-local-1a-7d9f-abcde",
                "count": 3,
            },
            {
                "at": "2026-11-22T00:01:00Z",
                "source": "host",
                "category": "state",
                "level": "normal",
                "title": "Ready → True (AllShards)",
                "message": "",
                "subject": "",
                "count": 1,
            },
        ],
        "truncated": False,
    },
    response_only=True,
)

IF_MATCH = OpenApiParameter(
    "If-Match",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description='The version the change is based on (the ETag, e.g. "3"): a stale one is a 409 naming both.',
)
KIND_PARAM = OpenApiParameter(
    "kind",
    str,
    OpenApiParameter.PATH,
    description="the kind (PinApp) or its plural (pinapps)",
    enum=[*KINDS, *(info.plural for info in KINDS.values())],
)
PROJECT_PARAM = OpenApiParameter("project", str, OpenApiParameter.PATH, description="the project's name")
NAME_PARAM = OpenApiParameter("name", str, OpenApiParameter.PATH, description="the workload's name")
DRY_RUN = OpenApiParameter(
    "dryRun", bool, description="validate and check the grant only; nothing is written", required=False
)
LIST_PARAMS = [
    OpenApiParameter("kind", str, description="a kind or its plural", required=False),
    OpenApiParameter("tier", str, enum=TIERS, required=False),
    OpenApiParameter("cluster", str, description="placed on this member cluster", required=False),
    OpenApiParameter("status", str, enum=STATES, required=False),
    OpenApiParameter("cursor", str, description="the `next` link's cursor", required=False),
    OpenApiParameter("limit", int, description=f"page size, 1 to {MAX_PAGE_SIZE} (default {PAGE_SIZE})"),
]
TIME_PARAMS = [
    OpenApiParameter("since", OpenApiTypes.DATETIME, description="ISO-8601; entries at or after it", required=False),
    OpenApiParameter("until", OpenApiTypes.DATETIME, description="ISO-8601; entries at or before it", required=False),
    OpenApiParameter("limit", int, description=f"at most this many, 1 to {MAX_TIMELINE_LIMIT} ({TIMELINE_LIMIT})"),
]
ERRORS = {
    400: error_response("the input is invalid (the error body names each field)"),
    401: error_response("no session or token"),
    403: error_response("the role may not do this"),
    404: error_response("absent, or another tenant's"),
    409: error_response("stale If-Match (both versions named), or it exists"),
    429: error_response("over the per-user rate (Retry-After)"),
    503: error_response("the host cluster cannot be reached (Retry-After)"),
}


def _errors(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: ERRORS[code] for code in codes}


# --- helpers ----------------------------------------------------------------------------------------------


def if_match(request: Request) -> str | None:
    """The version ``If-Match`` names (``"48213"``, ``W/"48213"`` or ``48213``); None when absent or ``*``."""
    raw = request.headers.get("If-Match", "").strip()
    if not raw or raw == "*":
        return None
    value = raw.split(",")[0].strip().removeprefix("W/").strip().strip('"')
    if not value:
        raise Invalid.on("If-Match", "must be the workload's version (its ETag)")
    return value


def flag(request: Request, name: str) -> bool:
    value = str(request.query_params.get(name, "")).lower()
    if value not in ("", "true", "false", "1", "0"):
        raise Invalid.on(name, "must be true or false")
    return value in ("true", "1")


def bounded_int(request: Request, name: str, default: int, maximum: int) -> int:
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if not 1 <= value <= maximum:
        raise Invalid.on(name, f"must be a whole number from 1 to {maximum}")
    return value


def document_of(request: Request) -> dict[str, Any]:
    data = request.data
    if not isinstance(data, dict):
        raise Invalid.on("document", "must be one object (a mapping)")
    return dict(data)


def answer(obj: dict[str, Any], project: Project, *, code: int = status.HTTP_200_OK, **headers: str) -> Response:
    body = WorkloadSerializer(rep.workload(obj, project.name)).data
    response = Response(body, status=code, headers=headers)
    if body["version"]:
        response["ETag"] = rep.etag(body["version"])
    return response


def same_object(document: dict[str, Any], kind: str, name: str) -> dict[str, Any]:
    """``document`` for the workload the URL names: its kind and name filled in when missing, refused when
    they name another."""
    document = copy.deepcopy(document)
    meta = document.get("metadata")
    if meta is None:
        meta = document["metadata"] = {}
    if not isinstance(meta, dict):
        raise Invalid.on("metadata", "must be an object")
    if document.setdefault("kind", kind) != kind:
        raise Invalid.on("kind", f"must be {kind}, the kind the URL names")
    if meta.setdefault("name", name) != name:
        raise Invalid.on("metadata.name", f"must be {name}, the name the URL names")
    return document


def _encode_cursor(key: tuple[str, str, str]) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(key), separators=(",", ":")).encode()).decode().rstrip("=")


def _decode_cursor(raw: str) -> tuple[str, str, str]:
    try:
        key = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
    except (binascii.Error, ValueError):
        key = None
    if not (isinstance(key, list) and len(key) == 3 and all(isinstance(k, str) for k in key)):
        raise Invalid.on("cursor", "is not a cursor this API gave out")
    return key[0], key[1], key[2]


def list_filters(request: Request, project: str = "") -> tuple[Filters, str]:
    """The list's filters from the query (each one checked: a wrong value is a 400 naming it) and the cluster."""
    q = request.query_params
    errors: list[FieldError] = []
    kind = q.get("kind", "")
    if kind:
        try:
            kind = kind_named(kind)
        except NotFound:
            errors.append(FieldError("kind", f"must be one of {', '.join(KINDS)} (or a plural)"))
    tier = q.get("tier", "")
    if tier and tier not in TIERS:
        errors.append(FieldError("tier", f"must be one of {', '.join(TIERS)}"))
    state = q.get("status", "")
    if state and state not in STATES:
        errors.append(FieldError("status", f"must be one of {', '.join(STATES)}"))
    if errors:
        raise Invalid("The filters are invalid.", fields=errors)
    filters = Filters(project=project or str(q.get("project", "")), kind=kind, tier=tier, status=state)
    return filters, str(q.get("cluster", ""))


def workload_page(request: Request, projects: list[Project], project: str = "") -> Response:
    """One page of host workloads of ``projects`` (already scoped to the caller), from the host watch cache."""
    filters, cluster = list_filters(request, project)
    limit = bounded_int(request, "limit", PAGE_SIZE, MAX_PAGE_SIZE)
    raw_cursor = request.query_params.get("cursor", "")
    after = _decode_cursor(raw_cursor) if raw_cursor else None
    listing = list_workloads(projects, filters)
    rows = [r for r in listing.rows if not cluster or cluster in r.clusters]
    if after is not None:
        rows = [r for r in rows if (r.project, r.kind, r.name) > after]
    page, more = rows[:limit], len(rows) > limit
    cache = runtime.host_cache()
    results = []
    for row in page:
        obj = cache.get(KINDS[row.kind].plural, row.namespace, row.name) if cache is not None else None
        if obj is not None:  # gone between the list and this read: the next request will not list it
            results.append(rep.workload(obj, row.project))
    next_url = None
    if more:
        last = page[-1]
        next_url = replace_query_param(
            request.build_absolute_uri(), "cursor", _encode_cursor((last.project, last.kind, last.name))
        )
    body = {"next": next_url, "problems": listing.problems, "results": results}
    return Response(WorkloadPageSerializer(body).data)


# --- workloads ----------------------------------------------------------------------------------------------


class _ApiView(APIView):
    throttle_classes = api_throttles()
    parser_classes = BODY_PARSERS


class WorkloadListView(_ApiView):
    @extend_schema(
        operation_id="workloads_list",
        parameters=[OpenApiParameter("project", str, description="only this project", required=False), *LIST_PARAMS],
        responses={200: WorkloadPageSerializer, **_errors(400, 401, 429)},
        examples=[PAGE_EXAMPLE],
        description="Workloads of every project the caller can see, sorted by project, kind and name, from the "
        "host's watch cache. Follow `next` for the following page.",
        tags=["workloads"],
    )
    def get(self, request: Request) -> Response:
        return workload_page(request, visible_projects(request.user))


class ProjectWorkloadsView(_ApiView):
    @extend_schema(
        operation_id="project_workloads_list",
        parameters=[PROJECT_PARAM, *LIST_PARAMS],
        responses={200: WorkloadPageSerializer, **_errors(400, 401, 404, 429)},
        examples=[PAGE_EXAMPLE],
        description="The project's workloads, from the host's watch cache.",
        tags=["workloads"],
    )
    def get(self, request: Request, project: str) -> Response:
        found = visible_project(request.user, project)
        return workload_page(request, [found], found.name)

    @extend_schema(
        operation_id="project_workloads_create",
        parameters=[PROJECT_PARAM, DRY_RUN],
        request=DocumentSerializer,
        responses={201: WorkloadSerializer, 200: WorkloadSerializer, **_errors(400, 401, 403, 404, 409, 429, 503)},
        examples=[DOCUMENT_EXAMPLE, WORKLOAD_EXAMPLE],
        description="Submit a new workload (JSON, or YAML with `Content-Type: application/yaml`): validated, "
        "checked against the project's pod security level and grant, then written to the host for the federation "
        "to admit and place. A name that exists is a 409 (update it with PUT). `dryRun=true` answers 200 with what "
        "would be written.",
        tags=["workloads"],
    )
    def post(self, request: Request, project: str) -> Response:
        found = visible_project(request.user, project)
        dry_run = flag(request, "dryRun")
        accepted = submission.submit(request.user, found, document_of(request), dry_run=dry_run, create_only=True)
        if dry_run:
            return answer(accepted.manifest, found)
        args = (found.name, accepted.workload.kind, accepted.workload.meta.name)
        location = reverse("api:workload-detail", args=args, request=request)
        return answer(accepted.manifest, found, code=status.HTTP_201_CREATED, Location=location)


class WorkloadDetailView(_ApiView):
    def get_parsers(self) -> list[Any]:
        if self.request is not None and self.request.method == "PATCH":
            return [parser() for parser in PATCH_PARSERS]
        return super().get_parsers()

    @extend_schema(
        operation_id="workloads_retrieve",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM],
        responses={200: WorkloadSerializer, 304: None, **_errors(401, 404, 429, 503)},
        examples=[WORKLOAD_EXAMPLE],
        description="One workload (its `ETag` is its version; `If-None-Match` with it answers 304 when unchanged).",
        tags=["workloads"],
    )
    def get(self, request: Request, project: str, kind: str, name: str) -> Response:
        found = find_workload(request.user, project, kind, name)
        tag = rep.etag(found.version)
        if found.version and request.headers.get("If-None-Match", "").strip() == tag:
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": tag})
        return answer(found.obj, found.project)

    @extend_schema(
        operation_id="workloads_update",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, IF_MATCH, DRY_RUN],
        request=DocumentSerializer,
        responses={200: WorkloadSerializer, 201: WorkloadSerializer, **_errors(400, 401, 403, 404, 409, 429, 503)},
        examples=[DOCUMENT_EXAMPLE, WORKLOAD_EXAMPLE],
        description="Replace the workload's spec, labels and annotations with the document (created when absent: "
        "201, which makes PUT an idempotent apply). The kind and name may be left out; they must match the URL.",
        tags=["workloads"],
    )
    def put(self, request: Request, project: str, kind: str, name: str) -> Response:
        found = visible_project(request.user, project)
        document = same_object(document_of(request), kind_named(kind), name)
        dry_run = flag(request, "dryRun")
        accepted = submission.submit(request.user, found, document, version=if_match(request), dry_run=dry_run)
        created = accepted.created and not dry_run
        return answer(accepted.manifest, found, code=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(
        operation_id="workloads_partial_update",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, IF_MATCH, DRY_RUN],
        request=PatchSerializer,
        responses={200: WorkloadSerializer, **_errors(400, 401, 403, 404, 409, 429, 503)},
        examples=[PATCH_EXAMPLE, WORKLOAD_EXAMPLE],
        description="A JSON merge patch (RFC 7386) of the workload's document (`null` removes a key; lists are "
        "replaced whole), applied to the live version: a change made meanwhile is a 409, never a lost update.",
        tags=["workloads"],
    )
    def patch(self, request: Request, project: str, kind: str, name: str) -> Response:
        found = find_workload(request.user, project, kind, name)
        patch = document_of(request)
        try:
            live = host.get(found.kind, found.project.namespace, found.name)  # the write's base: the live object
        except NotFound:
            raise NotFound(f"No {found.kind} named {found.name} in project {found.project.name}.") from None
        # Conditional on If-Match when sent (a stale one is the service's 409 naming both versions), else on the
        # version the patch was applied to: a change in between is a 409, never a lost update.
        version = if_match(request) or Found(found.project, found.kind, found.name, live, found.role).version
        document = same_object(merge_patch(editable(live), patch), found.kind, found.name)
        accepted = submission.submit(
            request.user, found.project, document, version=version or None, dry_run=flag(request, "dryRun")
        )
        return answer(accepted.manifest, found.project)

    @extend_schema(
        operation_id="workloads_destroy",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, IF_MATCH],
        request=None,
        responses={204: None, **_errors(401, 403, 404, 409, 429, 503)},
        description="Delete the workload: the federation removes its shards from every member, then the object.",
        tags=["workloads"],
    )
    def delete(self, request: Request, project: str, kind: str, name: str) -> Response:
        found = find_workload(request.user, project, kind, name)
        operations.delete(request.user, found.project, found.kind, found.name, version=if_match(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- operations -------------------------------------------------------------------------------------------

_DESCRIPTIONS = {
    "pause": "Scale every shard to zero pods; the spec and placement are kept.",
    "resume": "Undo a pause.",
    "stop": "Remove the workload's pods on every cluster (a PinPod or job stops running).",
    "start": "Undo a stop.",
    "restart": "Restart every pod of the workload, on every cluster (a rolling restart where the kind rolls).",
    "restart-container": "Restart one container, in every pod or in the one `pod` names.",
    "scale": "Set the number of replicas (scalable kinds: the quota check applies to a scale-up).",
}
_BODIES: dict[str, Any] = {"scale": ScaleSerializer, "restart-container": RestartContainerSerializer}
_BODY_EXAMPLES = {
    "scale": [OpenApiExample("Three replicas", value={"replicas": 3}, request_only=True)],
    "restart-container": [
        OpenApiExample(
            "One container of one pod", value={"container": "app", "pod": "web-7d9f-abcde"}, request_only=True
        )
    ],
}


class OperationView(_ApiView):
    operation = ""

    def run(self, request: Request, project: str, kind: str, name: str) -> Response:
        found = find_workload(request.user, project, kind, name)
        body: dict[str, Any] = {}
        shape = _BODIES.get(self.operation)
        if shape is not None:
            payload = shape(data=request.data if isinstance(request.data, dict) else {})
            payload.is_valid(raise_exception=True)
            body = dict(payload.validated_data)
        written = operations.operate(
            request.user, found.project, found.kind, found.name, self.operation, version=if_match(request), **body
        )
        return answer(written, found.project)


def operation_view(operation: str) -> Any:
    """The view of one operation, with its own schema entry (body, examples, description)."""
    schema = extend_schema(
        operation_id=f"workloads_{operation.replace('-', '_')}",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, IF_MATCH],
        request=_BODIES.get(operation),
        responses={200: WorkloadSerializer, **_errors(400, 401, 403, 404, 409, 429, 503)},
        examples=[*_BODY_EXAMPLES.get(operation, []), WORKLOAD_EXAMPLE],
        description=_DESCRIPTIONS[operation] + " Viewers are refused (403).",
        tags=["operations"],
    )

    def post(self: OperationView, request: Request, project: str, kind: str, name: str) -> Response:
        return self.run(request, project, kind, name)

    title = "".join(part.capitalize() for part in operation.split("-")) + "OperationView"
    return type(title, (OperationView,), {"operation": operation, "post": schema(post)})


OPERATION_VIEWS = {operation: operation_view(operation) for operation in operations.OPERATIONS}


# --- insights ---------------------------------------------------------------------------------------------


def time_window(request: Request) -> tuple[Any, Any, int]:
    q = request.query_params
    since = rep.parse_moment(q["since"], "since") if q.get("since") else None
    until = rep.parse_moment(q["until"], "until") if q.get("until") else None
    if since is not None and until is not None and since > until:
        raise Invalid.on("until", "must not be before since")
    return since, until, bounded_int(request, "limit", TIMELINE_LIMIT, MAX_TIMELINE_LIMIT)


def in_window(at: str, since: Any, until: Any) -> bool:
    if since is None and until is None:
        return True
    moment = rep.parse_moment_or_none(at)
    return moment is not None and (since is None or moment >= since) and (until is None or moment <= until)


def timeline_answer(entries: list[tuple[Any, tuple[str, str] | None]], limit: int) -> Response:
    body = {"results": [rep.entry(e, w) for e, w in entries[:limit]], "truncated": len(entries) > limit}
    return Response(TimelineSerializer(body).data)


class WorkloadTimelineView(_ApiView):
    @extend_schema(
        operation_id="workloads_timeline",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, *TIME_PARAMS],
        responses={200: TimelineSerializer, **_errors(400, 401, 404, 429, 503)},
        examples=[TIMELINE_EXAMPLE],
        description="The workload's state changes (conditions of the host object and of each shard, revisions) and "
        "the Kubernetes events of everything it is on the host and every member, newest first.",
        tags=["insights"],
    )
    def get(self, request: Request, project: str, kind: str, name: str) -> Response:
        since, until, limit = time_window(request)
        found = find_workload(request.user, project, kind, name)
        entries = timeline(found.obj, revisions_of(found.obj), limit=10**9)
        return timeline_answer([(e, None) for e in entries if in_window(e.at, since, until)], limit)


class ProjectTimelineView(_ApiView):
    @extend_schema(
        operation_id="project_timeline",
        parameters=[PROJECT_PARAM, *TIME_PARAMS],
        responses={200: TimelineSerializer, **_errors(400, 401, 404, 429)},
        examples=[TIMELINE_EXAMPLE],
        description="Every workload's timeline in the project merged, newest first; each entry names its workload.",
        tags=["insights"],
    )
    def get(self, request: Request, project: str) -> Response:
        since, until, limit = time_window(request)
        found = visible_project(request.user, project)
        cache = runtime.host_cache()
        merged: list[tuple[Any, tuple[str, str] | None]] = []
        for info in KINDS.values():
            for obj in cache.list(info.plural, namespace=found.namespace) if cache is not None else []:
                ref = (info.kind, str((obj.get("metadata") or {}).get("name") or ""))
                entries = timeline(obj, revisions_of(obj), limit=10**9)
                merged += [(e, ref) for e in entries if in_window(e.at, since, until)]
        merged.sort(key=lambda item: (item[0].sort_key, item[0].category != "state"), reverse=True)
        return timeline_answer(merged, limit)
