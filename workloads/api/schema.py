"""The OpenAPI description of the workload, operation and insight endpoints: the limits, examples, parameters and
error answers the views' ``extend_schema`` declarations name."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse

from base.api_schema import error_response
from pincompute.specs.checks import WORKLOAD_NAME_MAX
from projects.onboarding import NAME_MAX as PROJECT_NAME_MAX
from workloads.api.serializers import (
    KIND_NAMES,
    STATES,
    TIERS,
    VIEWS,
    WORKLOAD_NAME_PATTERN,
    WORKLOAD_NAME_RULE,
)

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
PROJECT_NAME_PATTERN = r"^[a-z]([-a-z0-9]*[a-z0-9])?$"  # projects.onboarding.name_error's rule
PROJECT_PARAM = OpenApiParameter(
    "project",
    {"type": "string", "pattern": PROJECT_NAME_PATTERN, "maxLength": PROJECT_NAME_MAX},
    OpenApiParameter.PATH,
    description="the project's name",
)
NAME_PARAM = OpenApiParameter(
    "name",
    {"type": "string", "pattern": WORKLOAD_NAME_PATTERN, "maxLength": WORKLOAD_NAME_MAX},
    OpenApiParameter.PATH,
    description=f"the workload's name: {WORKLOAD_NAME_RULE}",
)
ETAG = OpenApiParameter(
    "ETag",
    {"type": "string", "pattern": r'^"[0-9]{1,19}"$'},
    OpenApiParameter.HEADER,
    response=[200, 201, 304],
    description='The workload\'s version, quoted ("3"): send it back as If-Match to change what you read.',
)
DRY_RUN = OpenApiParameter(
    "dryRun",
    bool,
    description="validate and check the grant only; nothing is written (Kubernetes' `All` is also accepted)",
    required=False,
)
SELECTOR_PARAM = OpenApiParameter(
    "labelSelector",
    str,
    description="a label selector as Kubernetes reads it: `key`, `!key`, `key=value`, `key!=value`, "
    "`key in (a,b)`, `key notin (a,b)`, comma-separated, all must hold",
    required=False,
)
LIST_PARAMS = [
    OpenApiParameter("kind", str, description="a kind or its plural", required=False, enum=KIND_NAMES),
    OpenApiParameter("tier", str, enum=TIERS, required=False),
    OpenApiParameter("cluster", str, description="placed on this member cluster", required=False),
    OpenApiParameter("status", str, enum=STATES, required=False),
    SELECTOR_PARAM,
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
CATEGORY_PARAM = OpenApiParameter(
    "category",
    str,
    many=True,
    description="only entries of these kinds (state, admission, placement, revision, scale, operation, event; "
    "comma-separated or repeated)",
)
ERRORS = {
    400: error_response("the input is invalid (the error body names each field)"),
    401: error_response("no session or token"),
    403: error_response("the role may not do this"),
    404: error_response("absent, or another tenant's"),
    409: error_response("stale If-Match (both versions named), or it exists"),
    429: error_response("over the per-user rate (Retry-After)"),
    503: error_response("the host cluster cannot be reached (Retry-After)"),
}


def error_codes(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: ERRORS[code] for code in codes}
