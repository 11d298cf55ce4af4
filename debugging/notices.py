"""A shell opened in a project whose policy asks for it (``notifyOnShell``), told to the project's owners
(``notifications.notify``): once per session (the key is the session), never to the one who opened it."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from notifications.models import Event, Severity
from notifications.services import notify
from projects.audience import members_of
from projects.models import Project, ProjectRole
from projects.policy import policy_of


def shell_opened(project: Project, target: str, *, actor: Any, session: int | None) -> None:
    """``target``: ``cluster/namespace/pod/container``. Nothing when the project's policy does not ask."""
    if session is None or not policy_of(project).notify_on_shell:
        return
    owners = members_of(project, (ProjectRole.OWNER,)).exclude(pk=getattr(actor, "pk", None))
    who = actor.get_username() if actor is not None else "someone"
    notify(
        Event.SHELL_OPENED,
        recipients=owners,
        text=f"{who} opened a shell in {target} ({project.name}'s policy asks to be told).",
        link=reverse("debugging:sessions", args=[project.name]),
        key=f"shell-session/{session}",
        occurrence="opened",
        project=project,
        severity=Severity.INFO,
    )
