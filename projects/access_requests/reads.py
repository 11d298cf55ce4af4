"""What a user may see of a project's access requests and grants: owners and platform admins all of the project's,
everyone else their own. Always one project's: nobody reads another project's requests through these."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from base.errors import NotFound
from projects.access import ADMIN
from projects.access_requests.models import AccessGrant, AccessRequest, RequestState
from projects.models import Project, ProjectRole

REQUEST_STATES = tuple(RequestState.values)


def sees_all(role: str) -> bool:
    return role in (ADMIN, ProjectRole.OWNER)


def requests_of(project: Project, user: Any, role: str, state: str = "") -> QuerySet[AccessRequest]:
    rows = AccessRequest.objects.filter(project=project).select_related("requested_by", "decided_by", "project")
    if not sees_all(role):
        rows = rows.filter(requested_by=user)
    return rows.filter(state=state) if state else rows


def live_grants_of(project: Project, user: Any, role: str) -> QuerySet[AccessGrant]:
    rows = AccessGrant.objects.filter(project=project, ends_at__gt=timezone.now()).select_related("user", "granted_by")
    return rows if sees_all(role) else rows.filter(user=user)


def find_request(project: Project, user: Any, role: str, request_id: Any) -> AccessRequest:
    found = None
    if isinstance(request_id, int) or (isinstance(request_id, str) and request_id.isdigit()):
        found = requests_of(project, user, role).filter(pk=int(request_id)).first()
    if found is None:
        raise NotFound("No such access request.")
    return found


def find_grant(project: Project, user: Any, role: str, grant_id: Any) -> AccessGrant:
    found = None
    if isinstance(grant_id, int) or (isinstance(grant_id, str) and grant_id.isdigit()):
        rows = AccessGrant.objects.filter(project=project).select_related("project", "user")
        found = (rows if sees_all(role) else rows.filter(user=user)).filter(pk=int(grant_id)).first()
    if found is None:
        raise NotFound("No such access grant.")
    return found
