"""What the progress page shows, from the status file the dev command writes (devtools.progress)."""

from __future__ import annotations

import os
import time
from typing import Any

from django.conf import settings

from devtools.progress import FAILED, LIVE, STARTING, fmt_seconds, read_status


def current() -> dict[str, Any] | None:
    return read_status(settings.DEV_PROGRESS_FILE)


def starting(status: dict[str, Any] | None) -> bool:
    return status is not None and status.get("state") in (STARTING, FAILED)


def page_context(status: dict[str, Any] | None, now: float | None = None) -> dict[str, Any]:
    """Each step numbered, with its duration (a running one's so far), the running and the failed step, what
    remains, the clusters that answer, and whether the page should poll on."""
    if status is None:
        return {"status": None, "polling": True}
    now = time.time() if now is None else now
    steps = []
    for number, step in enumerate(status["steps"], start=1):
        seconds = now - step["started"] if step["state"] == "running" else step.get("seconds")
        steps.append({**step, "number": number, "took": fmt_seconds(seconds) if seconds is not None else ""})
    state = status["state"]
    until = now if state == STARTING else status["updated"]
    return {
        "status": status,
        "state": state,
        "steps": steps,
        "done": sum(1 for s in steps if s["state"] == "done"),
        "running": next((s for s in steps if s["state"] == "running"), None),
        "failed": next((s for s in steps if s["state"] == "failed"), None),
        "remaining": [s["title"] for s in steps if s["state"] == "pending"],
        "clusters": [{**c, "took": fmt_seconds(c["seconds"])} for c in status["clusters"]],
        "elapsed": fmt_seconds(until - status["started"]),
        "polling": state == STARTING,
        "live": state == LIVE,
        "mailpit_url": os.environ.get("MAILPIT_URL", ""),  # the dev stack's Mailpit: the portal's mails
    }
