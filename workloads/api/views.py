"""The Compute API's workload, operation and insight endpoints: thin views over the services the pages call.

- Reads come from the watch caches (``workloads.lookup.find_workload``, ``workloads.paging.workload_page``,
  ``workloads.timeline.timeline``), never a LIST per request.
- Writes go through ``workloads.services`` (``submit_workload``, ``operate_workload``, ``delete_workload``:
  authorize, validate, check the grant, write conditionally, audit). Another tenant's project or workload is a
  404, a viewer's write a 403.
- Every workload answer carries ``version`` and an ``ETag``; ``If-Match`` makes PUT, PATCH, DELETE and the
  operations conditional: a stale one is a 409 naming the version sent and the live one.
- Per-user rate limits (``base.throttling``): reads and writes apart, 429 with ``Retry-After``.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.serializers import Serializer
from rest_framework.settings import api_settings
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from base.api import query_int
from base.api_schema import error_response
from base.errors import Invalid, NotFound
from base.throttling import api_throttles
from clusters import runtime
from pincompute.errors import FieldError
from pincompute.kinds import KINDS
from projects.access import visible_project
from projects.models import Project
from workloads import host, paging, services
from workloads.api import representation as rep
from workloads.api.encoded import Encoded, PageJSONRenderer
from workloads.api.parsers import BODY_PARSERS, PATCH_PARSERS
from workloads.api.serializers import (
    KIND_NAMES,
    STATES,
    TIERS,
    VIEWS,
    DocumentSerializer,
    NewDocumentSerializer,
    NoInputSerializer,
    PatchSerializer,
    RestartContainerSerializer,
    ScaleSerializer,
    TimelineSerializer,
    WorkloadPageSerializer,
    WorkloadSerializer,
)
from workloads.documents import editable, merge_patch
from workloads.lookup import Found, find_workload, kind_named, visible_projects
from workloads.reads import Filters, revisions_of
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
EXAMPLE_SUMMARY = {  # a list's row by default (view=summary)
    **{k: v for k, v in EXAMPLE_WORKLOAD.items() if k not in ("labels", "annotations", "spec", "shards")},
    "status": {k: v for k, v in EXAMPLE_WORKLOAD["status"].items() if k != "conditions"},
}
WORKLOAD_EXAMPLE = OpenApiExample("A PinApp on two members", value=EXAMPLE_WORKLOAD, response_only=True)
PAGE_EXAMPLE = OpenApiExample(
    "One page",
    value={
        "next": "https://portal.example.com/api/v1/workloads/?cursor=ads%2FPinApp%2Fweb&limit=1",
        "problems": [],
        "results": [EXAMPLE_SUMMARY],
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

IF_MATCH_PATTERN = r'^(\*|(W/)?"[0-9]{1,19}"|[0-9]{1,19})$'  # a generation is a 64-bit number
IF_MATCH = OpenApiParameter(
    "If-Match",
    {"type": "string", "pattern": IF_MATCH_PATTERN},
    OpenApiParameter.HEADER,
    required=False,
    description='The version the change is based on (the ETag, e.g. "3", W/"3" or 3; * for any): a stale one is a '
    "409 naming both.",
)
IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="The ETag held: 304 with no body when the workload is still at that version.",
)
CREATE_ONLY = OpenApiParameter(
    "If-None-Match",
    {"type": "string", "enum": ["*"]},
    OpenApiParameter.HEADER,
    required=False,
    description="`*`: create only; a workload of that name that exists is a 409 and is not changed.",
)
KIND_PARAM = OpenApiParameter(
    "kind", str, OpenApiParameter.PATH, description="the kind (PinApp) or its plural (pinapps)", enum=KIND_NAMES
)
CURSOR_PATTERN = r"^([^/]*/[^/]*/[^/]*)?$"
PROJECT_PARAM = OpenApiParameter("project", str, OpenApiParameter.PATH, description="the project's name")
NAME_PARAM = OpenApiParameter("name", str, OpenApiParameter.PATH, description="the workload's name")
DRY_RUN = OpenApiParameter(
    "dryRun", bool, description="validate and check the grant only; nothing is written", required=False
)
LIST_PARAMS = [
    OpenApiParameter("kind", str, description="a kind or its plural", required=False, enum=KIND_NAMES),
    OpenApiParameter("tier", str, enum=TIERS, required=False),
    OpenApiParameter("cluster", str, description="placed on this member cluster", required=False),
    OpenApiParameter("status", str, enum=STATES, required=False),
    OpenApiParameter(
        "view",
        str,
        enum=VIEWS,
        required=False,
        description="summary (the default: no spec, labels, annotations, conditions or shard rows) or full "
        "(each workload as GET answers it)",
    ),
    OpenApiParameter(
        "cursor",
        {"type": "string", "pattern": CURSOR_PATTERN},
        description="the `next` link's cursor: the last row's project/kind/name; the page starts after it",
        required=False,
    ),
    OpenApiParameter(
        "limit",
        {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
        description=f"page size, 1 to {MAX_PAGE_SIZE} (default {PAGE_SIZE})",
    ),
]
TIME_PARAMS = [
    OpenApiParameter("since", OpenApiTypes.DATETIME, description="RFC 3339; entries at or after it", required=False),
    OpenApiParameter(
        "until",
        OpenApiTypes.DATETIME,
        description="RFC 3339; entries at or before it (none before since)",
        required=False,
    ),
    OpenApiParameter(
        "limit",
        {"type": "integer", "minimum": 1, "maximum": MAX_TIMELINE_LIMIT},
        description=f"at most this many, 1 to {MAX_TIMELINE_LIMIT} ({TIMELINE_LIMIT})",
    ),
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
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    if not re.fullmatch(IF_MATCH_PATTERN, raw.strip()):
        raise Invalid.on("If-Match", 'must be the workload\'s version (its ETag, e.g. "3"), or *')
    value = raw.strip().removeprefix("W/").strip('"')
    return None if value == "*" else value


def _create_only(request: Request) -> bool:
    raw = request.headers.get("If-None-Match")
    if raw is None:
        return False
    if raw.strip() != "*":
        raise Invalid.on("If-None-Match", "on a PUT only * (create only) is understood")
    return True


def flag(request: Request, name: str) -> bool:
    value = str(request.query_params.get(name, "")).lower()
    if value not in ("", "true", "false", "1", "0"):
        raise Invalid.on(name, "must be true or false")
    return value in ("true", "1")


def bounded_int(request: Request, name: str, default: int, maximum: int) -> int:
    return query_int(request, name, default=default, minimum=1, maximum=maximum) or default


def document_of(request: Request, shape: type[Serializer] = DocumentSerializer) -> dict[str, Any]:
    """The body, checked against the schema's ``shape`` of it (the service validates the kind's spec)."""
    _checked(request, shape)
    return dict(request.data)


def input_of(request: Request, shape: type[Serializer]) -> dict[str, Any]:
    """The body's values as ``shape`` reads them (defaults filled in), once it is checked against it."""
    return dict(_checked(request, shape).validated_data)


def _checked(request: Request, shape: type[Serializer]) -> Serializer:
    data = request.data
    if not isinstance(data, dict):  # no body is {} (DRF's empty data)
        raise Invalid.on("document", "must be one object (a mapping)")
    payload = shape(data=data)
    payload.is_valid(raise_exception=True)
    return payload


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
    return "/".join(key)


def _decode_cursor(raw: str) -> tuple[str, str, str]:
    """A position in the list's order (project, kind, name): any such triple is one, whether listed or not."""
    if not re.match(CURSOR_PATTERN, raw):
        raise Invalid.on("cursor", "must be project/kind/name, as the `next` link gives it")
    project, kind, name = raw.split("/")
    return project, kind, name


def list_filters(request: Request, project: str = "") -> tuple[Filters, str]:
    """The list's filters from the query (each one checked: a wrong value is a 400 naming it) and the cluster."""
    q = request.query_params
    errors: list[FieldError] = []
    kind = q.get("kind", "")
    if "kind" in q:  # present, even empty: one of the enum's values
        try:
            kind = kind_named(kind)
        except NotFound:
            errors.append(FieldError("kind", f"must be one of {', '.join(KINDS)} (or a plural)"))
    tier = q.get("tier", "")
    if "tier" in q and tier not in TIERS:
        errors.append(FieldError("tier", f"must be one of {', '.join(TIERS)}"))
    state = q.get("status", "")
    if "status" in q and state not in STATES:
        errors.append(FieldError("status", f"must be one of {', '.join(STATES)}"))
    if errors:
        raise Invalid("The filters are invalid.", fields=errors)
    filters = Filters(project=project or str(q.get("project", "")), kind=kind, tier=tier, status=state)
    return filters, str(q.get("cluster", ""))


def list_view(request: Request) -> str:
    view = request.query_params.get("view", "summary")
    if view not in VIEWS:
        raise Invalid.on("view", f"must be one of {', '.join(VIEWS)}")
    return view


def workload_page(request: Request, projects: list[Project], project: str = "") -> Response:
    """One page of host workloads of ``projects`` (already scoped to the caller), from the host watch cache's
    sorted index: the cost of the page, not of every workload (``workloads.paging``)."""
    filters, cluster = list_filters(request, project)
    full = list_view(request) == "full"
    limit = bounded_int(request, "limit", PAGE_SIZE, MAX_PAGE_SIZE)
    raw_cursor = request.query_params.get("cursor", "")
    after = _decode_cursor(raw_cursor) if raw_cursor else None
    page = paging.workload_page(projects, filters, cluster=cluster, after=after, limit=limit)
    results = Encoded(
        [rep.workload(obj, row.project, full=full) for row, obj in page.items],
        [rep.workload_json(obj, row.project, full=full) for row, obj in page.items],
    )
    next_url = None
    if page.more:
        last = page.items[-1][0]
        next_url = replace_query_param(
            request.build_absolute_uri(), "cursor", _encode_cursor((last.project, last.kind, last.name))
        )
    # rep.workload builds WorkloadPageSerializer's shape (tests check the round trip); serializing 100 workloads
    # through DRF again took twice as long as building them; encoding 100 summaries again took ~0.2 ms a page
    # (5x reading them from the memo): each one's JSON is remembered with it, spliced into the body
    return Response({"next": next_url, "problems": page.problems, "results": results})


# --- workloads ----------------------------------------------------------------------------------------------


class _ApiView(APIView):
    throttle_classes = api_throttles()
    parser_classes = BODY_PARSERS


# the lists' renderers: DRF's, with the JSON one splicing the page's remembered texts
LIST_RENDERERS = [PageJSONRenderer if r is JSONRenderer else r for r in api_settings.DEFAULT_RENDERER_CLASSES]


class WorkloadListView(_ApiView):
    renderer_classes = LIST_RENDERERS

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
    renderer_classes = LIST_RENDERERS

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
        request=NewDocumentSerializer,
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
        document = document_of(request, NewDocumentSerializer)
        accepted = services.submit_workload(found, document, actor=request.user, dry_run=dry_run, create_only=True)
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
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, IF_NONE_MATCH],
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
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, IF_MATCH, CREATE_ONLY, DRY_RUN],
        request=DocumentSerializer,
        responses={200: WorkloadSerializer, 201: WorkloadSerializer, **_errors(400, 401, 403, 404, 409, 429, 503)},
        examples=[DOCUMENT_EXAMPLE, WORKLOAD_EXAMPLE],
        description="Replace the workload's spec, labels and annotations with the document (created when absent: "
        "201, which makes PUT an idempotent apply). The kind and name may be left out; they must match the URL. "
        "With If-Match the workload must exist (a 409 otherwise: never re-created after a delete); with "
        "If-None-Match: * it must not (create only).",
        tags=["workloads"],
    )
    def put(self, request: Request, project: str, kind: str, name: str) -> Response:
        found = visible_project(request.user, project)
        document = same_object(document_of(request), kind_named(kind), name)
        dry_run = flag(request, "dryRun")
        version = if_match(request)
        # If-Match (any, `*` included) holds only for a workload that exists (RFC 9110): never a re-creation of
        # one deleted meanwhile; If-None-Match: * holds only for one that does not
        must_exist = request.headers.get("If-Match") is not None
        create_only = _create_only(request)
        if must_exist and create_only:
            raise Invalid.on("If-None-Match", "cannot hold together with If-Match: send one of them")
        accepted = services.submit_workload(
            found,
            document,
            actor=request.user,
            version=version,
            dry_run=dry_run,
            must_exist=must_exist,
            create_only=create_only,
        )
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
        patch = document_of(request, PatchSerializer)
        try:
            live = host.get(found.kind, found.project.namespace, found.name)  # the write's base: the live object
        except NotFound:
            raise NotFound(f"No {found.kind} named {found.name} in project {found.project.name}.") from None
        # Conditional on If-Match when sent (a stale one is the service's 409 naming both versions), else on the
        # version the patch was applied to: a change in between is a 409, never a lost update.
        version = if_match(request) or Found(found.project, found.kind, found.name, live, found.role).version
        document = same_object(merge_patch(editable(live), patch), found.kind, found.name)
        accepted = services.submit_workload(
            found.project, document, actor=request.user, version=version or None, dry_run=flag(request, "dryRun")
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
        services.delete_workload(found.project, found.kind, found.name, actor=request.user, version=if_match(request))
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
# Each operation's body; the others take none (no body, or {}: NoInputSerializer), so a field is a 400 naming it.
_BODIES: dict[str, type[Serializer]] = {"scale": ScaleSerializer, "restart-container": RestartContainerSerializer}
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
        body = input_of(request, _BODIES.get(self.operation, NoInputSerializer))
        outcome = services.operate_workload(
            found.project, found.kind, found.name, self.operation, actor=request.user, version=if_match(request), **body
        )
        return answer(outcome.obj, found.project)


def operation_view(operation: str) -> Any:
    """The view of one operation, with its own schema entry (body, examples, description)."""
    schema = extend_schema(
        operation_id=f"workloads_{operation.replace('-', '_')}",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, IF_MATCH],
        request=_BODIES.get(operation, NoInputSerializer),
        responses={200: WorkloadSerializer, **_errors(400, 401, 403, 404, 409, 429, 503)},
        examples=[*_BODY_EXAMPLES.get(operation, []), WORKLOAD_EXAMPLE],
        description=_DESCRIPTIONS[operation] + " Viewers are refused (403).",
        tags=["operations"],
    )

    def post(self: OperationView, request: Request, project: str, kind: str, name: str) -> Response:
        return self.run(request, project, kind, name)

    title = "".join(part.capitalize() for part in operation.split("-")) + "OperationView"
    return type(title, (OperationView,), {"operation": operation, "post": schema(post)})


OPERATION_VIEWS = {operation: operation_view(operation) for operation in services.OPERATIONS}


# --- insights ---------------------------------------------------------------------------------------------


def time_window(request: Request) -> tuple[Any, Any, int]:
    q = request.query_params
    # RFC 3339 allows a lower-case "t" and "z"; Python's parser reads only upper-case ones.
    since = rep.parse_moment(q["since"].upper(), "since") if "since" in q else None
    until = rep.parse_moment(q["until"].upper(), "until") if "until" in q else None
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
