"""``/api/v1/projects/<project>/logs/archive/``: archived lines of the project's pods, live and gone, for the CLI.

The same service as the page (``debugging.logs.archive``): the project scope is the authorized project's, added
outside anything the query string says; a project the caller cannot see is a 404.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from base.api_schema import error_response
from base.throttling import api_throttles
from debugging.logs.archive import DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, MAX_QUERY, read_archive_page

QUERY_PARAMS = (
    "workload", "pod", "container", "cluster", "since", "until", "q", "regex", "source", "stream", "order", "limit",
    "offset",
)  # fmt: skip


class ArchivedLineSerializer(serializers.Serializer):
    time = serializers.CharField(help_text="RFC 3339, UTC")
    cluster = serializers.CharField()
    pod = serializers.CharField()
    container = serializers.CharField()
    source = serializers.CharField(help_text='"console", or the declared log file\'s path')
    stream = serializers.CharField(allow_blank=True, help_text="stdout or stderr (console lines)")
    message = serializers.CharField(allow_blank=True)


class NextPageSerializer(serializers.Serializer):
    until = serializers.CharField(help_text="the window's end, held for every page (RFC 3339)")
    offset = serializers.CharField(help_text="lines to skip")


class ArchivedLogsSerializer(serializers.Serializer):
    project = serializers.CharField()
    limit = serializers.IntegerField()
    order = serializers.ChoiceField(choices=["newest", "oldest"])
    lines = ArchivedLineSerializer(many=True, help_text="newest first (order=oldest: oldest first)")
    next = NextPageSerializer(
        allow_null=True, help_text="the parameters that read the next page (with this request's others); null: last"
    )


def _param(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(name, str, OpenApiParameter.QUERY, required=False, description=description)


class ArchivedLogsView(APIView):
    throttle_classes = api_throttles()

    @extend_schema(
        operation_id="project_logs_archive",
        parameters=[
            OpenApiParameter("project", str, OpenApiParameter.PATH),
            _param("workload", "only this workload's pods"),
            _param("pod", "only this pod (it may be gone)"),
            _param("container", "only this container"),
            _param("cluster", "only this member cluster"),
            _param("since", "a duration before now (30m, 2h, 7d) or an RFC 3339 time"),
            _param("until", "a duration before now or an RFC 3339 time (exclusive)"),
            _param("q", f"a phrase to find (at most {MAX_QUERY} characters; matched as text, never as LogsQL)"),
            _param("regex", f"a regular expression the line matches (RE2 syntax, at most {MAX_QUERY} characters)"),
            _param("source", "console, or a declared log file's path"),
            OpenApiParameter("stream", str, enum=["stdout", "stderr"], required=False, description="console lines"),
            OpenApiParameter("order", str, enum=["newest", "oldest"], required=False, description="newest first"),
            OpenApiParameter(
                "limit", int, OpenApiParameter.QUERY, required=False, description=f"1-{MAX_LIMIT}, {DEFAULT_LIMIT}"
            ),
            OpenApiParameter(
                "offset", int, OpenApiParameter.QUERY, required=False, description=f"0-{MAX_OFFSET}: paging (next)"
            ),
        ],
        responses={
            200: ArchivedLogsSerializer,
            400: error_response("a bad parameter (named in fields)"),
            401: error_response("no session or token"),
            404: error_response("no such project, or another tenant's"),
            429: error_response("over the per-user rate (Retry-After)"),
            503: error_response("the log archive is down or not configured (Retry-After)"),
        },
        description="The matching lines of the project's pods from the log archive, pods that are gone included "
        "(failed, deleted, scaled down), newest first or oldest first, a page at a time: `next` holds the "
        "parameters of the next page of the same window.",
        tags=["debugging"],
    )
    def get(self, request: Request, project: str) -> Response:
        params = {k: str(request.query_params.get(k, "")) for k in QUERY_PARAMS}
        page = read_archive_page(request.user, project, params)
        body = {
            "project": page.project.name,
            "limit": page.query.limit,
            "order": page.query.order,
            "lines": [line.__dict__ for line in page.lines],
            "next": page.next,
        }
        return Response(ArchivedLogsSerializer(body).data)
