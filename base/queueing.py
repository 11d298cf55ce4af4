"""Queueing Celery work from a request without making the request depend on the broker.

Every job queued from a page or an API call here is also found by a periodic, level-triggered pass (provisioning's
``reconcile_all``, the member-cluster sync): the queued message only makes it happen sooner. So a broker that is down
(Redis stopped) is logged and the request succeeds; the pass does the work once the broker is back.
"""

from __future__ import annotations

import logging
from typing import Any

from kombu.exceptions import OperationalError

log = logging.getLogger(__name__)
# Bounded: a request waits at most about a second for a broker that does not answer.
PUBLISH_RETRY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.3, "interval_max": 0.5}


def enqueue(task: Any, *args: Any) -> bool:
    """``task.delay(*args)`` that never raises for an unreachable broker; False when the message was not sent."""
    try:
        task.apply_async(args=args, retry_policy=PUBLISH_RETRY)
    except (OperationalError, OSError) as exc:
        log.warning("broker unavailable, %s(%s) left to its periodic pass: %s", task.name, args, exc)
        return False
    return True
