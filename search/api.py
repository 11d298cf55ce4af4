"""``GET /api/v1/search/?q=``: the search service's ranked matches, as the page shows them."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from base.api import query_int
from base.api_schema import error_response
from base.throttling import api_throttles
from search import services


class HitSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=services.KIND_ORDER, help_text="what it is")
    name = serializers.CharField()
    where = serializers.CharField(help_text="what and where it is, in a few words")
    project = serializers.CharField(help_text="its project; empty for clusters, nodes, users and groups")
    team = serializers.CharField(help_text="a project's or a workload's owning team; empty for the rest")
    url = serializers.CharField(help_text="the portal page that shows it (a path)")
    rank = serializers.ChoiceField(choices=["exact", "prefix", "word", "within"], help_text="how the name matched")


class ResultsSerializer(serializers.Serializer):
    query = serializers.CharField()
    results = HitSerializer(many=True)
    more = serializers.BooleanField(help_text="more matched than the limit")


QUERY = OpenApiParameter(
    "q",
    {"type": "string", "minLength": 1, "maxLength": services.MAX_QUERY, "pattern": r"\S"},
    required=True,
    description=f"what to look for (1 to {services.MAX_QUERY} characters, not only spaces)",
)
LIMIT = OpenApiParameter(
    "limit",
    int,
    required=False,
    description=f"at most this many results (1 to {services.MAX_LIMIT}, default {services.DEFAULT_LIMIT})",
)


class SearchView(APIView):
    throttle_classes = api_throttles()

    @extend_schema(
        operation_id="search",
        parameters=[QUERY, LIMIT],
        responses={
            200: ResultsSerializer,
            400: error_response("q missing or too long, or a limit out of range"),
            401: error_response("no session or token"),
            429: error_response("over the per-user rate (Retry-After)"),
        },
        description=(
            "One search across what the caller may see: projects, workloads and pods of their projects, and for "
            "platform admins clusters, nodes, users, groups and audit entries. Ranked: exact name, prefix, a "
            "word's prefix, then anywhere in the name."
        ),
        tags=["search"],
    )
    def get(self, request: Request) -> Response:
        limit = query_int(request, "limit", default=services.DEFAULT_LIMIT, minimum=1, maximum=services.MAX_LIMIT)
        found = services.search(request.user, request.query_params.get("q"), limit=limit or services.DEFAULT_LIMIT)
        results = [
            {"kind": h.kind, "name": h.name, "where": h.where, "project": h.project, "team": h.team, "url": h.url,
             "rank": h.rank.name.lower()}
            for h in found.hits
        ]  # fmt: skip
        return Response(ResultsSerializer({"query": found.query, "results": results, "more": found.more}).data)
