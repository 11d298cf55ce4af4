"""``/api/v1/cost/``, ``/api/v1/projects/{project}/cost/``, ``/api/v1/prices/`` and
``/api/v1/clusters/{name}/capacity/``: thin views over ``usage.queries``, ``usage.prices`` (reads) and
``usage.services`` (writes)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from base.api_schema import error_response
from base.parsers import JSONParser
from base.permissions import IsPlatformAdmin
from base.throttling import api_throttles
from usage import forecast, prices, queries, services
from usage.api.serializers import (
    CapacitySerializer,
    CostReportSerializer,
    PriceInputSerializer,
    PriceSerializer,
)
from usage.costmodel import DIMENSIONS, TIERS

RANGE_EXAMPLE = OpenApiExample("a range", value="2026-11-01T00:00Z,2026-11-02T00:00Z")
_INSTANT = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:00)?(Z|[+-][0-9]{2}:[0-9]{2})"
WINDOW_PATTERN = rf"^([1-9][0-9]?[mhd]|today|yesterday|week|month|{_INSTANT},{_INSTANT})$"
STEPS = ["1h", "2h", "3h", "4h", "6h", "8h", "12h", "1d", "2d", "7d", "window"]


def aggregate_pattern(allowed: tuple[str, ...]) -> str:
    names = "|".join(allowed)
    return rf"^({names})(,({names})){{0,{len(allowed) - 1}}}$"


def window_parameter(default: str) -> OpenApiParameter:
    return OpenApiParameter(
        "window",
        {"type": "string", "pattern": WINDOW_PATTERN},
        description="24h, 7d, 30m (ending now), today, yesterday, week, month (UTC), or an ISO "
        "range `start,end` in whole minutes, e.g. `2026-11-01T00:00Z,2026-11-08T00:00Z` (a real date, the end "
        "after the start, at most 800 days and 2400 steps). "
        f"Default {default}.",
        examples=[OpenApiExample("recent", value=default), RANGE_EXAMPLE],
    )


WINDOW = window_parameter("7d")
STEP = OpenApiParameter(
    "step",
    str,
    enum=STEPS,
    description="1h, 6h, 1d ... (whole hours, aligned to UTC) or `window` (one step); at most 2400 steps. Default 1d.",
    examples=[OpenApiExample("daily", value="1d")],
)


def aggregate_parameter(allowed: tuple[str, ...], default: str) -> OpenApiParameter:
    return OpenApiParameter(
        "aggregate",
        {"type": "string", "pattern": aggregate_pattern(allowed)},
        description=f"one or more of {', '.join(allowed)}, comma-separated. Default {default}.",
        examples=[OpenApiExample(allowed[0], value=allowed[0])],
    )


REPORT_EXAMPLE = OpenApiExample(
    "Cost by tier, one day",
    response_only=True,
    value={
        "window": {"start": "2026-11-22T00:00:00Z", "end": "2026-11-23T00:00:00Z"}, "step_seconds": 86400,
        "aggregate": ["tier"], "currency": "USD", "total_cost": 5.76, "total_request_cost": 5.44,
        "totals": [{"name": "ondemand", "properties": {"tier": "ondemand"}, "cpu_core_hours": 96.0,
                    "cpu_request_core_hours": 88.0, "ram_gib_hours": 384.0, "ram_request_gib_hours": 384.0,
                    "gpu_hours": 0.0, "gpu_request_hours": 0.0, "cpu_cost": 3.84, "ram_cost": 1.92, "gpu_cost": 0.0,
                    "total_cost": 5.76, "cpu_use_core_hours": 60.0, "ram_use_gib_hours": 200.0,
                    "cpu_request_cost": 3.52, "ram_request_cost": 1.92, "gpu_request_cost": 0.0,
                    "total_request_cost": 5.44, "over_request_cost": 0.32}],
        "steps": [], "pools": [],
    },
)  # fmt: skip


class ProjectCostView(APIView):
    """One project's usage and cost: members of the project and platform admins (another tenant's: 404)."""

    throttle_classes = api_throttles()

    @extend_schema(
        operation_id="project_cost",
        parameters=[WINDOW, STEP, aggregate_parameter(queries.PROJECT_DIMENSIONS, "tier")],
        responses=CostReportSerializer,
        examples=[REPORT_EXAMPLE],
        description="By use (`*_cost`, `total_cost`): max(request, use) per container and minute x price x time; "
        "by request (`*_request_cost`): requests x price x time; a container whose use was not scraped yet counts "
        "as its request. A Reserved grant's unrequested part is the `__unused_reservation__` workload (committed "
        "capacity is charged whether used or not).",
    )
    def get(self, request: Request, project: str) -> Response:
        _, report = queries.project_cost(project, request.query_params, actor=request.user)
        return Response(queries.report_body(report))


class CostReportView(APIView):
    """The allocation report over every project the caller sees; platform admins see all and ``__idle__``."""

    throttle_classes = api_throttles()

    @extend_schema(
        operation_id="cost_report",
        parameters=[WINDOW, STEP, aggregate_parameter(DIMENSIONS, "team (admins) or project")],
        responses=CostReportSerializer,
        examples=[REPORT_EXAMPLE],
        description="Aggregate by project, team, cost_center, tier, cluster or workload, by request and by use. "
        "Platform admins see every project, the pools' unallocated capacity as the `__idle__` row and per member "
        "pool in `pools` (never spread onto projects); others see their projects only.",
    )
    def get(self, request: Request) -> Response:
        return Response(queries.report_body(queries.cost_report(request.query_params, actor=request.user)))


class CapacityView(APIView):
    """A member cluster's pools per tier, hour by hour, from the same samples."""

    throttle_classes = api_throttles()

    @extend_schema(
        operation_id="cluster_capacity",
        parameters=[window_parameter("24h")],
        responses=CapacitySerializer,
    )
    def get(self, request: Request, name: str) -> Response:
        window, points = queries.capacity(name, request.query_params, actor=request.user)
        found = [{**f.__dict__, "sentence": f.sentence} for f in forecast.forecasts(points, TIERS)]
        body = {"cluster": name, "window": {"start": window.start, "end": window.end}, "points": points}
        return Response({**body, "forecasts": found})


def price_body(row: prices.PriceRow) -> dict[str, object]:
    return {**row.__dict__, "per_hour": str(row.per_hour)}


class PriceListView(APIView):
    """The price sheet, readable by everyone signed in (so a team can see what it will be charged)."""

    @extend_schema(operation_id="prices_list", responses=PriceSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response([price_body(row) for row in prices.price_sheet()])


class PriceTierView(APIView):
    """Change a tier's prices: platform admins only, audited."""

    permission_classes = [IsAuthenticated, IsPlatformAdmin]
    parser_classes = [JSONParser]

    @extend_schema(
        operation_id="prices_update",
        parameters=[OpenApiParameter("tier", str, OpenApiParameter.PATH, enum=list(TIERS))],
        request=PriceInputSerializer,
        responses={200: PriceSerializer(many=True), 403: error_response("platform admins only")},
        examples=[OpenApiExample("Preemptible CPU cheaper", value={"cpu": "0.010000"}, request_only=True)],
    )
    def put(self, request: Request, tier: str) -> Response:
        payload = PriceInputSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        rows = services.set_prices(tier, dict(payload.validated_data), actor=request.user)
        return Response([price_body(row) for row in rows])
