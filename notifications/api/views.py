"""``/api/v1/notifications/``: your notifications (filters ``project``, ``event``, ``unread``), mark read, mark all
read, and your preferences; thin over ``notifications.reads`` and ``notifications.services``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from base.api_schema import error_response
from base.errors import Invalid
from base.parsers import JSONParser
from notifications import services
from notifications.api.serializers import NotificationSerializer, PreferenceSerializer, ReadAllSerializer
from notifications.models import Event, Notification
from notifications.reads import notifications_for

PREFERENCE_FIELDS = services.PREFERENCE_FIELDS


def _flag(value: str | None, name: str) -> bool:
    if value in (None, "", "false", "0"):
        return False
    if value in ("true", "1"):
        return True
    raise Invalid.on(name, "true or false.")


@extend_schema(
    parameters=[
        OpenApiParameter("project", str, description="Only this project's notifications."),
        OpenApiParameter("event", str, enum=Event.values, description="Only this event."),
        OpenApiParameter("unread", bool, description="Only unread ones."),
    ],
    responses={200: NotificationSerializer(many=True), 400: error_response("an unknown event or a bad flag")},
)
class NotificationListView(generics.ListAPIView):  # type: ignore[type-arg]
    serializer_class = NotificationSerializer
    queryset = Notification.objects.none()  # narrowed per request; typed for the schema

    def get_queryset(self) -> Any:
        query = self.request.query_params
        return notifications_for(
            self.request.user,
            project=query.get("project", ""),
            event=query.get("event", ""),
            unread=_flag(query.get("unread"), "unread"),
        )


class NotificationReadView(APIView):
    serializer_class = NotificationSerializer
    parser_classes = [JSONParser]

    @extend_schema(request=None, responses={200: NotificationSerializer, 404: error_response("not yours, or none")})
    def post(self, request: Request, pk: int) -> Response:
        return Response(NotificationSerializer(services.mark_read(pk, user=request.user)).data)


class NotificationReadAllView(APIView):
    serializer_class = ReadAllSerializer
    parser_classes = [JSONParser]

    @extend_schema(request=None, responses={200: ReadAllSerializer})
    def post(self, request: Request) -> Response:
        return Response({"marked": services.mark_all_read(user=request.user)})


def _preferences(user: Any) -> dict[str, Any]:
    pref = services.preferences_of(user)
    return {name: getattr(pref, name) for name in PREFERENCE_FIELDS}


class PreferenceView(APIView):
    """An ``APIView``: no queryset, so OPTIONS describes it without one (a generic view answered it 500)."""

    serializer_class = PreferenceSerializer
    parser_classes = [JSONParser]

    @extend_schema(responses={200: PreferenceSerializer})
    def get(self, request: Request) -> Response:
        return Response(_preferences(request.user))

    @extend_schema(
        request=PreferenceSerializer,
        responses={200: PreferenceSerializer, 400: error_response("an unknown field or event name, by field")},
    )
    def put(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise Invalid("The body must be a JSON object with some of: " + ", ".join(PREFERENCE_FIELDS) + ".")
        services.set_preferences(dict(request.data), user=request.user)
        return Response(_preferences(request.user))
