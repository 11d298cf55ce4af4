"""``/api/v1/projects/<project>/pods/<cluster>/<pod>/``: where to debug a pod, for the CLI and SDK.

Answers the websocket URLs of the pod's shell and log streams, per container (``debugging.routing``), after
the same check the consumers make at connect time (``debugging.authz.resolve_pod``): the pod must be in the
member cluster's watch cache, in the namespace of a project the caller can see (404 otherwise, whoever's it
is); a viewer gets the log streams and no shell (``shell`` is null, ``canExec`` false).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from base.api_schema import error_response
from base.throttling import api_throttles
from debugging.authz import resolve_pod
from projects.access import visible_project


class ContainerStreamsSerializer(serializers.Serializer):
    name = serializers.CharField()
    shell = serializers.CharField(allow_null=True, help_text="the terminal's websocket; null for viewers")
    logs = serializers.CharField(help_text="the container's log stream (websocket; ?follow, ?tail, ?previous)")


class PodDebugSerializer(serializers.Serializer):
    project = serializers.CharField()
    cluster = serializers.CharField()
    namespace = serializers.CharField()
    pod = serializers.CharField()
    phase = serializers.CharField(allow_blank=True)
    canExec = serializers.BooleanField()
    containers = ContainerStreamsSerializer(many=True)


EXAMPLE = {
    "project": "ads",
    "cluster": "member-a",
    "namespace": "proj-ads",
    "pod": "web-local-1a-7d9f-abcde",
    "phase": "Running",
    "canExec": True,
    "containers": [
        {
            "name": "app",
            "shell": "wss://portal.example.com/ws/exec/member-a/proj-ads/web-local-1a-7d9f-abcde/app/",
            "logs": "wss://portal.example.com/ws/logs/member-a/proj-ads/web-local-1a-7d9f-abcde/app/",
        }
    ],
}


def websocket_base(request: Request) -> str:
    return f"{'wss' if request.is_secure() else 'ws'}://{request.get_host()}"


class PodDebugView(APIView):
    throttle_classes = api_throttles()

    @extend_schema(
        operation_id="project_pod_debug",
        parameters=[
            OpenApiParameter("project", str, OpenApiParameter.PATH),
            OpenApiParameter("cluster", str, OpenApiParameter.PATH, description="the member cluster"),
            OpenApiParameter("pod", str, OpenApiParameter.PATH),
        ],
        responses={
            200: PodDebugSerializer,
            401: error_response("no session or token"),
            404: error_response("no such pod in the project's namespace, or another tenant's"),
            429: error_response("over the per-user rate (Retry-After)"),
        },
        examples=[OpenApiExample("A pod with one container", value=EXAMPLE, response_only=True)],
        description="The websocket URLs of the pod's shell and log streams, per container. Connecting authorizes "
        "again (the same rules: viewers may stream logs, not open a shell).",
        tags=["debugging"],
    )
    def get(self, request: Request, project: str, cluster: str, pod: str) -> Response:
        found = visible_project(request.user, project)
        ref = resolve_pod(request.user, cluster, found.namespace, pod)
        base = f"{websocket_base(request)}/ws"
        where = f"{ref.cluster.name}/{ref.namespace}/{ref.name}"
        body = {
            "project": found.name,
            "cluster": ref.cluster.name,
            "namespace": ref.namespace,
            "pod": ref.name,
            "phase": str(ref.phase or ""),
            "canExec": ref.can_exec,
            "containers": [
                {
                    "name": container,
                    "shell": f"{base}/exec/{where}/{container}/" if ref.can_exec else None,
                    "logs": f"{base}/logs/{where}/{container}/",
                }
                for container in ref.containers
            ],
        }
        return Response(PodDebugSerializer(body).data)
