"""The operations endpoints (pause, resume, stop, start, restart, restart-container, scale): one view each, with its
own schema entry, over ``workloads.services.operate_workload``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer

from workloads import services
from workloads.api.common import ApiView, answer, if_match, input_of, may_write
from workloads.api.schema import ETAG, IF_MATCH, KIND_PARAM, NAME_PARAM, PROJECT_PARAM, WORKLOAD_EXAMPLE, error_codes
from workloads.api.serializers import (
    NoInputSerializer,
    RestartContainerSerializer,
    ScaleSerializer,
    WorkloadSerializer,
)
from workloads.lookup import find_workload

# --- operations -------------------------------------------------------------------------------------------

_DESCRIPTIONS = {
    "pause": "Scale every shard to zero pods; the spec and placement are kept.",
    "resume": "Undo a pause.",
    "stop": "Remove the workload's pods on every cluster (a PinPod or job stops running).",
    "start": "Undo a stop.",
    "restart": "Restart every pod of the workload, on every cluster (a rolling restart where the kind rolls).",
    "restart-container": "Restart one container, in every pod or in the one `pod` names.",
    "scale": "Set the number of replicas (scalable kinds: the quota check applies to a scale-up).",
}
# Each operation's body; the others take none (no body, or {}: NoInputSerializer), so a field is a 400 naming it.
_BODIES: dict[str, type[Serializer]] = {"scale": ScaleSerializer, "restart-container": RestartContainerSerializer}
_BODY_EXAMPLES = {
    "scale": [OpenApiExample("Three replicas", value={"replicas": 3}, request_only=True)],
    "restart-container": [
        OpenApiExample(
            "One container of one pod", value={"container": "app", "pod": "web-7d9f-abcde"}, request_only=True
        )
    ],
}


class OperationView(ApiView):
    operation = ""

    def run(self, request: Request, project: str, kind: str, name: str) -> Response:
        found = find_workload(request.user, project, kind, name)
        may_write(request, found.project)
        body = input_of(request, _BODIES.get(self.operation, NoInputSerializer))
        outcome = services.operate_workload(
            found.project, found.kind, found.name, self.operation, actor=request.user, version=if_match(request), **body
        )
        return answer(outcome.obj, found.project)


def operation_view(operation: str) -> Any:
    """The view of one operation, with its own schema entry (body, examples, description)."""
    schema = extend_schema(
        operation_id=f"workloads_{operation.replace('-', '_')}",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, IF_MATCH, ETAG],
        request=_BODIES.get(operation, NoInputSerializer),
        responses={200: WorkloadSerializer, **error_codes(400, 401, 403, 404, 409, 429, 503)},
        examples=[*_BODY_EXAMPLES.get(operation, []), WORKLOAD_EXAMPLE],
        description=_DESCRIPTIONS[operation] + " Viewers are refused (403).",
        tags=["operations"],
    )

    def post(self: OperationView, request: Request, project: str, kind: str, name: str) -> Response:
        return self.run(request, project, kind, name)

    title = "".join(part.capitalize() for part in operation.split("-")) + "OperationView"
    return type(title, (OperationView,), {"operation": operation, "post": schema(post)})


OPERATION_VIEWS = {operation: operation_view(operation) for operation in services.OPERATIONS}
