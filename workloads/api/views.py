"""The Compute API's workload endpoints (list, create, read, replace, patch, delete): thin views over the services
the pages call. The operations are ``workloads.api.operations``, the insights ``workloads.api.insights``; what they
share is ``workloads.api.common``, their OpenAPI description ``workloads.api.schema``.

- Reads come from the watch caches (``workloads.lookup.find_workload``, ``workloads.paging.workload_page``,
  ``workloads.timeline.timeline``), never a LIST per request.
- Writes go through ``workloads.services`` (``submit_workload``, ``operate_workload``, ``delete_workload``:
  authorize, validate, check the grant, write conditionally, audit). Another tenant's project or workload is a
  404, a viewer's write a 403.
- Every workload answer carries ``version`` and an ``ETag``; ``If-Match`` makes PUT, PATCH, DELETE and the
  operations conditional: a stale one is a 409 naming the version sent and the live one.
- Per-user rate limits (``base.throttling``): reads and writes apart, 429 with ``Retry-After``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse

from base.errors import Invalid, NotFound
from projects.access import visible_project
from workloads import host, services
from workloads.api import representation as rep
from workloads.api.common import (
    LIST_RENDERERS,
    ApiView,
    answer,
    document_of,
    dry_run_requested,
    if_match,
    if_none_match,
    may_write,
    same_object,
    workload_page,
)
from workloads.api.parsers import PATCH_PARSERS
from workloads.api.schema import (
    CREATE_ONLY,
    DOCUMENT_EXAMPLE,
    DRY_RUN,
    ETAG,
    IF_MATCH,
    IF_NONE_MATCH,
    KIND_PARAM,
    LIST_PARAMS,
    NAME_PARAM,
    PAGE_EXAMPLE,
    PATCH_EXAMPLE,
    PROJECT_PARAM,
    WORKLOAD_EXAMPLE,
    error_codes,
)
from workloads.api.serializers import (
    DocumentSerializer,
    NewDocumentSerializer,
    PatchSerializer,
    WorkloadPageSerializer,
    WorkloadSerializer,
)
from workloads.documents import editable, merge_patch
from workloads.lookup import Found, find_workload, kind_named, visible_projects


class WorkloadListView(ApiView):
    renderer_classes = LIST_RENDERERS

    @extend_schema(
        operation_id="workloads_list",
        parameters=[OpenApiParameter("project", str, description="only this project", required=False), *LIST_PARAMS],
        responses={200: WorkloadPageSerializer, **error_codes(400, 401, 429)},
        examples=[PAGE_EXAMPLE],
        description="Workloads of every project the caller can see, sorted by project, kind and name, from the "
        "host's watch cache. Follow `next` for the following page.",
        tags=["workloads"],
    )
    def get(self, request: Request) -> Response:
        return workload_page(request, visible_projects(request.user))


class ProjectWorkloadsView(ApiView):
    renderer_classes = LIST_RENDERERS

    @extend_schema(
        operation_id="project_workloads_list",
        parameters=[PROJECT_PARAM, *LIST_PARAMS],
        responses={200: WorkloadPageSerializer, **error_codes(400, 401, 404, 429)},
        examples=[PAGE_EXAMPLE],
        description="The project's workloads, from the host's watch cache.",
        tags=["workloads"],
    )
    def get(self, request: Request, project: str) -> Response:
        found = visible_project(request.user, project)
        return workload_page(request, [found], found.name)

    @extend_schema(
        operation_id="project_workloads_create",
        parameters=[PROJECT_PARAM, DRY_RUN, ETAG],
        request=NewDocumentSerializer,
        responses={201: WorkloadSerializer, 200: WorkloadSerializer, **error_codes(400, 401, 403, 404, 409, 429, 503)},
        examples=[DOCUMENT_EXAMPLE, WORKLOAD_EXAMPLE],
        description="Submit a new workload (JSON, or YAML with `Content-Type: application/yaml`): validated, "
        "checked against the project's pod security level and grant, then written to the host for the federation "
        "to admit and place. A name that exists is a 409 (update it with PUT). `dryRun=true` answers 200 with what "
        "would be written.",
        tags=["workloads"],
    )
    def post(self, request: Request, project: str) -> Response:
        found = visible_project(request.user, project)
        may_write(request, found)
        dry_run = dry_run_requested(request)
        document = document_of(request, NewDocumentSerializer)
        accepted = services.submit_workload(found, document, actor=request.user, dry_run=dry_run, create_only=True)
        if dry_run:
            return answer(accepted.manifest, found)
        args = (found.name, accepted.workload.kind, accepted.workload.meta.name)
        location = reverse("api:workload-detail", args=args, request=request)
        return answer(accepted.manifest, found, code=status.HTTP_201_CREATED, Location=location)


class WorkloadDetailView(ApiView):
    def get_parsers(self) -> list[Any]:
        if self.request is not None and self.request.method == "PATCH":
            return [parser() for parser in PATCH_PARSERS]
        return super().get_parsers()

    @extend_schema(
        operation_id="workloads_retrieve",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, IF_NONE_MATCH, ETAG],
        responses={200: WorkloadSerializer, 304: None, **error_codes(401, 404, 429, 503)},
        examples=[WORKLOAD_EXAMPLE],
        description="One workload (its `ETag` is its version; `If-None-Match` with it answers 304 when unchanged).",
        tags=["workloads"],
    )
    def get(self, request: Request, project: str, kind: str, name: str) -> Response:
        found = find_workload(request.user, project, kind, name)
        tag = rep.etag(found.version)
        if found.version and request.headers.get("If-None-Match", "").strip() == tag:
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": tag})
        return answer(found.obj, found.project)

    @extend_schema(
        operation_id="workloads_update",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, IF_MATCH, CREATE_ONLY, DRY_RUN, ETAG],
        request=DocumentSerializer,
        responses={200: WorkloadSerializer, 201: WorkloadSerializer, **error_codes(400, 401, 403, 404, 409, 429, 503)},
        examples=[DOCUMENT_EXAMPLE, WORKLOAD_EXAMPLE],
        description="Replace the workload's spec, labels and annotations with the document (created when absent: "
        "201, which makes PUT an idempotent apply). The kind and name may be left out; they must match the URL. "
        "With If-Match the workload must exist (a 409 otherwise: never re-created after a delete); with "
        "If-None-Match: * it must not (create only).",
        tags=["workloads"],
    )
    def put(self, request: Request, project: str, kind: str, name: str) -> Response:
        found = visible_project(request.user, project)
        may_write(request, found)
        document = same_object(document_of(request), kind_named(kind), name)
        dry_run = dry_run_requested(request)
        version = if_match(request)
        # If-Match (any, `*` included) holds only for a workload that exists (RFC 9110): never a re-creation of
        # one deleted meanwhile; If-None-Match: * holds only for one that does not
        must_exist = request.headers.get("If-Match") is not None
        create_only = if_none_match(request)
        if must_exist and create_only:
            raise Invalid.on("If-None-Match", "cannot hold together with If-Match: send one of them")
        accepted = services.submit_workload(
            found,
            document,
            actor=request.user,
            version=version,
            dry_run=dry_run,
            must_exist=must_exist,
            create_only=create_only,
        )
        created = accepted.created and not dry_run
        return answer(accepted.manifest, found, code=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(
        operation_id="workloads_partial_update",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, IF_MATCH, DRY_RUN, ETAG],
        request=PatchSerializer,
        responses={200: WorkloadSerializer, **error_codes(400, 401, 403, 404, 409, 429, 503)},
        examples=[PATCH_EXAMPLE, WORKLOAD_EXAMPLE],
        description="A JSON merge patch (RFC 7386) of the workload's document (`null` removes a key; lists are "
        "replaced whole), applied to the live version: a change made meanwhile is a 409, never a lost update.",
        tags=["workloads"],
    )
    def patch(self, request: Request, project: str, kind: str, name: str) -> Response:
        found = find_workload(request.user, project, kind, name)
        may_write(request, found.project)
        patch = document_of(request, PatchSerializer)
        try:
            live = host.get(found.kind, found.project.namespace, found.name)  # the write's base: the live object
        except NotFound:
            raise NotFound(f"No {found.kind} named {found.name} in project {found.project.name}.") from None
        # Conditional on If-Match when sent (a stale one is the service's 409 naming both versions), else on the
        # version the patch was applied to: a change in between is a 409, never a lost update.
        version = if_match(request) or Found(found.project, found.kind, found.name, live, found.role).version
        document = same_object(merge_patch(editable(live), patch), found.kind, found.name)
        accepted = services.submit_workload(
            found.project, document, actor=request.user, version=version or None, dry_run=dry_run_requested(request)
        )
        return answer(accepted.manifest, found.project)

    @extend_schema(
        operation_id="workloads_destroy",
        parameters=[PROJECT_PARAM, KIND_PARAM, NAME_PARAM, IF_MATCH],
        request=None,
        responses={204: None, **error_codes(400, 401, 403, 404, 409, 429, 503)},
        description="Delete the workload: the federation removes its shards from every member, then the object.",
        tags=["workloads"],
    )
    def delete(self, request: Request, project: str, kind: str, name: str) -> Response:
        found = find_workload(request.user, project, kind, name)
        services.delete_workload(found.project, found.kind, found.name, actor=request.user, version=if_match(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
