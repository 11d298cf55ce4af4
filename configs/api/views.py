"""``/api/v1/projects/{project}/secrets/`` and ``/configmaps/``: every member lists the names; developers, owners and
platform admins create, edit and delete, and see a Secret's keys (set or unset), version and last writer. A Secret's
values are write-only: no answer carries them. Thin over ``configs.services``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ClassVar

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from base.api_schema import error_response
from base.throttling import api_throttles
from configs import services
from configs.api.serializers import ConfigSummarySerializer, CreateSerializer, UpdateSerializer, summary_body
from pincompute.configs import ConfigKind
from projects.access import require_role, visible_project

REFUSALS = {
    400: error_response("a bad name, key or body, or over the size limit (the error body names the field)"),
    403: error_response("viewers may not write, nor read a Secret's keys"),
    404: error_response("no such project (or another tenant's) or object"),
    409: error_response("the name is taken, the version changed, or the project is archived"),
}


class _KindMixin:
    kind: ClassVar[ConfigKind]


class ConfigListView(_KindMixin, APIView):
    throttle_classes = api_throttles()

    def get(self, request: Request, project: str) -> Response:
        found = visible_project(request.user, project)
        listing = services.list_configs(found, self.kind, actor=request.user)
        return Response([summary_body(item, details=listing.details) for item in listing.items])

    def post(self, request: Request, project: str) -> Response:
        found = visible_project(request.user, project)
        require_role(found, request.user, services.WRITERS)  # authorization before the body
        payload = CreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        name = payload.validated_data["name"]
        services.create_config(found, self.kind, name, payload.validated_data["data"], actor=request.user)
        item = services.get_config(found, self.kind, name, actor=request.user)
        return Response(summary_body(item, details=True), status=status.HTTP_201_CREATED)


class ConfigDetailView(_KindMixin, APIView):
    throttle_classes = api_throttles()

    def _body(self, request: Request, found: Any, name: str) -> dict[str, Any]:
        item = services.get_config(found, self.kind, name, actor=request.user)
        data = services.configmap_values(found, name, actor=request.user) if self.kind == "ConfigMap" else None
        return summary_body(item, details=True, data=data)

    def get(self, request: Request, project: str, name: str) -> Response:
        return Response(self._body(request, visible_project(request.user, project), name))

    def put(self, request: Request, project: str, name: str) -> Response:
        found = visible_project(request.user, project)
        require_role(found, request.user, services.WRITERS)
        payload = UpdateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        got = payload.validated_data
        services.update_config(
            found,
            self.kind,
            name,
            got["data"],
            remove=got["remove"],
            version=got.get("version"),
            actor=request.user,
        )
        return Response(self._body(request, found, name))

    def delete(self, request: Request, project: str, name: str) -> Response:
        services.delete_config(visible_project(request.user, project), self.kind, name, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _own(fn: Callable[..., Response], operation: str, request: Any, responses: Any, text: str) -> Any:
    """A copy of the view method ``fn`` with its own OpenAPI operation (the Secret and ConfigMap views share ``fn``)."""

    @functools.wraps(fn)
    def method(self: APIView, *args: Any, **kwargs: Any) -> Response:
        return fn(self, *args, **kwargs)

    return extend_schema(
        operation_id=operation, request=request, responses=responses, description=text, tags=["configs"]
    )(method)


def _documented(kind: ConfigKind, base: type[APIView], plural: str) -> type[APIView]:
    """``base`` for ``kind``, with its OpenAPI operations named and described."""
    words = "values are write-only: never shown again" if kind == "Secret" else "values are readable by every member"
    view: type[APIView] = type(f"{kind}{base.__name__}", (base,), {"kind": kind})
    for method, (op, request, responses, text) in {
        "get": (
            "list" if base is ConfigListView else "retrieve",
            None,
            ConfigSummarySerializer(many=base is ConfigListView),
            f"The project's {plural} ({words}).",
        ),
        "post": ("create", CreateSerializer, {201: ConfigSummarySerializer, **REFUSALS}, f"Create a {kind}."),
        "put": ("update", UpdateSerializer, {200: ConfigSummarySerializer, **REFUSALS}, "Set and remove keys."),
        "delete": ("destroy", None, {204: None, **REFUSALS}, f"Delete the {kind}."),
    }.items():
        if hasattr(view, method):
            setattr(view, method, _own(getattr(base, method), f"project_{plural}_{op}", request, responses, text))
    return view


SecretListView = _documented("Secret", ConfigListView, "secrets")
SecretDetailView = _documented("Secret", ConfigDetailView, "secrets")
ConfigMapListView = _documented("ConfigMap", ConfigListView, "configmaps")
ConfigMapDetailView = _documented("ConfigMap", ConfigDetailView, "configmaps")
