"""``/api/v1/projects/{name}/policy/`` (every member reads, platform admins replace) and
``/api/v1/policy-defaults/`` (platform admins: the policy new projects start with). The service
(``projects.policy``) checks every value; the serializers state the body's shape and refuse unknown fields."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from base.api import StrictInput
from base.api_schema import error_response
from pincompute.kinds import KINDS
from pincompute.tiers import Tier
from projects.access import require_platform_admin
from projects.api.fields import QuantityField, named_choice
from projects.policy import (
    read_policy_defaults,
    read_project_policy,
    require_policy_writer,
    set_policy_defaults,
    set_project_policy,
)

_UNSET = "null: no restriction."
PolicyKindField = named_choice("PolicyKind", sorted(KINDS), "A workload kind (its value checked by the service).")
PolicyTierField = named_choice("PolicyTier", [t.value for t in Tier], "A tier as spec.tier spells it.")


class MaxPerContainerSerializer(StrictInput):
    cpu = QuantityField(
        required=False, allow_null=True, help_text="Most CPU one container may request or be limited to."
    )
    memory = QuantityField(required=False, allow_null=True, help_text="Most memory, as a quantity (8Gi).")
    gpu = QuantityField(required=False, allow_null=True, help_text="Most nvidia.com/gpu, a whole number.")


class PolicySerializer(StrictInput):
    allowedKinds = serializers.ListField(child=PolicyKindField(), allow_null=True, required=False, help_text=_UNSET)
    allowedTiers = serializers.ListField(
        child=PolicyTierField(),
        allow_null=True,
        required=False,
        help_text=_UNSET,
    )
    imageRegistries = serializers.ListField(
        child=serializers.CharField(max_length=253),
        allow_null=True,
        required=False,
        max_length=50,
        help_text="Registry hosts or path prefixes (ghcr.io/acme); an image without a registry is docker.io's. "
        + _UNSET,
    )
    maxPerContainer = MaxPerContainerSerializer(required=False, allow_null=True, help_text=_UNSET)
    sidecarExec = serializers.BooleanField(
        required=False, help_text="Whether a time-limited sidecar-exec grant opens the platform's sidecars."
    )
    notifyOnShell = serializers.BooleanField(
        required=False, help_text="Tell the owners whenever a shell is opened in the project."
    )


EXAMPLE = OpenApiExample(
    "Apps and pods only, from two registries, at most 4 CPU and 8Gi per container",
    value={
        "allowedKinds": ["PinApp", "PinPod"],
        "allowedTiers": None,
        "imageRegistries": ["registry.local", "ghcr.io/acme"],
        "maxPerContainer": {"cpu": "4", "memory": "8Gi"},
        "sidecarExec": False,
        "notifyOnShell": True,
    },
)


def _body(request: Request) -> Any:
    """The body's shape checked (unknown fields, types); its values are the service's to judge."""
    PolicySerializer(data=request.data).is_valid(raise_exception=True)
    return request.data


class ProjectPolicyMixin:
    """Mixed into ``ProjectViewSet``: ``get_object`` is the project the caller can see."""

    get_object: Any

    @extend_schema(methods=["GET"], responses=PolicySerializer, description="The project's policy (every member).")
    @extend_schema(
        methods=["PUT"],
        request=PolicySerializer,
        responses={
            200: PolicySerializer,
            403: error_response("platform admins only"),
            409: error_response("the project is archived"),
        },
        examples=[EXAMPLE],
        description="Replace the project's policy (platform admins; an absent field is left open). Submission and "
        "the host's admission refuse what it does not allow, naming the field and the rule.",
    )
    @action(detail=True, methods=["get", "put"], url_path="policy", url_name="policy")
    def policy(self, request: Request, name: str) -> Response:
        project = self.get_object()
        if request.method == "PUT":
            require_policy_writer(project, request.user)  # authorization first: a member's bad body is a 403
            project = set_project_policy(project, _body(request), actor=request.user)
        return Response(read_project_policy(project, actor=request.user))


class PolicyDefaultsView(APIView):
    @extend_schema(responses={200: PolicySerializer, 403: error_response("platform admins only")})
    def get(self, request: Request) -> Response:
        return Response(read_policy_defaults(actor=request.user))

    @extend_schema(
        request=PolicySerializer,
        responses={200: PolicySerializer, 403: error_response("platform admins only")},
        examples=[EXAMPLE],
        description="Replace the policy new projects start with (platform admins); existing projects keep theirs.",
    )
    def put(self, request: Request) -> Response:
        require_platform_admin(request.user, "change the policy defaults")
        return Response(set_policy_defaults(_body(request), actor=request.user))
