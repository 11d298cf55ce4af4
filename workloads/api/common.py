"""What the workload, operation and insight views share: the request's conditions (If-Match, If-None-Match), flags,
bodies checked against their schema shape, the answer with its ETag, and one page of workloads from the host cache."""

from __future__ import annotations

import copy
import re
from typing import Any

from rest_framework import status
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer
from rest_framework.settings import api_settings
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from base.api import query_int
from base.errors import Invalid, NotFound
from base.throttling import api_throttles
from pincompute.errors import FieldError
from pincompute.kinds import KINDS
from pincompute.ownership import workload_ownership
from projects.access import require_role
from projects.models import Project
from projects.ownership import ownership_of
from workloads import paging
from workloads.api import representation as rep
from workloads.api.encoded import Encoded, PageJSONRenderer
from workloads.api.parsers import BODY_PARSERS
from workloads.api.schema import CURSOR_PATTERN, IF_MATCH_PATTERN, MAX_PAGE_SIZE, PAGE_SIZE
from workloads.api.serializers import (
    STATES,
    TIERS,
    VIEWS,
    DocumentSerializer,
    WorkloadSerializer,
)
from workloads.lookup import kind_named
from workloads.reads import Filters
from workloads.selectors import FIELD as SELECTOR_FIELD
from workloads.selectors import Selector, parse_selector
from workloads.submission import WRITE_ROLES

# --- helpers ----------------------------------------------------------------------------------------------


def if_match(request: Request) -> str | None:
    """The version ``If-Match`` names (``"48213"``, ``W/"48213"`` or ``48213``); None when absent or ``*``."""
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    if not re.fullmatch(IF_MATCH_PATTERN, raw.strip()):
        raise Invalid.on("If-Match", 'must be the workload\'s version (its ETag, e.g. "3"), or *')
    value = raw.strip().removeprefix("W/").strip('"')
    return None if value == "*" else value


def if_none_match(request: Request) -> bool:
    raw = request.headers.get("If-None-Match")
    if raw is None:
        return False
    if raw.strip() != "*":
        raise Invalid.on("If-None-Match", "on a PUT only * (create only) is understood")
    return True


def flag(request: Request, name: str) -> bool:
    value = str(request.query_params.get(name, "")).lower()
    if value not in ("", "true", "false", "1", "0"):
        raise Invalid.on(name, "must be true or false")
    return value in ("true", "1")


def dry_run_requested(request: Request) -> bool:
    """``dryRun``: true or false, or Kubernetes' own ``All`` (what ``kubectl --dry-run=server`` sends)."""
    value = str(request.query_params.get("dryRun", ""))
    if value not in ("", "true", "false", "1", "0", "All"):
        raise Invalid.on("dryRun", "must be true, false or All")
    return value in ("true", "1", "All")


def bounded_int(request: Request, name: str, default: int, maximum: int) -> int:
    return query_int(request, name, default=default, minimum=1, maximum=maximum) or default


def may_write(request: Request, project: Project) -> None:
    """Authorization before the body is read: a caller who may not write gets 403 whatever the body holds (a
    malformed one was a 400 first). The service authorizes again; this only puts the refusal first."""
    require_role(project, request.user, WRITE_ROLES)


def document_of(request: Request, shape: type[Serializer] = DocumentSerializer) -> dict[str, Any]:
    """The body, checked against the schema's ``shape`` of it (the service validates the kind's spec)."""
    _checked(request, shape)
    return dict(request.data)


def input_of(request: Request, shape: type[Serializer]) -> dict[str, Any]:
    """The body's values as ``shape`` reads them (defaults filled in), once it is checked against it."""
    return dict(_checked(request, shape).validated_data)


def _checked(request: Request, shape: type[Serializer]) -> Serializer:
    data = request.data
    if not isinstance(data, dict):  # no body is {} (DRF's empty data)
        raise Invalid.on("document", "must be one object (a mapping)")
    payload = shape(data=data)
    payload.is_valid(raise_exception=True)
    return payload


def ownership_body(obj: dict[str, Any], project: Project) -> dict[str, Any]:
    """The workload's team, on-call contact and links, each unset one its project's (read fresh: the project's may
    change while the object's version, which the representation is remembered by, does not)."""
    owned = workload_ownership(obj, ownership_of(project))
    return {**owned.body(), "inherited": list(owned.inherited)}


def answer(obj: dict[str, Any], project: Project, *, code: int = status.HTTP_200_OK, **headers: str) -> Response:
    body = {**WorkloadSerializer(rep.workload(obj, project.name)).data, "ownership": ownership_body(obj, project)}
    response = Response(body, status=code, headers=headers)
    if body["version"]:
        response["ETag"] = rep.etag(body["version"])
    return response


def same_object(document: dict[str, Any], kind: str, name: str) -> dict[str, Any]:
    """``document`` for the workload the URL names: its kind and name filled in when missing, refused when
    they name another."""
    document = copy.deepcopy(document)
    meta = document.get("metadata")
    if meta is None:
        meta = document["metadata"] = {}
    if not isinstance(meta, dict):
        raise Invalid.on("metadata", "must be an object")
    if document.setdefault("kind", kind) != kind:
        raise Invalid.on("kind", f"must be {kind}, the kind the URL names")
    if meta.setdefault("name", name) != name:
        raise Invalid.on("metadata.name", f"must be {name}, the name the URL names")
    return document


def _encode_cursor(key: tuple[str, str, str]) -> str:
    return "/".join(key)


def _decode_cursor(raw: str) -> tuple[str, str, str]:
    """A position in the list's order (project, kind, name): any such triple is one, whether listed or not."""
    if not re.match(CURSOR_PATTERN, raw):
        raise Invalid.on("cursor", "must be project/kind/name, as the `next` link gives it")
    project, kind, name = raw.split("/")
    return project, kind, name


def list_filters(request: Request, project: str = "") -> tuple[Filters, str]:
    """The list's filters from the query (each one checked: a wrong value is a 400 naming it) and the cluster."""
    q = request.query_params
    errors: list[FieldError] = []
    kind = q.get("kind", "")
    if "kind" in q:  # present, even empty: one of the enum's values
        try:
            kind = kind_named(kind)
        except NotFound:
            errors.append(FieldError("kind", f"must be one of {', '.join(KINDS)} (or a plural)"))
    tier = q.get("tier", "")
    if "tier" in q and tier not in TIERS:
        errors.append(FieldError("tier", f"must be one of {', '.join(TIERS)}"))
    state = q.get("status", "")
    if "status" in q and state not in STATES:
        errors.append(FieldError("status", f"must be one of {', '.join(STATES)}"))
    if errors:
        raise Invalid("The filters are invalid.", fields=errors)
    filters = Filters(project=project or str(q.get("project", "")), kind=kind, tier=tier, status=state)
    return filters, str(q.get("cluster", ""))


def label_selector(request: Request) -> Selector:
    """``?labelSelector=`` as Kubernetes reads it (``workloads.selectors``); a 400 naming it when invalid."""
    return parse_selector(str(request.query_params.get(SELECTOR_FIELD, "")))


def list_view(request: Request) -> str:
    view = request.query_params.get("view", "summary")
    if view not in VIEWS:
        raise Invalid.on("view", f"must be one of {', '.join(VIEWS)}")
    return view


def workload_page(request: Request, projects: list[Project], project: str = "") -> Response:
    """One page of host workloads of ``projects`` (already scoped to the caller), from the host watch cache's
    sorted index: the cost of the page, not of every workload (``workloads.paging``)."""
    filters, cluster = list_filters(request, project)
    selector = label_selector(request)
    full = list_view(request) == "full"
    limit = bounded_int(request, "limit", PAGE_SIZE, MAX_PAGE_SIZE)
    raw_cursor = request.query_params.get("cursor", "")
    after = _decode_cursor(raw_cursor) if raw_cursor else None
    page = paging.workload_page(projects, filters, cluster=cluster, selector=selector, after=after, limit=limit)
    results = Encoded(
        [rep.workload(obj, row.project, full=full) for row, obj in page.items],
        [rep.workload_json(obj, row.project, full=full) for row, obj in page.items],
    )
    next_url = None
    if page.more:
        last = page.items[-1][0]
        next_url = replace_query_param(
            request.build_absolute_uri(), "cursor", _encode_cursor((last.project, last.kind, last.name))
        )
    # rep.workload builds WorkloadPageSerializer's shape (tests check the round trip); serializing 100 workloads
    # through DRF again took twice as long as building them; encoding 100 summaries again took ~0.2 ms a page
    # (5x reading them from the memo): each one's JSON is remembered with it, spliced into the body
    return Response({"next": next_url, "problems": page.problems, "results": results})


class ApiView(APIView):
    """Every endpoint of these APIs: the per-user rate limits and the body parsers (JSON, YAML)."""

    throttle_classes = api_throttles()
    parser_classes = BODY_PARSERS


# the lists' renderers: DRF's, with the JSON one splicing the page's remembered texts
LIST_RENDERERS = [PageJSONRenderer if r is JSONRenderer else r for r in api_settings.DEFAULT_RENDERER_CLASSES]
