"""``/api/v1/projects/{project}/robots/``: a project's robot accounts (owners and platform admins). The token's
secret is in the answer to a create or a rotate only."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import ROBOT_GRANTS
from base.api import StrictInput
from base.api_schema import error_response
from projects.access import require_role, visible_project
from robots.models import Robot
from robots.services import create_robot, find_robot, list_robots, revoke_robot, robot_token, rotate_robot

REFUSALS = {403: error_response("owners and platform admins only"), 404: error_response("no such project or robot")}


class RobotSerializer(serializers.Serializer):
    name = serializers.CharField()
    username = serializers.CharField(help_text="How the audit names it: 'robot NAME of PROJECT'.")
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=ROBOT_GRANTS))
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    revoked_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True)
    last_used_at = serializers.DateTimeField(allow_null=True)
    active = serializers.BooleanField()


class RobotSecretSerializer(RobotSerializer):
    token = serializers.CharField(help_text="The token's secret: shown this once, never again.")


class RobotInputSerializer(StrictInput):
    name = serializers.CharField(max_length=200)
    scopes = serializers.ListField(child=serializers.CharField(max_length=20), max_length=len(ROBOT_GRANTS))
    days = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=100000)


class RotateInputSerializer(StrictInput):
    days = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=100000)


def robot_body(robot: Robot, secret: str = "") -> dict[str, Any]:
    token = robot_token(robot)
    body = {
        "name": robot.name,
        "username": robot.user.get_username(),
        "scopes": robot.grant_list,
        "created_by": robot.created_by,
        "created_at": robot.created_at,
        "revoked_at": robot.revoked_at,
        "expires_at": token.expires_at if token else None,
        "last_used_at": token.last_used_at if token else None,
        "active": robot.revoked_at is None and token is not None and token.is_active,
    }
    return {**body, "token": secret} if secret else body


class RobotListView(APIView):
    @extend_schema(responses={200: RobotSerializer(many=True), **REFUSALS}, description="Revoked ones included.")
    def get(self, request: Request, project: str) -> Response:
        found = visible_project(request.user, project)
        return Response([robot_body(r) for r in list_robots(found, actor=request.user)])

    @extend_schema(
        request=RobotInputSerializer,
        responses={201: RobotSecretSerializer, **REFUSALS},
        description="Create a robot account; the answer holds its token's secret, shown once.",
    )
    def post(self, request: Request, project: str) -> Response:
        found = visible_project(request.user, project)
        require_role(found, request.user)  # authorization before the body
        payload = RobotInputSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        robot, _, raw = create_robot(
            found, name=data["name"], scopes=data["scopes"], days=data.get("days"), actor=request.user
        )
        return Response(robot_body(robot, raw), status=status.HTTP_201_CREATED)


class RobotDetailView(APIView):
    @extend_schema(responses={200: RobotSerializer, **REFUSALS})
    def get(self, request: Request, project: str, robot: str) -> Response:
        found = visible_project(request.user, project)
        return Response(robot_body(find_robot(found, robot, actor=request.user)))

    @extend_schema(request=None, responses={204: None, **REFUSALS}, description="Revoke: its token dies at once.")
    def delete(self, request: Request, project: str, robot: str) -> Response:
        revoke_robot(visible_project(request.user, project), robot, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class RobotRotateView(APIView):
    @extend_schema(
        request=RotateInputSerializer,
        responses={200: RobotSecretSerializer, **REFUSALS},
        description="A new token (its secret in the answer, once); the old one dies at once.",
    )
    def post(self, request: Request, project: str, robot: str) -> Response:
        found = visible_project(request.user, project)
        require_role(found, request.user)
        payload = RotateInputSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        rotated, _, raw = rotate_robot(found, robot, days=payload.validated_data.get("days"), actor=request.user)
        return Response(robot_body(rotated, raw))
