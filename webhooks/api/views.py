"""``/api/v1/projects/{project}/webhooks/``: a project's webhooks (owners and platform admins): CRUD, routes, the
delivery log and a test send; thin over ``webhooks.services``. The secret is in the answer to the create only."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from base.api_schema import error_response
from base.errors import Invalid
from projects.access import require_role, visible_project
from webhooks import services
from webhooks.api.serializers import (
    DeliverySerializer,
    RoutesSerializer,
    TestSentSerializer,
    WebhookCreateSerializer,
    WebhookSecretSerializer,
    WebhookSerializer,
    WebhookUpdateSerializer,
)
from webhooks.models import Webhook
from webhooks.reads import recent_deliveries

REFUSALS = {403: error_response("owners and platform admins only"), 404: error_response("no such project or webhook")}
BAD = {400: error_response("a bad field, named")}
MAX_LIMIT = 200


def hook_body(hook: Webhook, secret: str = "") -> dict[str, Any]:
    body = {
        "name": hook.name,
        "url": hook.url,
        "format": hook.format,
        "enabled": hook.enabled,
        "events": hook.events,
        "failures": hook.failures,
        "disabled_reason": hook.disabled_reason,
        "created_by": hook.created_by,
        "created_at": hook.created_at,
    }
    return {**body, "secret": secret} if secret else body


def _owner_body(request: Request, project: str, serializer: type) -> tuple[Any, dict[str, Any]]:
    """The project, authorized for an owner before the body is read, and the body's fields."""
    found = visible_project(request.user, project)
    require_role(found, request.user)
    payload = serializer(data=request.data)
    payload.is_valid(raise_exception=True)
    return found, dict(payload.validated_data)


class WebhookListView(APIView):
    @extend_schema(responses={200: WebhookSerializer(many=True), **REFUSALS})
    def get(self, request: Request, project: str) -> Response:
        found = visible_project(request.user, project)
        return Response([hook_body(h) for h in services.list_webhooks(found, actor=request.user)])

    @extend_schema(
        request=WebhookCreateSerializer,
        responses={201: WebhookSecretSerializer, **BAD, **REFUSALS, 409: error_response("the name is taken")},
        description="Add a webhook; the answer holds its signing secret, shown once.",
    )
    def post(self, request: Request, project: str) -> Response:
        found, data = _owner_body(request, project, WebhookCreateSerializer)
        name = data.pop("name")
        hook, secret = services.create_webhook(found, name=name, data=data, actor=request.user)
        return Response(hook_body(hook, secret), status=status.HTTP_201_CREATED)


class WebhookDetailView(APIView):
    @extend_schema(responses={200: WebhookSerializer, **REFUSALS})
    def get(self, request: Request, project: str, name: str) -> Response:
        found = visible_project(request.user, project)
        return Response(hook_body(services.find_webhook(found, name, actor=request.user)))

    @extend_schema(request=WebhookUpdateSerializer, responses={200: WebhookSerializer, **BAD, **REFUSALS})
    def patch(self, request: Request, project: str, name: str) -> Response:
        found, data = _owner_body(request, project, WebhookUpdateSerializer)
        return Response(hook_body(services.update_webhook(found, name, data=data, actor=request.user)))

    @extend_schema(request=None, responses={204: None, **REFUSALS})
    def delete(self, request: Request, project: str, name: str) -> Response:
        services.delete_webhook(visible_project(request.user, project), name, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookRoutesView(APIView):
    @extend_schema(request=RoutesSerializer, responses={200: WebhookSerializer, **BAD, **REFUSALS},
                   description="Which events go to this webhook (the whole list).")  # fmt: skip
    def put(self, request: Request, project: str, name: str) -> Response:
        found, data = _owner_body(request, project, RoutesSerializer)
        return Response(hook_body(services.set_routes(found, name, events=data["events"], actor=request.user)))


def _int(value: str | None, name: str, default: int, top: int) -> int:
    if value in (None, ""):
        return default
    if not value.isdigit() or not 0 <= int(value) <= top:
        raise Invalid.on(name, f"A whole number from 0 to {top}.")
    return int(value)


class WebhookDeliveriesView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("limit", int, description=f"At most this many (default 50, at most {MAX_LIMIT})."),
            OpenApiParameter("offset", int, description="Skip this many, newest first."),
        ],
        responses={200: DeliverySerializer(many=True), **BAD, **REFUSALS},
        description="The delivery log, newest first: each delivery with its attempts (status code, error, duration).",
    )
    def get(self, request: Request, project: str, name: str) -> Response:
        found = visible_project(request.user, project)
        hook = services.find_webhook(found, name, actor=request.user)
        limit = _int(request.query_params.get("limit"), "limit", 50, MAX_LIMIT)
        offset = _int(request.query_params.get("offset"), "offset", 0, 10**6)
        rows = recent_deliveries(hook, limit, offset=offset)
        return Response(DeliverySerializer(rows, many=True).data)


class WebhookTestView(APIView):
    @extend_schema(request=None, responses={202: TestSentSerializer, **REFUSALS},
                   description="Queue a test event to the webhook; its attempts show in the deliveries.")  # fmt: skip
    def post(self, request: Request, project: str, name: str) -> Response:
        found = visible_project(request.user, project)
        delivery = services.send_test(found, name, actor=request.user)
        return Response({"delivery": delivery}, status=status.HTTP_202_ACCEPTED)
