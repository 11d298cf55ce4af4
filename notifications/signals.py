"""A project's event, for what tells more than its members (a project's webhooks, the ``webhooks`` app connects it).

``project_event`` is sent by ``notifications.services.notify`` once the decision commits, for every event made with
a project, whoever its recipients are (a muted or empty audience still reaches the project's webhooks). Sender:
``Event``; keywords ``event`` (the ``Event``), ``project_id``, ``text``, ``link``, ``key``, ``occurrence``,
``severity``. ``key`` and ``occurrence`` are the emitter's (the same pair twice is the same happening). A receiver's
failure is logged, never undoes the notification (``send_robust``).
"""

from __future__ import annotations

import logging
from typing import Any

from django.dispatch import Signal

log = logging.getLogger(__name__)

project_event = Signal()


def send_project_event(**kwargs: Any) -> None:
    for receiver, result in project_event.send_robust(sender=kwargs["event"].__class__, **kwargs):
        if isinstance(result, Exception):
            log.error("project_event receiver %r failed: %s", receiver, result, exc_info=result)
