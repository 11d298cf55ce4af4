"""``/api/v1/projects/{project}/use/`` and ``/api/v1/use/``: what containers use against their requests and limits,
and the waste; thin views over ``usage.use``."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from base.api_schema import error_response
from base.throttling import api_throttles
from usage import use
from usage.api.use_serializers import UseReportSerializer

PARAMETERS = [
    OpenApiParameter("level", str, enum=list(use.LEVELS), description="rows by container, pod, workload (default) or "
                     "project"),
    OpenApiParameter("sort", str, enum=list(use.SORTS), description="largest first; default waste_cost"),
    OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": use.MAX_LIMIT},
                     description=f"at most this many rows (default {use.DEFAULT_LIMIT})"),
]  # fmt: skip
NARROWING = [
    OpenApiParameter("workload", {"type": "string", "maxLength": 300}, description="only this workload (Kind/name)"),
    OpenApiParameter("pod", {"type": "string", "maxLength": 300}, description="only this pod"),
]
RESPONSES = {200: UseReportSerializer, 503: error_response("Prometheus is not configured or does not answer")}


def body(report: use.UseReport) -> dict[str, Any]:
    return {
        "level": report.query.level, "sort": report.query.sort, "scrape_seconds": report.scrape_seconds,
        "currency": settings.USAGE_CURRENCY, "total": report.total.as_dict(),
        "rows": [r.as_dict() for r in report.rows],
    }  # fmt: skip


class ProjectUseView(APIView):
    """One project's containers: members of the project and platform admins (another tenant's: 404)."""

    throttle_classes = api_throttles()

    @extend_schema(operation_id="project_use", parameters=[*PARAMETERS, *NARROWING], responses=RESPONSES)
    def get(self, request: Request, project: str) -> Response:
        _, report = use.project_use(request.user, project, request.query_params)
        return Response(body(report))


class UseView(APIView):
    """Every project the caller sees (platform admins: all), most over-requested first."""

    throttle_classes = api_throttles()

    @extend_schema(operation_id="use_report", parameters=[*PARAMETERS, *NARROWING], responses=RESPONSES)
    def get(self, request: Request) -> Response:
        return Response(body(use.fleet_use(request.user, request.query_params)))
