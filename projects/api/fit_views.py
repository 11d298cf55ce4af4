"""``GET /api/v1/projects/{name}/quota/fit/``: per tier and member cluster, the largest pod request the project could
run now (``projects.fit_now``). Every member of the project reads it; another tenant's project is a 404."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from pincompute.grants import Allocation
from pincompute.largest_fit import RESOURCES, LargestFit
from pincompute.quantity import Resources, format_amount
from projects.fit_now import FitNow, fit_now


def _amounts(name: str, nullable: bool = False) -> Any:
    fields = {"cpu_milli": serializers.IntegerField(), "memory_bytes": serializers.IntegerField()}
    fields["gpu"] = serializers.IntegerField()
    fields["text"] = serializers.DictField(child=serializers.CharField(), help_text="cpu, memory, gpu as quantities")
    return inline_serializer(name, fields, allow_null=nullable)


FIT = inline_serializer(
    "ProjectQuotaFit",
    {
        "platform": _amounts("ProjectQuotaFitPlatform"),
        "problems": serializers.ListField(child=serializers.CharField()),
        "tiers": inline_serializer(
            "ProjectQuotaFitTier",
            {
                "tier": serializers.CharField(),
                "grant_left": _amounts("ProjectQuotaFitGrantLeft"),
                "pods_left": serializers.IntegerField(),
                "clusters": inline_serializer(
                    "ProjectQuotaFitCluster",
                    {
                        "cluster": serializers.CharField(),
                        "fits": serializers.BooleanField(),
                        "largest": _amounts("ProjectQuotaFitLargest", nullable=True),
                        "bounds": serializers.DictField(child=serializers.ListField(child=serializers.CharField())),
                        "joint": _amounts("ProjectQuotaFitJoint", nullable=True),
                        "pool_free": _amounts("ProjectQuotaFitPoolFree"),
                        "node_free": _amounts("ProjectQuotaFitNodeFree"),
                        "reasons": serializers.ListField(child=serializers.CharField()),
                        "summary": serializers.CharField(),
                    },
                    many=True,
                ),
            },
            many=True,
        ),
    },
)


def amounts(resources: Resources) -> dict[str, Any]:
    values = resources.amounts()
    text = {r: format_amount(r, a) for r, a in values.items()}
    return {"cpu_milli": values["cpu"], "memory_bytes": values["memory"], "gpu": values["gpu"], "text": text}


def _cluster(fit: LargestFit) -> dict[str, Any]:
    largest = None
    if fit.fits_any:
        largest = amounts(Resources(*(int(fit.largest[r] or 0) for r in RESOURCES)))
    return {
        "cluster": fit.cluster,
        "fits": fit.fits_any,
        "largest": largest,
        "bounds": {r: list(fit.bounds[r]) for r in RESOURCES},
        "joint": amounts(fit.joint) if fit.joint is not None else None,
        "pool_free": amounts(fit.pool_free),
        "node_free": amounts(fit.node_free),
        "reasons": list(fit.reasons),
        "summary": fit.describe(),
    }


def fit_body(fit: FitNow) -> dict[str, Any]:
    """``fit_now`` as the API answers it: raw units (millicores, bytes, GPUs) and the same as quantities."""

    def left(grant: Allocation) -> dict[str, Any]:
        return amounts(grant.resources.clamp_min_zero())

    return {
        "platform": amounts(fit.platform),
        "problems": list(fit.problems),
        "tiers": [
            {
                "tier": t.tier.label,
                "grant_left": left(t.grant_left),
                "pods_left": max(t.grant_left.pods, 0),
                "clusters": [_cluster(c) for c in t.clusters],
            }
            for t in fit.tiers
        ],
    }


class ProjectFitMixin:
    """Mixed into ``ProjectViewSet``: ``get_object`` is the project the caller can see."""

    get_object: Any

    @extend_schema(
        responses=FIT,
        description="Per tier and member cluster, the largest single pod request the project could run now: "
        "admitted by what is left of its grant, placed by the federation on that member and taken by one of its "
        "nodes without preempting anyone. Per resource (the others at the platform's own containers, which every "
        "answer includes: `platform`), with the limits that bound it, and `joint`: cpu and memory together (memory "
        "growing with cpu in the grant's shape), which one node takes at once. Every member reads it.",
    )
    @action(detail=True, methods=["get"], url_path="quota/fit", url_name="quota-fit")
    def quota_fit(self, request: Request, name: str) -> Response:
        return Response(fit_body(fit_now(self.get_object())))
