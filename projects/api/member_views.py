"""``/api/v1/projects/{name}/members/``: every member reads the list; owners and platform admins add,
change and remove users and groups (``projects.members``; the last owner stays)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from base.api_schema import error_response
from base.errors import NotFound
from projects.access import require_role
from projects.api.serializers import MemberRoleSerializer, MembershipSerializer
from projects.members import KINDS, MemberInput, find_subject, remove_member, set_member
from projects.models import Membership, Project

MEMBER_PARAMETERS = [
    OpenApiParameter("kind", str, OpenApiParameter.PATH, enum=list(KINDS), description="user or group"),
    OpenApiParameter("member", str, OpenApiParameter.PATH, description="The username or the OIDC group's name."),
]
REFUSALS = {
    403: error_response("owners and platform admins only"),
    409: error_response("the last owner stays, or the project is archived"),
}
ROLE_EXAMPLE = OpenApiExample("Make a developer", request_only=True, value={"role": "developer"})


def find_membership(project: Project, kind: str, name: str) -> Membership:
    subject = find_subject(kind, name) if kind in KINDS else None
    lookup = {"user": subject} if kind == "user" else {"group": subject}
    membership = None if subject is None else project.memberships.filter(**lookup).first()
    if membership is None:
        raise NotFound(f"{kind}:{name} is not a member of {project.name}.")
    return membership


class ProjectMembersMixin:
    """Mixed into ``ProjectViewSet``: ``get_object`` is the project the caller can see."""

    get_object: Any

    @extend_schema(responses=MembershipSerializer(many=True), description="Users first, then groups, by name.")
    @action(detail=True, methods=["get"], url_path="members", url_name="members", pagination_class=None)
    def members(self, request: Request, name: str) -> Response:
        project = self.get_object()
        memberships = project.memberships.select_related("user", "group")
        body = MembershipSerializer(memberships, many=True).data
        return Response(sorted(body, key=lambda m: (m["kind"] != "user", m["name"])))

    @extend_schema(parameters=MEMBER_PARAMETERS, responses=MembershipSerializer, description="One member's role.")
    @action(
        detail=True,
        methods=["get"],
        url_path=r"members/(?P<kind>[^/]+)/(?P<member>.+)",
        url_name="member",
    )
    def member(self, request: Request, name: str, kind: str, member: str) -> Response:
        return Response(MembershipSerializer(find_membership(self.get_object(), kind, member)).data)

    @extend_schema(
        parameters=MEMBER_PARAMETERS,
        request=MemberRoleSerializer,
        responses={200: MembershipSerializer, **REFUSALS},
        examples=[ROLE_EXAMPLE],
        description="Add the user or group with this role, or change its role (owners and platform admins). "
        "The last owner cannot be demoted.",
    )
    @member.mapping.put
    def put_member(self, request: Request, name: str, kind: str, member: str) -> Response:
        project = self.get_object()
        require_role(project, request.user)  # authorization first: a viewer's bad body is a 403, not a 400
        payload = MemberRoleSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        membership = set_member(project, MemberInput(kind, member, payload.validated_data["role"]), actor=request.user)
        return Response(MembershipSerializer(membership).data)

    @extend_schema(
        parameters=MEMBER_PARAMETERS,
        request=None,
        responses={204: None, **REFUSALS},
        description="Take the user or group out of the project (owners and platform admins); removing a "
        "non-member changes nothing. The last owner cannot be removed.",
    )
    @member.mapping.delete
    def delete_member(self, request: Request, name: str, kind: str, member: str) -> Response:
        remove_member(self.get_object(), kind, member, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
