"""Why a workload is not running (``GET .../diagnosis/``) and going back to a revision (``POST .../rollback/``):
thin views over ``workloads.diagnosis`` and ``workloads.rollback``."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from workloads.api import representation as rep
from workloads.api.common import ApiView, if_match, input_of, may_write
from workloads.api.schema import ETAG, IF_MATCH, KIND_PARAM, NAME_PARAM, PROJECT_PARAM, error_codes
from workloads.api.serializers import DiagnosisSerializer, RollbackInputSerializer, RollbackSerializer
from workloads.diagnosis import diagnosis_of
from workloads.lookup import find_workload
from workloads.rollback import rollback_workload

DIAGNOSIS_EXAMPLE = OpenApiExample(
    "Waiting for quota",
    value={
        "state": "WaitingForQuota",
        "severity": "waiting",
        "cause": "Waiting for quota: OnDemand cpu 12 of 12 used by payments-api, search-indexer, this workload asks 2 "
        "(1st in the OnDemand queue).",
        "nextStep": "Free room in the project's OnDemand grant (stop or scale down what holds it) or ask the "
        "project's owner to raise the OnDemand quota; it starts by itself once it fits.",
        "target": "quota",
        "subject": {},
        "link": "/projects/ads/quota/",
    },
    response_only=True,
)


class WorkloadDiagnosisView(ApiView):
    @extend_schema(
        operation_id="workloads_diagnosis",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM],
        responses={200: DiagnosisSerializer, **error_codes(401, 404, 429, 503)},
        examples=[DIAGNOSIS_EXAMPLE],
        description="Why the workload is (not) running, from what the portal's caches hold: the state, the cause in "
        "one sentence with its numbers and the next step. The cause is the first that holds of: deleting, an "
        "invalid spec, a member's refusal, waiting for quota, stopped or paused, no cluster fits, an image that "
        "cannot be pulled, a container that cannot be created, a crash loop, a pod no node takes, an unreachable "
        "member, a change waiting for quota, degraded, rolling out, succeeded, running.",
        tags=["insights"],
    )
    def get(self, request: Request, project: str, kind: str, name: str) -> Response:
        found = find_workload(request.user, project, kind, name)
        return Response(DiagnosisSerializer(diagnosis_of(found.project, found.obj).as_json()).data)


class WorkloadRollbackView(ApiView):
    @extend_schema(
        operation_id="workloads_rollback",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, IF_MATCH, ETAG],
        request=RollbackInputSerializer,
        responses={200: RollbackSerializer, **error_codes(400, 401, 403, 404, 409, 429, 503)},
        examples=[OpenApiExample("Back to revision 2", value={"revision": 2}, request_only=True)],
        description="Write an earlier revision's spec back (the operations stay as they are), checked as an edit: "
        "validation, pod security and the grant (a rollback that grows past it is refused, 403). Without "
        "`revision`, the newest revision that is not current. Viewers are refused (403).",
        tags=["operations"],
    )
    def post(self, request: Request, project: str, kind: str, name: str) -> Response:
        found = find_workload(request.user, project, kind, name)
        may_write(request, found.project)
        body = input_of(request, RollbackInputSerializer)
        done = rollback_workload(
            found.project, found.kind, found.name, revision=body.get("revision"), actor=request.user,
            version=if_match(request),
        )  # fmt: skip
        workload = rep.workload(done.obj, found.project.name)
        data = {"revision": done.revision, "changed": done.changed, "workload": workload,
                "changes": [{"path": c.path, "before": c.before, "after": c.after} for c in done.changes]}  # fmt: skip
        response = Response(RollbackSerializer(data).data)
        if workload["version"]:
            response["ETag"] = rep.etag(workload["version"])
        return response
