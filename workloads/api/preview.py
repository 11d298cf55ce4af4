"""``POST /api/v1/projects/<project>/workloads/preview/``: what submitting a document would do, as the catalog's and
the edit page's preview shows it, from the same service (``workloads.preview``): created, configured or unchanged, the
object the write would make beside the live one, each member cluster's objects with the injected parts named, the
placement with every cluster's filter result and score, the quota fit per tier and resource, and what submitting
would refuse. Nothing is written. Anyone who can read the project may ask; another tenant's project is a 404 before
the body is read. ``CLI``: ``pincompute apply --dry-run=server`` and ``pincompute diff``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from pincompute.federation.revisions import Change
from projects.access import visible_project
from projects.models import Project
from workloads import preview as previews
from workloads.api.common import ApiView, document_of, if_match
from workloads.api.preview_serializers import WorkloadPreviewSerializer
from workloads.api.schema import DOCUMENT_EXAMPLE, IF_MATCH, PROJECT_PARAM, error_codes
from workloads.api.serializers import NewDocumentSerializer
from workloads.preview_quota import QuotaRow

UNITS = {"cpu": "millicores", "memory": "bytes", "gpu": "GPUs", "pods": "pods"}


class WorkloadPreviewView(ApiView):
    @extend_schema(
        operation_id="workloads_preview",
        parameters=[PROJECT_PARAM, IF_MATCH],
        request=NewDocumentSerializer,
        responses={200: WorkloadPreviewSerializer, **error_codes(400, 401, 404, 429)},
        examples=[DOCUMENT_EXAMPLE],
        description="What submitting the document (as to create or PUT it) would do, and nothing is written: "
        "`action` created, configured or unchanged; `document`, the object the write would make, beside `live`; "
        "the member clusters' objects with the platform-injected parts named; the placement with every member's "
        "filter result and score; the quota fit per tier and resource; `refusal`, what submitting would refuse. "
        "An invalid spec is a 400 naming every field. Project members of any role may preview. `If-Match`: the "
        "version an edit started from (`diff.stale` says when it is not the live one).",
        tags=["workloads"],
    )
    def post(self, request: Request, project: str) -> Response:
        found = visible_project(request.user, project)  # another tenant's is a 404 before the body is read
        document = document_of(request, NewDocumentSerializer)
        shown = previews.preview(found, document, actor=request.user, version=if_match(request))
        return Response(WorkloadPreviewSerializer(preview_body(shown, found)).data)


def preview_body(shown: previews.Preview, project: Project) -> dict[str, Any]:
    """The preview as the API answers it (``WorkloadPreviewSerializer``'s shape)."""
    refusal = shown.refusal
    diff = shown.diff
    return {
        "kind": shown.workload.kind,
        "name": shown.workload.meta.name,
        "project": project.name,
        "tier": shown.workload.meta.tier.value,
        "action": shown.outcome.action,
        "refusal": None
        if refusal is None
        else {
            "status": refusal.status,
            "code": refusal.code,
            "message": refusal.message,
            "fields": [{"path": f.path, "message": f.message} for f in refusal.fields],
        },
        "problems": list(shown.problems),
        "network": shown.network,
        "document": shown.outcome.document,
        "live": shown.outcome.live_document,
        "diff": None
        if diff is None
        else {
            "version": diff.version,
            "stale": diff.stale,
            "spec": [_change(c) for c in diff.spec],
            "objects": [
                {"key": o.key, "change": o.state, "changes": [_change(c) for c in o.changes]} for o in diff.objects
            ],
        },
        "placement": {
            "shards": [
                {
                    "cluster": s.cluster,
                    "zone": s.zone,
                    "region": s.region,
                    "shardIndex": s.shard_index,
                    "shardCount": s.shard_count,
                    "replicas": s.replicas,
                }
                for s in shown.placement.shards
            ],
            "clusters": [vars(c) for c in shown.placement.clusters],
            "problem": shown.placement.problem,
            "kept": shown.placement.kept,
        },
        "clusters": [
            {
                "cluster": c.placement.cluster,
                "zone": c.placement.zone,
                "replicas": c.placement.replicas,
                "objects": [
                    {"kind": o.kind, "name": o.name, "object": o.manifest, "injected": o.injected_paths}
                    for o in c.objects
                ],
                "injection": None
                if c.report is None
                else {"added": [vars(i) for i in c.report.added], "kept": [vars(i) for i in c.report.kept]},
            }
            for c in shown.clusters
        ],
        "room": {"later": list(shown.room.later), "largest": list(shown.room.largest)} if shown.room else None,
        "quota": {
            "tier": shown.quota.tier.value,
            "verdict": shown.quota.verdict,
            "messages": list(shown.quota.messages),
            "waitingCount": shown.quota.waiting_count,
            "rows": [_row(r) for r in shown.quota.rows],
        },
    }


def _change(change: Change) -> dict[str, Any]:
    return {"path": change.path, "before": change.before, "after": change.after}


def _row(row: QuotaRow) -> dict[str, Any]:
    texts = row.texts
    return {
        "tier": row.tier.value,
        "resource": row.resource,
        "unit": UNITS[row.resource],
        "admitted": row.held,
        "waiting": row.waiting,
        "this": row.this,
        "granted": None if row.uncapped else row.granted,
        "over": row.over,
        "text": {"admitted": texts["held"], **{k: texts[k] for k in ("waiting", "this", "granted")}},
    }
