"""The projects app's service API in one import, for views, API views, the admin and commands.

Each function lives in a small module by concern; this module only re-exports them:

- ``projects.onboarding``: ProjectDraft, check_basics, check_members, check_quotas, onboard
- ``projects.members``: MemberInput, set_member, remove_member, lookup_subjects
- ``projects.quota``: change_quota, approve_request, reject_request, pending_requests,
  preview_forced_decrease, force_decrease
- ``projects.lifecycle``: update_project, set_pod_security, set_shell_recording, archive_project
- ``projects.usage``: quota_overview, project_usage, quota_rows_for, project_quota_rows
"""

from __future__ import annotations

from projects.grants import QuotaInput
from projects.lifecycle import archive_project, set_pod_security, set_shell_recording, update_project
from projects.members import MemberInput, lookup_subjects, remove_member, set_member
from projects.onboarding import ProjectDraft, check_basics, check_members, check_quotas, onboard
from projects.quota import (
    ForcedDecreasePreview,
    QuotaChange,
    approve_request,
    change_quota,
    force_decrease,
    pending_requests,
    preview_forced_decrease,
    reject_request,
)
from projects.usage import project_quota_rows, project_usage, quota_overview, quota_rows_for

__all__ = [
    "ForcedDecreasePreview",
    "MemberInput",
    "ProjectDraft",
    "QuotaChange",
    "QuotaInput",
    "approve_request",
    "archive_project",
    "change_quota",
    "check_basics",
    "check_members",
    "check_quotas",
    "force_decrease",
    "lookup_subjects",
    "onboard",
    "pending_requests",
    "preview_forced_decrease",
    "project_quota_rows",
    "project_usage",
    "quota_overview",
    "quota_rows_for",
    "reject_request",
    "remove_member",
    "set_member",
    "set_pod_security",
    "set_shell_recording",
    "update_project",
]
