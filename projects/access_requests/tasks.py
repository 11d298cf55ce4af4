"""The expiry beat task (``CELERY_BEAT_SCHEDULE['expire-access-grants']``, every ``ACCESS_EXPIRY_SECONDS``)."""

from __future__ import annotations

from celery import shared_task

from projects.access_requests.expiry import expire_grants, warn_expiring


@shared_task(name="projects.expire_access_grants")
def expire_access_grants() -> dict[str, int]:
    return {"expired": expire_grants(), "warned": warn_expiring()}
