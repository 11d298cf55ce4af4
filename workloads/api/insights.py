"""The insight endpoints: a workload's timeline and its project's, merged, from the host watch cache."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from clusters import runtime
from pincompute.kinds import KINDS
from projects.access import visible_project
from workloads.api import representation as rep
from workloads.api.common import ApiView, bounded_int
from workloads.api.schema import (
    CATEGORY_PARAM,
    KIND_PARAM,
    MAX_TIMELINE_LIMIT,
    NAME_PARAM,
    PROJECT_PARAM,
    TIME_PARAMS,
    TIMELINE_EXAMPLE,
    TIMELINE_LIMIT,
    error_codes,
)
from workloads.api.serializers import (
    TimelineSerializer,
)
from workloads.history.services import categories_from
from workloads.lookup import find_workload
from workloads.reads import revisions_of
from workloads.timeline import timeline

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


class WorkloadTimelineView(ApiView):
    @extend_schema(
        operation_id="workloads_timeline",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, *TIME_PARAMS, CATEGORY_PARAM],
        responses={200: TimelineSerializer, **error_codes(400, 401, 404, 429, 503)},
        examples=[TIMELINE_EXAMPLE],
        description="The workload's state changes (conditions of the host object and of each shard, revisions) and "
        "the Kubernetes events of everything it is on the host and every member, newest first, with what the history "
        "recorder kept (admission, placement, scale, operations, expired events).",
        tags=["insights"],
    )
    def get(self, request: Request, project: str, kind: str, name: str) -> Response:
        since, until, limit = time_window(request)
        found = find_workload(request.user, project, kind, name)
        kinds = categories_from(request.query_params.getlist("category"))
        entries = timeline(found.obj, revisions_of(found.obj), limit=10**9)
        chosen = [e for e in entries if in_window(e.at, since, until) and (not kinds or e.category in kinds)]
        return timeline_answer([(e, None) for e in chosen], limit)


class ProjectTimelineView(ApiView):
    @extend_schema(
        operation_id="project_timeline",
        parameters=[PROJECT_PARAM, *TIME_PARAMS],
        responses={200: TimelineSerializer, **error_codes(400, 401, 404, 429)},
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
