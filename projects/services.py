"""The projects app's writes in one import, for views, API views, the admin, commands and devtools.

Each is ``verb_noun(target, *, actor)``: validated, atomic, audited through ``base.audit.record``, its side effects
(provisioning tasks, access-change broadcasts) dispatched on commit. Each lives in a small module by concern; this
module only re-exports them:

- ``projects.onboarding``: ``onboard_project`` (a ``ProjectDraft``: the project, its members and grants at once)
- ``projects.members``: ``set_member``, ``remove_member``
- ``projects.quota``: ``change_quota``, ``approve_request``, ``reject_request``, ``force_decrease``
- ``projects.lifecycle``: ``update_project``, ``set_pod_security``, ``set_shell_recording``, ``archive_project``

Reads are their own modules: ``projects.access`` (tenant scoping), ``projects.headroom`` (what workloads hold, quota
overview and headroom per tier), ``projects.grants`` (grants and their totals), the wizard's checks in
``projects.onboarding`` (``check_basics``, ``check_members``, ``check_quotas``), ``projects.quota``
(``pending_requests``, ``preview_forced_decrease``) and ``projects.members.lookup_subjects``.
"""

from __future__ import annotations

from projects.lifecycle import archive_project, set_pod_security, set_shell_recording, update_project
from projects.members import remove_member, set_member
from projects.onboarding import onboard_project
from projects.quota import approve_request, change_quota, force_decrease, reject_request

__all__ = [
    "approve_request",
    "archive_project",
    "change_quota",
    "force_decrease",
    "onboard_project",
    "reject_request",
    "remove_member",
    "set_member",
    "set_pod_security",
    "set_shell_recording",
    "update_project",
]
