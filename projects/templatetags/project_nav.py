"""``{% pending_quota_requests as n %}``: the approval queue's length for the navigation (platform admins)."""

from __future__ import annotations

from typing import Any

from django import template

from base.permissions import is_platform_admin
from projects.models import ProjectState, QuotaRequest, QuotaRequestState

register = template.Library()


@register.simple_tag(takes_context=True)
def pending_quota_requests(context: Any) -> int:
    """Pending requests of active projects (what ``projects.quota.pending_requests`` lists); 0 for others."""
    user = getattr(context.get("request"), "user", None)
    if not is_platform_admin(user):
        return 0
    return QuotaRequest.objects.filter(state=QuotaRequestState.PENDING, project__state=ProjectState.ACTIVE).count()
