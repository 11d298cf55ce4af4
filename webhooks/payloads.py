"""What a hook receives: the generic JSON body (signed, ``signing``) or a Slack-compatible one (``text`` and a
section block with the link)."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.utils import timezone


def generic_body(*, event: str, project: str, text: str, link: str, severity: str, key: str, occurrence: str) -> str:
    url = f"{settings.PORTAL_URL.rstrip('/')}{link}" if link else ""
    body: dict[str, Any] = {
        "event": event,
        "project": project,
        "severity": severity,
        "text": text,
        "url": url,
        "key": key,
        "occurrence": occurrence,
        "sent_at": timezone.now().isoformat(),
    }
    return json.dumps(body, separators=(",", ":"))


def slack_body(*, event: str, project: str, text: str, link: str, severity: str, key: str, occurrence: str) -> str:
    url = f"{settings.PORTAL_URL.rstrip('/')}{link}" if link else ""
    line = f"[{project}] {text}"
    blocks: list[dict[str, Any]] = [{"type": "section", "text": {"type": "mrkdwn", "text": line}}]
    if url:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": f"<{url}|Open in PinConsole>"}]})
    return json.dumps({"text": f"{line} {url}".strip(), "blocks": blocks}, separators=(",", ":"))
