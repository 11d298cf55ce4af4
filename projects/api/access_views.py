"""``/api/v1/projects/{name}/access-requests/`` and ``.../access-grants/``: time-limited access.

Every member asks and reads their own; owners (platform admins for sidecar exec) read all of the project's, decide,
grant directly and revoke. The project is looked up among those the caller can see (another tenant's is a 404), the
role is checked before the body is read, and the services judge the values."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from base.api_schema import error_response
from projects.access import ADMIN, OWNER_ROLES, require_role, visible_project_role
from projects.access_requests import services
from projects.access_requests.reads import REQUEST_STATES, find_grant, find_request, live_grants_of, requests_of
from projects.access_requests.services import ALL_ROLES
from projects.api.access_serializers import (
    AccessDecisionSerializer,
    AccessGrantInputSerializer,
    AccessGrantSerializer,
    AccessRequestInputSerializer,
    AccessRequestSerializer,
)

REFUSALS = {
    403: error_response("owners decide roles; platform admins decide sidecar exec"),
    409: error_response("decided already, held already, asked already, or the project is archived"),
}
REQUEST_EXAMPLE = OpenApiExample(
    "A developer role for an incident",
    request_only=True,
    value={"access": "developer", "duration_seconds": 14400, "reason": "INC-1234: payments latency"},
)
GRANT_EXAMPLE = OpenApiExample(
    "Grant a viewer role for a day",
    request_only=True,
    value={"user": "bob", "access": "viewer", "duration_seconds": 86400, "reason": "Audit of the ranking models"},
)
STATE = OpenApiParameter("state", str, enum=list(REQUEST_STATES), description="pending, approved or denied")


def _state(request: Request) -> str:
    state = request.query_params.get("state", "")
    if state and state not in REQUEST_STATES:
        raise drf_serializers.ValidationError({"state": f"{state!r} is not a state; use {', '.join(REQUEST_STATES)}."})
    return state


class ProjectAccessMixin:
    """Mixed into ``ProjectViewSet``: every route hangs off a project the caller can see."""

    @extend_schema(parameters=[STATE], responses=AccessRequestSerializer(many=True), description="Newest first.")
    @action(detail=True, methods=["get"], url_path="access-requests", url_name="access-requests", pagination_class=None)
    def access_requests(self, request: Request, name: str) -> Response:
        project, role = visible_project_role(request.user, name)
        rows = requests_of(project, request.user, role, _state(request)).select_related("grant")
        return Response(AccessRequestSerializer(rows, many=True).data)

    @extend_schema(
        request=AccessRequestInputSerializer,
        responses={201: AccessRequestSerializer, **REFUSALS},
        examples=[REQUEST_EXAMPLE],
        description="Ask for a role (viewer, developer, owner) or sidecar-exec in the project for a duration.",
    )
    @access_requests.mapping.post
    def post_access_request(self, request: Request, name: str) -> Response:
        project, _ = visible_project_role(request.user, name)
        require_role(project, request.user, ALL_ROLES)
        body = AccessRequestInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        row = services.request_access(project, actor=request.user, **body.validated_data)
        return Response(AccessRequestSerializer(row).data, status=status.HTTP_201_CREATED)

    def _decide(self, request: Request, name: str, request_id: str, approve: bool) -> Response:
        project, _ = visible_project_role(request.user, name)
        row = find_request(project, request.user, ADMIN, request_id)  # any of the project's: the role is judged next
        decide = services.approve_access_request if approve else services.deny_access_request
        services.authorize_decision(row.project, row.access, request.user)  # before the body is read
        body = AccessDecisionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return Response(AccessRequestSerializer(decide(row, actor=request.user, **body.validated_data)).data)

    @extend_schema(
        request=AccessDecisionSerializer,
        responses={200: AccessRequestSerializer, **REFUSALS},
        description="Grant what the request asks, from now for its duration.",
    )
    @action(
        detail=True,
        methods=["post"],
        url_path=r"access-requests/(?P<request_id>[0-9]+)/approve",
        url_name="access-request-approve",
    )
    def approve_access_request(self, request: Request, name: str, request_id: str) -> Response:
        return self._decide(request, name, request_id, approve=True)

    @extend_schema(
        request=AccessDecisionSerializer,
        responses={200: AccessRequestSerializer, **REFUSALS},
        description="Refuse the request.",
    )
    @action(
        detail=True,
        methods=["post"],
        url_path=r"access-requests/(?P<request_id>[0-9]+)/deny",
        url_name="access-request-deny",
    )
    def deny_access_request(self, request: Request, name: str, request_id: str) -> Response:
        return self._decide(request, name, request_id, approve=False)

    @extend_schema(responses=AccessGrantSerializer(many=True), description="Live grants, ending soonest first.")
    @action(detail=True, methods=["get"], url_path="access-grants", url_name="access-grants", pagination_class=None)
    def access_grants(self, request: Request, name: str) -> Response:
        project, role = visible_project_role(request.user, name)
        return Response(AccessGrantSerializer(live_grants_of(project, request.user, role), many=True).data)

    @extend_schema(
        request=AccessGrantInputSerializer,
        responses={201: AccessGrantSerializer, **REFUSALS},
        examples=[GRANT_EXAMPLE],
        description="An owner's direct time-limited grant (sidecar-exec: platform admins).",
    )
    @access_grants.mapping.post
    def post_access_grant(self, request: Request, name: str) -> Response:
        project, _ = visible_project_role(request.user, name)
        require_role(project, request.user, OWNER_ROLES)  # before the body is read (sidecar exec: admins, next)
        body = AccessGrantInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data: dict[str, Any] = dict(body.validated_data)
        grant = services.grant_access(project, username=data.pop("user"), actor=request.user, **data)
        return Response(AccessGrantSerializer(grant).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: None, **REFUSALS}, description="End a live grant now.")
    @action(
        detail=True,
        methods=["delete"],
        url_path=r"access-grants/(?P<grant_id>[0-9]+)",
        url_name="access-grant",
    )
    def delete_access_grant(self, request: Request, name: str, grant_id: str) -> Response:
        project, _ = visible_project_role(request.user, name)
        grant = find_grant(project, request.user, ADMIN, grant_id)  # the service lets owners and the holder end it
        services.revoke_access_grant(grant, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
