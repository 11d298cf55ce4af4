"""``/api/v1/projects/``: list, onboard, read, edit and archive projects; members and quota are in
``member_views`` and ``quota_views`` (mixed into the one viewset, so every route hangs off a project).

Views are thin: they look the project up in ``Project.objects.visible_to`` (another tenant's project is
a 404, never a 403), parse the body for shape, and call the service, which checks the role and the
values and raises the error taxonomy that ``base.api`` turns into the one JSON error body.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers as drf_serializers
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse

from base.api_schema import error_response
from base.parsers import JSONParser
from projects.access import require_role, roles_of, visible_project
from projects.api.access_views import ProjectAccessMixin
from projects.api.fit_views import ProjectFitMixin
from projects.api.member_views import ProjectMembersMixin
from projects.api.network_views import ProjectNetworkMixin
from projects.api.ownership_views import ProjectOwnershipMixin
from projects.api.policy_views import ProjectPolicyMixin
from projects.api.quota_views import ProjectQuotaMixin
from projects.api.serializers import (
    ProjectCreatedSerializer,
    ProjectCreateSerializer,
    ProjectPatchSerializer,
    ProjectSerializer,
)
from projects.grants import grants_for
from projects.lifecycle import archive_project, set_pod_security, update_project
from projects.models import Project, ProjectState, QuotaRequestState
from projects.onboarding import onboard_project

CREATE_EXAMPLE = OpenApiExample(
    "Onboard a project",
    request_only=True,
    value={
        "name": "ads-ranking",
        "display_name": "Ads ranking",
        "team": "ads",
        "cost_center": "CC-1042",
        "description": "Online ranking models.",
        "members": [
            {"kind": "group", "name": "ads-devs", "role": "developer"},
            {"kind": "user", "name": "alice", "role": "owner"},
        ],
        "quotas": {
            "ondemand": {"cpu": "8", "memory": "32Gi", "gpu": "0", "pods": "50"},
            "reserved": {"cpu": "16", "memory": "64Gi", "gpu": "2", "pods": "20"},
        },
    },
)
WRITE_REFUSALS = {
    403: error_response("the caller's role may not do this (owners; some changes platform admins only)"),
    409: error_response("the project is archived, or its state forbids this now"),
}
PATCH_EXAMPLE = OpenApiExample(
    "Change the team and description", request_only=True, value={"team": "ads-infra", "description": "Ranking."}
)


def state_filter(request: Request) -> str:
    """The ``state`` query parameter, a ProjectState; "" when absent."""
    state = request.query_params.get("state", "")
    if state and state not in ProjectState.values:
        raise drf_serializers.ValidationError({"state": f"{state!r} is not a state; use {', '.join(ProjectState)}."})
    return state


def describe(projects: list[Project], user: Any) -> list[Project]:
    """Attach the caller's role and the grants per tier that ``ProjectSerializer`` shows (two queries)."""
    roles = roles_of(user, projects)
    grants = grants_for(projects)
    for project in projects:
        project.role = roles.get(project.pk)
        project.grants = {tier.label: grant for tier, grant in grants[project.pk].items()}
    return projects


class ProjectViewSet(
    ProjectMembersMixin,
    ProjectQuotaMixin,
    ProjectFitMixin,
    ProjectNetworkMixin,
    ProjectAccessMixin,
    ProjectPolicyMixin,
    ProjectOwnershipMixin,
    viewsets.GenericViewSet,
):
    """Projects the caller can see: their own and their groups' (platform admins: all)."""

    parser_classes = [JSONParser]
    serializer_class = ProjectSerializer
    queryset = Project.objects.none()  # narrowed per request; typed for the schema
    lookup_field = "name"
    lookup_value_regex = r"[^/]+"

    def get_queryset(self) -> Any:
        return Project.objects.visible_to(self.request.user)

    def get_object(self) -> Project:
        return visible_project(self.request.user, self.kwargs["name"])

    def project_body(self, project: Project) -> dict[str, Any]:
        return ProjectSerializer(describe([project], self.request.user)[0]).data

    @extend_schema(
        parameters=[OpenApiParameter("state", str, enum=ProjectState.values, description="active or archived")],
        responses=ProjectSerializer(many=True),
    )
    def list(self, request: Request) -> Response:
        projects = self.get_queryset()
        state = state_filter(request)
        if state:
            projects = projects.filter(state=state)
        page = self.paginate_queryset(projects)
        return self.get_paginated_response(ProjectSerializer(describe(page, request.user), many=True).data)

    @extend_schema(
        request=ProjectCreateSerializer,
        responses={201: ProjectCreatedSerializer, 409: error_response("a project has this name")},
        examples=[CREATE_EXAMPLE],
        description="Onboard a project with its members and grants in one step. Any signed-in user may; "
        "the caller joins as an owner unless listed or a platform admin. A grant the auto-approve limit or "
        "the region's headroom does not cover becomes a pending quota request (`pending_requests`).",
    )
    def create(self, request: Request) -> Response:
        payload = ProjectCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        project = describe([onboard_project(payload.draft(), actor=request.user)], request.user)[0]
        project.pending_requests = list(
            project.quota_requests.filter(state=QuotaRequestState.PENDING).select_related("requested_by")
        )
        location = reverse("api:project-detail", kwargs={"name": project.name}, request=request)
        return Response(
            ProjectCreatedSerializer(project).data, status=status.HTTP_201_CREATED, headers={"Location": location}
        )

    @extend_schema(responses=ProjectSerializer)
    def retrieve(self, request: Request, name: str) -> Response:
        return Response(self.project_body(self.get_object()))

    @extend_schema(
        request=ProjectPatchSerializer,
        responses={200: ProjectSerializer, **WRITE_REFUSALS},
        examples=[PATCH_EXAMPLE],
        description="Owners and platform admins change the display name, team, cost center and description; "
        "only platform admins the Pod Security level. All of the body applies, or none of it.",
    )
    def partial_update(self, request: Request, name: str) -> Response:
        project = self.get_object()
        require_role(project, request.user)  # authorization first: a viewer's bad body is a 403, not a 400
        payload = ProjectPatchSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        changes: dict[str, Any] = dict(payload.validated_data)
        level = changes.pop("pod_security", None)
        with transaction.atomic():
            if changes or level is None:
                project = update_project(project, changes, actor=request.user)
            if level is not None:
                project = set_pod_security(project, level, actor=request.user)
        return Response(self.project_body(project))

    @extend_schema(
        request=None,
        responses={200: ProjectSerializer, **WRITE_REFUSALS},
        description="Archive a project whose workloads are gone (owners and platform admins): its grants are "
        "released, pending requests rejected, and its namespaces removed from the clusters.",
    )
    @action(detail=True, methods=["post"], url_path="archive", url_name="archive")
    def archive(self, request: Request, name: str) -> Response:
        project = archive_project(self.get_object(), actor=request.user)
        return Response(self.project_body(project))
