"""``/api/v1/projects/<p>/workloads/deleted/`` and ``.../deleted/<kind>/<name>/``: the project's deleted workloads
and one of them (its spec at deletion and its recorded history). Reads only; viewers read too."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from workloads.api.common import ApiView, bounded_int
from workloads.api.insights import time_window
from workloads.api.representation import entry
from workloads.api.schema import (
    CATEGORY_PARAM,
    KIND_PARAM,
    MAX_TIMELINE_LIMIT,
    NAME_PARAM,
    PROJECT_PARAM,
    TIME_PARAMS,
    error_codes,
)
from workloads.api.serializers import EntrySerializer
from workloads.history import services
from workloads.history.models import WorkloadRecord


class DeletedRowSerializer(serializers.Serializer):
    kind = serializers.CharField()
    name = serializers.CharField()
    uid = serializers.CharField()
    createdAt = serializers.DateTimeField(allow_null=True)
    deletedAt = serializers.DateTimeField()


class DeletedListSerializer(serializers.Serializer):
    results = DeletedRowSerializer(many=True)


class DeletedWorkloadSerializer(DeletedRowSerializer):
    manifest = serializers.JSONField(help_text="the workload's spec when it was deleted")
    history = EntrySerializer(many=True)
    truncated = serializers.BooleanField(help_text="more entries match than the limit")


def row(record: WorkloadRecord) -> dict[str, Any]:
    return {
        "kind": record.kind,
        "name": record.name,
        "uid": record.uid,
        "createdAt": record.created_at,
        "deletedAt": record.deleted_at,
    }


class DeletedWorkloadsView(ApiView):
    @extend_schema(
        operation_id="workloads_deleted_list",
        parameters=[PROJECT_PARAM],
        responses={200: DeletedListSerializer, **error_codes(401, 404, 429)},
        description="The project's deleted workloads whose history is kept (newest deletion first).",
        tags=["history"],
    )
    def get(self, request: Request, project: str) -> Response:
        _, records = services.deleted_workloads(request.user, project)
        return Response(DeletedListSerializer({"results": [row(r) for r in records]}).data)


class DeletedWorkloadView(ApiView):
    @extend_schema(
        operation_id="workloads_deleted_read",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, *TIME_PARAMS, CATEGORY_PARAM],
        responses={200: DeletedWorkloadSerializer, **error_codes(400, 401, 404, 429)},
        description="A deleted workload: its spec at deletion and its recorded history, newest first.",
        tags=["history"],
    )
    def get(self, request: Request, project: str, kind: str, name: str) -> Response:
        record = services.deleted_workload(request.user, project, kind, name)  # tenancy before the query
        since, until, _ = time_window(request)
        limit = bounded_int(request, "limit", MAX_TIMELINE_LIMIT, MAX_TIMELINE_LIMIT)
        window = services.Window(since, until, services.categories_from(request.query_params.getlist("category")))
        entries = services.entries_of(record, window)
        body = {
            **row(record),
            "manifest": record.manifest,
            "history": [entry(e) for e in entries[:limit]],
            "truncated": len(entries) > limit,
        }
        return Response(DeletedWorkloadSerializer(body).data)
