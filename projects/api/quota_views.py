"""Quota over the API: a project's overview and grant changes (``/projects/{name}/quota/...``), forced
decreases for platform admins, and the quota requests (``/quota-requests/``) platform admins decide."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse

from base.api_schema import error_response
from base.parsers import JSONParser
from base.permissions import is_platform_admin
from projects.access import require_platform_admin, require_role
from projects.api.fields import REQUEST_STATES, TIERS
from projects.api.serializers import (
    DecisionSerializer,
    ForcedDecreaseInputSerializer,
    ForcedDecreasePreviewSerializer,
    GrantInputSerializer,
    QuotaChangeInputSerializer,
    QuotaChangeSerializer,
    QuotaOverviewSerializer,
    QuotaRequestSerializer,
    RejectionSerializer,
    overview_body,
)
from projects.headroom import quota_overview
from projects.models import Project, QuotaRequest
from projects.quota import approve_request, change_quota, force_decrease, preview_forced_decrease, reject_request

TIER_PARAMETER = OpenApiParameter(
    "tier", str, OpenApiParameter.PATH, enum=TIERS, description="reserved, ondemand or preemptible"
)
OWNERS = {
    403: error_response("owners and platform admins only"),
    409: error_response("the project is archived, or the change conflicts with its state"),
}
ADMINS = {
    403: error_response("platform admins only"),
    409: error_response("the state changed since (archived project, decided request, stale preview)"),
}
GRANT = {"cpu": "16", "memory": "64Gi", "gpu": "0", "pods": "50"}
BEFORE = {"cpu": "8", "memory": "32Gi", "gpu": "0", "pods": "50"}
CHANGE_EXAMPLES = [
    OpenApiExample("Ask for more OnDemand quota", request_only=True, value={**GRANT, "reason": "Launch in May."}),
    OpenApiExample(
        "Applied at once",
        response_only=True,
        status_codes=["200"],
        value={"applied": True, "before": BEFORE, "after": GRANT, "request": None},
    ),
    OpenApiExample(
        "Waiting for a platform admin",
        response_only=True,
        status_codes=["202"],
        value={
            "applied": False,
            "before": BEFORE,
            "after": BEFORE,
            "request": {
                "id": 42,
                "project": "ads-ranking",
                "tier": "ondemand",
                "state": "pending",
                "previous": BEFORE,
                "requested": GRANT,
                "reason": "Launch in May.",
                "requested_by": "alice",
                "created_at": "2026-11-23T09:00:00Z",
                "decided_by": None,
                "decided_at": None,
                "decision_reason": "",
                "applied_at": None,
            },
        },
    ),
]
FORCE_EXAMPLE = OpenApiExample(
    "Reclaim OnDemand cpu",
    request_only=True,
    value={
        "cpu": "4",
        "memory": "16Gi",
        "gpu": "0",
        "pods": "10",
        "reason": "Unused",
        "confirm": "3f9a0c1d2e4b5a6c7d8e",
    },
)
PREVIEW_EXAMPLE = OpenApiExample(
    "Preview a decrease", request_only=True, value={"cpu": "4", "memory": "16Gi", "gpu": "0", "pods": "10"}
)
REJECT_EXAMPLE = OpenApiExample("Reject", request_only=True, value={"reason": "Use OnDemand for this."})
APPROVE_EXAMPLE = OpenApiExample("Approve", request_only=True, value={"reason": "Capacity planned for Q3."})


class ProjectQuotaMixin:
    """Mixed into ``ProjectViewSet``: ``get_object`` is the project the caller can see."""

    get_object: Any

    @extend_schema(
        responses=QuotaOverviewSerializer,
        description="Per tier: the grant, what the workloads request, the running pods, the grant's headroom, "
        "the region's and each member's room, and a pending request; and how far each cluster has followed "
        "the project. Every member reads it.",
    )
    @action(detail=True, methods=["get"], url_path="quota", url_name="quota")
    def quota(self, request: Request, name: str) -> Response:
        project = self.get_object()
        provisioning = list(project.provisioning.select_related("cluster").order_by("cluster__name"))
        body = overview_body(project, quota_overview(project), provisioning)
        return Response(QuotaOverviewSerializer(body).data)

    @extend_schema(
        parameters=[TIER_PARAMETER],
        request=QuotaChangeInputSerializer,
        responses={
            200: QuotaChangeSerializer,
            202: OpenApiResponse(QuotaChangeSerializer, description="A pending request (`request.id`)."),
            **OWNERS,
        },
        examples=CHANGE_EXAMPLES,
        description="Set the project's grant in a tier (owners and platform admins). A decrease below what the "
        "workloads request is refused with the numbers; an increase within the auto-approve limit and the "
        "region's headroom applies at once (200); anything else becomes a pending request (202).",
    )
    @action(detail=True, methods=["put"], url_path=r"quota/(?P<tier>[^/]+)", url_name="quota-tier")
    def set_quota(self, request: Request, name: str, tier: str) -> Response:
        project = self.get_object()
        require_role(project, request.user)  # authorization first: a viewer's bad body is a 403, not a 400
        payload = QuotaChangeInputSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        reason = payload.validated_data["reason"]
        change = change_quota(project, tier, payload.quota_input(), actor=request.user, reason=reason)
        body = QuotaChangeSerializer(change).data
        if change.applied:
            return Response(body)
        location = reverse("api:quota-request-detail", kwargs={"pk": change.request.pk}, request=request)
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": location})

    @extend_schema(
        parameters=[TIER_PARAMETER],
        request=GrantInputSerializer,
        responses={200: ForcedDecreasePreviewSerializer, **ADMINS},
        examples=[PREVIEW_EXAMPLE],
        description="Platform admins: what a forced decrease to this grant would do (the workloads that would "
        "no longer fit) and the token that confirms it. Changes nothing.",
    )
    @action(
        detail=True,
        methods=["post"],
        url_path=r"quota/(?P<tier>[^/]+)/forced-decrease/preview",
        url_name="forced-decrease-preview",
    )
    def forced_decrease_preview(self, request: Request, name: str, tier: str) -> Response:
        project = self.get_object()
        require_platform_admin(request.user, "preview a forced quota decrease")
        payload = GrantInputSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        preview = preview_forced_decrease(project, tier, payload.quota_input())
        return Response(ForcedDecreasePreviewSerializer(preview).data)

    @extend_schema(
        parameters=[TIER_PARAMETER],
        request=ForcedDecreaseInputSerializer,
        responses={200: ForcedDecreasePreviewSerializer, **ADMINS},
        examples=[FORCE_EXAMPLE],
        description="Platform admins: lower the grant even below usage, confirmed with the preview's token; "
        "409 on `confirm` when what the preview showed has changed since.",
    )
    @action(
        detail=True, methods=["post"], url_path=r"quota/(?P<tier>[^/]+)/forced-decrease", url_name="forced-decrease"
    )
    def forced_decrease(self, request: Request, name: str, tier: str) -> Response:
        project = self.get_object()
        require_platform_admin(request.user, "force a quota decrease")
        payload = ForcedDecreaseInputSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        done = force_decrease(
            project, tier, payload.quota_input(), actor=request.user, reason=data["reason"], confirm=data["confirm"]
        )
        return Response(ForcedDecreasePreviewSerializer(done).data)


class QuotaRequestViewSet(viewsets.ReadOnlyModelViewSet):
    """Requests for a different grant. Platform admins see and decide all; others see their projects'."""

    parser_classes = [JSONParser]
    serializer_class = QuotaRequestSerializer
    queryset = QuotaRequest.objects.none()  # narrowed per request; typed for the schema
    lookup_value_regex = r"\d+"

    def get_queryset(self) -> Any:
        user = self.request.user
        requests = QuotaRequest.objects.select_related("project", "requested_by", "decided_by")
        if not is_platform_admin(user):
            requests = requests.filter(project__in=Project.objects.visible_to(user))
        if self.action != "list":
            return requests
        params = self.request.query_params
        state, project = params.get("state", ""), params.get("project", "")
        if state and state not in REQUEST_STATES:
            raise drf_serializers.ValidationError(
                {"state": f"{state!r} is not a request state; use {', '.join(REQUEST_STATES)}."}
            )
        if state:
            requests = requests.filter(state=state)
        if project:  # a NUL (which PostgreSQL refuses in a query) names no project
            requests = requests.filter(project__name=project) if "\x00" not in project else requests.none()
        return requests

    @extend_schema(
        parameters=[
            OpenApiParameter("state", str, enum=REQUEST_STATES),
            OpenApiParameter("project", str, description="A project's name."),
        ]
    )
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    @extend_schema(
        request=DecisionSerializer,
        responses={200: QuotaRequestSerializer, **ADMINS},
        examples=[APPROVE_EXAMPLE],
        description="Platform admins: apply a pending request. 409 with the numbers when the region's pools "
        "cannot hold it now, or when it is no longer pending.",
    )
    @action(detail=True, methods=["post"])
    def approve(self, request: Request, pk: str) -> Response:
        found = self.get_object()  # 404 for a request the caller cannot see, before the role check
        require_platform_admin(request.user, "approve quota requests")  # then the role, before the body
        payload = DecisionSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        decided = approve_request(found.pk, actor=request.user, reason=payload.validated_data["reason"])
        return Response(QuotaRequestSerializer(decided).data)

    @extend_schema(
        request=RejectionSerializer,
        responses={200: QuotaRequestSerializer, **ADMINS},
        examples=[REJECT_EXAMPLE],
        description="Platform admins: refuse a pending request; the reason is required.",
    )
    @action(detail=True, methods=["post"])
    def reject(self, request: Request, pk: str) -> Response:
        found = self.get_object()
        require_platform_admin(request.user, "reject quota requests")
        payload = RejectionSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        decided = reject_request(found.pk, actor=request.user, reason=payload.validated_data["reason"])
        return Response(QuotaRequestSerializer(decided).data)
