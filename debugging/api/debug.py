"""``/api/v1/projects/<project>/pods/<cluster>/<pod>/debug/``: debug containers, for the CLI and SDK.

``POST`` with ``{"container": target, "image": image}`` (both optional: the pod's first own container, the
allowlist's first image) starts one (``debugging.debug_containers``; 201); ``GET .../debug/<name>/`` answers its
state. Once ``state`` is ``running``, ``shell`` is the terminal's websocket into it (the exec consumer's, audited and
recorded like any shell).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from base.api import StrictInput
from base.api_schema import error_response
from base.throttling import api_throttles
from debugging import services
from debugging.api.pods import websocket_base
from debugging.authz import PodRef, resolve_pod
from debugging.debug_containers import DebugContainer, find_debug_container
from projects.access import visible_project


class DebugRequestSerializer(StrictInput):
    container = serializers.CharField(required=False, allow_blank=True, max_length=253, help_text="the target")
    image = serializers.CharField(required=False, allow_blank=True, max_length=512, help_text="an allowed image")


class DebugContainerSerializer(serializers.Serializer):
    name = serializers.CharField()
    target = serializers.CharField(help_text="the container whose process namespace it joins")
    image = serializers.CharField()
    state = serializers.CharField(help_text="waiting, running or terminated")
    reason = serializers.CharField(allow_blank=True)
    exitCode = serializers.IntegerField(allow_null=True)
    shell = serializers.CharField(help_text="the terminal's websocket into it (once running)")
    status = serializers.CharField(help_text="this document's URL: poll it until state is running")


EXAMPLE = {
    "name": "debugger-x7k2p",
    "target": "app",
    "image": "busybox:1.37",
    "state": "waiting",
    "reason": "ContainerCreating",
    "exitCode": None,
    "shell": "wss://portal.example.com/ws/exec/member-a/proj-ads/web-7d9f-abcde/debugger-x7k2p/",
    "status": "https://portal.example.com/api/v1/projects/ads/pods/member-a/web-7d9f-abcde/debug/debugger-x7k2p/",
}
_PATH = [
    OpenApiParameter("project", str, OpenApiParameter.PATH),
    OpenApiParameter("cluster", str, OpenApiParameter.PATH, description="the member cluster"),
    OpenApiParameter("pod", str, OpenApiParameter.PATH),
]


def _body(request: Request, project: str, ref: PodRef, found: DebugContainer) -> dict[str, object]:
    where = f"{ref.cluster.name}/{ref.namespace}/{ref.name}"
    status = f"/api/v1/projects/{project}/pods/{ref.cluster.name}/{ref.name}/debug/{found.name}/"
    return {
        "name": found.name,
        "target": found.target,
        "image": found.image,
        "state": found.state,
        "reason": found.reason,
        "exitCode": found.exit_code,
        "shell": f"{websocket_base(request)}/ws/exec/{where}/{found.name}/",
        "status": request.build_absolute_uri(status),
    }


class DebugStartView(APIView):
    throttle_classes = api_throttles()

    @extend_schema(
        operation_id="project_pod_debug_start",
        parameters=_PATH,
        request=DebugRequestSerializer,
        responses={
            201: DebugContainerSerializer,
            400: error_response("the target is not one of the pod's own containers, or the image is not allowed"),
            401: error_response("no session or token"),
            403: error_response("a viewer, a read-only token, or a platform sidecar as the target"),
            404: error_response("no such pod in the project's namespace, or another tenant's"),
            409: error_response("the pod has finished"),
            422: error_response("the member cluster refused the ephemeral container (its message)"),
            503: error_response("the member cluster does not answer (Retry-After)"),
        },
        examples=[OpenApiExample("Started", value=EXAMPLE, response_only=True)],
        description="Start a debug container (an ephemeral container targeting one of the pod's containers, as "
        "`kubectl debug -it --target` does), audited. Poll `status` until `state` is `running`, then open `shell`.",
        tags=["debugging"],
    )
    def post(self, request: Request, project: str, cluster: str, pod: str) -> Response:
        found = visible_project(request.user, project)
        resolve_pod(request.user, cluster, found.namespace, pod, need_exec=True)  # who may, before what is asked
        asked = DebugRequestSerializer(data=request.data)
        asked.is_valid(raise_exception=True)
        data = asked.validated_data
        ref, started = services.start_debug_container(
            request.user,
            cluster,
            found.namespace,
            pod,
            container=data.get("container") or None,
            image=data.get("image") or None,
        )
        return Response(DebugContainerSerializer(_body(request, found.name, ref, started)).data, status=201)


class DebugContainerView(APIView):
    throttle_classes = api_throttles()

    @extend_schema(
        operation_id="project_pod_debug_container",
        parameters=[*_PATH, OpenApiParameter("name", str, OpenApiParameter.PATH, description="the debug container")],
        responses={
            200: DebugContainerSerializer,
            401: error_response("no session or token"),
            403: error_response("a viewer or a read-only token"),
            404: error_response("no such pod or debug container, or another tenant's"),
        },
        examples=[OpenApiExample("Starting", value=EXAMPLE, response_only=True)],
        description="A debug container's state, from the pod's ephemeralContainerStatuses.",
        tags=["debugging"],
    )
    def get(self, request: Request, project: str, cluster: str, pod: str, name: str) -> Response:
        found = visible_project(request.user, project)
        ref, debug = find_debug_container(request.user, cluster, found.namespace, pod, name)
        return Response(DebugContainerSerializer(_body(request, found.name, ref, debug)).data)
