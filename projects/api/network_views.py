"""``/api/v1/projects/{name}/network/``: every member reads the project's network openings and what its
NetworkPolicies admit; owners and platform admins replace the openings (``projects.network``)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from base.api_schema import error_response
from base.errors import Invalid
from projects.access import require_role
from projects.network import PROTOCOLS, set_openings
from projects.network_plan import network_view


def _openings() -> Any:
    """A fresh list-of-openings serializer (a field instance binds to one parent serializer)."""
    fields = {
        "port": serializers.IntegerField(min_value=1, max_value=65535),
        "protocol": serializers.ChoiceField(choices=PROTOCOLS, default="TCP"),
        "projects": serializers.ListField(child=serializers.CharField(), required=False),
        "ingress": serializers.BooleanField(required=False, default=False),
    }
    return inline_serializer("NetworkOpening", fields, many=True)


NETWORK = inline_serializer(
    "ProjectNetwork",
    {
        "openings": _openings(),
        "policies": inline_serializer(
            "NetworkPolicyView",
            {"name": serializers.CharField(), "admits": serializers.ListField(child=serializers.CharField())},
            many=True,
        ),
        "platform_namespaces": serializers.ListField(child=serializers.CharField()),
        "ingress_namespaces": serializers.ListField(child=serializers.CharField()),
    },
)
OPENINGS_BODY = inline_serializer("ProjectNetworkOpenings", {"openings": _openings()})
EXAMPLE = OpenApiExample(
    "Open 8080 to a project and 443 to the ingress",
    request_only=True,
    value={
        "openings": [
            {"port": 8080, "protocol": "TCP", "projects": ["payments"]},
            {"port": 443, "protocol": "TCP", "ingress": True},
        ]
    },
)


class ProjectNetworkMixin:
    """Mixed into ``ProjectViewSet``: ``get_object`` is the project the caller can see."""

    get_object: Any

    @extend_schema(
        methods=["GET"],
        responses=NETWORK,
        description="The project's openings and what each of its NetworkPolicies admits on every member.",
    )
    @extend_schema(
        methods=["PUT"],
        request=OPENINGS_BODY,
        responses={
            200: NETWORK,
            403: error_response("owners and platform admins only"),
            409: error_response("the project is archived"),
        },
        examples=[EXAMPLE],
        description="Replace the openings (owners and platform admins): each admits a port from named projects "
        "and/or from the ingress controller's namespaces. Every member's policies follow.",
    )
    @action(detail=True, methods=["get", "put"], url_path="network", url_name="network")
    def network(self, request: Request, name: str) -> Response:
        project = self.get_object()
        if request.method == "PUT":
            require_role(project, request.user)  # authorization first: a viewer's bad body is a 403
            body = request.data if isinstance(request.data, dict) else None
            if body is None or "openings" not in body:
                raise Invalid.on("openings", 'Give {"openings": [...]}.')
            set_openings(project, body["openings"], actor=request.user)
            project.refresh_from_db()
        return Response(network_view(project))
