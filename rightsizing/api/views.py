"""``GET /api/v1/projects/{project}/workloads/{kind}/{name}/recommendations/``: a thin view over
``rightsizing.services.workload_advice`` (any member reads; applying is the workload's PUT, which the edit roles
decide)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from rightsizing.api.serializers import AdviceSerializer
from rightsizing.services import DEFAULT_WINDOW, WINDOWS, Advice, ContainerAdvice, workload_advice
from workloads.api.common import ApiView
from workloads.api.schema import KIND_PARAM, NAME_PARAM, PROJECT_PARAM, error_codes

WINDOW_PARAM = OpenApiParameter(
    "window",
    str,
    enum=list(WINDOWS),
    description=f"the use considered: the last 1h, 6h, 24h or 7d (default {DEFAULT_WINDOW})",
)


def _container(c: ContainerAdvice) -> dict[str, Any]:
    r = c.recommendation
    return {
        **{k: getattr(c, k) for k in ("container", "cpu_request", "memory_request", "cpu_limit", "memory_limit",
                                      "cpu_use", "memory_use", "cpu_saving", "memory_saving_gib", "note")},
        "money_saving": None if c.money_saving is None else str(c.money_saving),
        "recommendation": None if r is None else {
            "cpu": r.cpu, "memory": r.memory, "cpu_millicores": r.cpu_milli, "memory_bytes": r.memory_bytes,
            "confidence": r.confidence, "history_days": round(r.history_days, 4), "capped": list(r.capped),
        },
    }  # fmt: skip


def body(advice: Advice) -> dict[str, Any]:
    f = advice.found
    return {
        "project": f.project.name, "kind": f.kind, "name": f.name, "version": f.version, "window": advice.window,
        "tier": advice.tier, "pods": advice.pods, "currency": advice.currency,
        "containers": [_container(c) for c in advice.containers],
        "document": advice.document() if advice.recommended else None,
    }  # fmt: skip


class RecommendationsView(ApiView):
    @extend_schema(
        operation_id="workload_recommendations",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, WINDOW_PARAM],
        responses={200: AdviceSerializer, **error_codes(400, 401, 404, 429, 503)},
        description="Right-sizing: per container of the workload's spec, its request, its use over the window "
        "from Prometheus, the recommended request (the VPA recommender's model: CPU p90, memory peak, plus 15 %), "
        "the saving and the confidence (how much history). A container with no use in the window has none.",
    )
    def get(self, request: Request, project: str, kind: str, name: str) -> Response:
        return Response(body(workload_advice(request.user, project, kind, name, request.query_params)))
