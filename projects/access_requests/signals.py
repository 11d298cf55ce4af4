"""What happens to access requests and grants, for the notifications to follow (the integrator connects them).

Each is sent once, after the transaction that decided it commits (never for one that rolled back), by the service
that decided it. Receivers take ``**kwargs``; a receiver's failure is logged, never undoes the change
(``send_robust``).

- ``access_requested``: sender ``AccessRequest``; ``request`` (the new row: project, requested_by, access,
  duration_seconds, reason). Its approvers: the project's owners, platform admins for ``sidecar-exec``.
- ``access_decided``: sender ``AccessRequest``; ``request`` (state ``approved`` or ``denied``, decided_by,
  decision_reason; None for an owner's direct grant), ``grant`` (the ``AccessGrant`` made, None when denied),
  ``approved`` (bool). Tell the requester (or, for a direct grant, the grant's user).
- ``access_expiring``: sender ``AccessGrant``; ``grant`` (ends at ``grant.ends_at``, within
  ``ACCESS_EXPIRY_WARNING_SECONDS``). Sent once per grant by the expiry task.
- ``access_expired``: sender ``AccessGrant``; ``grant``, ``reason`` (``expired`` or ``revoked``; ``grant.ended_by``
  is who revoked). The user's open shells and streams on the project have been told to re-check by then.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.dispatch import Signal

log = logging.getLogger(__name__)

access_requested = Signal()
access_decided = Signal()
access_expiring = Signal()
access_expired = Signal()


def send_on_commit(signal: Signal, sender: type, **kwargs: Any) -> None:
    """Send ``signal`` once the current transaction commits (at once outside one)."""

    def send() -> None:
        for receiver, result in signal.send_robust(sender, **kwargs):
            if isinstance(result, Exception):
                log.error("%s receiver %r failed: %s", sender.__name__, receiver, result, exc_info=result)

    transaction.on_commit(send)
