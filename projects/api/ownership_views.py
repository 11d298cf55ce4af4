"""``/api/v1/projects/{name}/ownership/``: every member reads the project's team, on-call contact and links; owners
and platform admins replace them (``projects.ownership``)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from base.api_schema import error_response
from pincompute.ownership import LINK_KINDS, MAX_LINKS, MAX_ONCALL, MAX_TITLE, MAX_URL, ONCALL_FORMS
from projects.access import require_role
from projects.ownership import ownership_of, set_ownership


def _links() -> Any:
    """A fresh list-of-links serializer (a field instance binds to one parent serializer)."""
    fields = {
        "kind": serializers.ChoiceField(choices=LINK_KINDS, default="other"),
        "title": serializers.CharField(max_length=MAX_TITLE),
        "url": serializers.URLField(max_length=MAX_URL, help_text="http or https, with a host, no user or password."),
    }
    return inline_serializer("OwnershipLink", fields, many=True, max_length=MAX_LINKS)


def _ownership(name: str, *, team_required: bool) -> Any:
    return inline_serializer(
        name,
        {
            "team": serializers.CharField(max_length=80, required=team_required),
            "oncall": serializers.CharField(
                max_length=MAX_ONCALL, allow_blank=True, help_text=f"Give {ONCALL_FORMS}; empty for none."
            ),
            "links": _links(),
        },
    )


OWNERSHIP = _ownership("ProjectOwnership", team_required=True)
OWNERSHIP_BODY = _ownership("ProjectOwnershipInput", team_required=False)
EXAMPLE = OpenApiExample(
    "A pager, the repository and the runbook",
    request_only=True,
    value={
        "team": "ads",
        "oncall": "https://pager.example.com/schedules/ads",
        "links": [
            {"kind": "repository", "title": "ads-ranking", "url": "https://git.example.com/ads/ranking"},
            {"kind": "runbook", "title": "Runbook", "url": "https://wiki.example.com/ads/runbook"},
        ],
    },
)


class ProjectOwnershipMixin:
    """Mixed into ``ProjectViewSet``: ``get_object`` is the project the caller can see."""

    get_object: Any

    @extend_schema(methods=["GET"], responses=OWNERSHIP, description="The project's team, on-call contact and links.")
    @extend_schema(
        methods=["PUT"],
        request=OWNERSHIP_BODY,
        responses={
            200: OWNERSHIP,
            403: error_response("owners and platform admins only"),
            409: error_response("the project is archived"),
        },
        examples=[EXAMPLE],
        description="Replace the on-call contact and the links, and the team when given (owners and platform "
        f"admins). At most {MAX_LINKS} links. Workloads without their own show these.",
    )
    @action(detail=True, methods=["get", "put"], url_path="ownership", url_name="ownership")
    def ownership(self, request: Request, name: str) -> Response:
        project = self.get_object()
        if request.method == "PUT":
            require_role(project, request.user)  # authorization first: a viewer's bad body is a 403
            return Response(set_ownership(project, request.data, actor=request.user).body())
        return Response(ownership_of(project).body())
