"""Celery app. Without REDIS_URL, tasks run eagerly in-process (the embedded default)."""

from __future__ import annotations

import os

from celery import Celery

from base.metrics_hooks import connect_celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "console.settings")

app = Celery("pinconsole")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
connect_celery()  # task outcomes and durations; a worker's /metrics (base.metrics_hooks)
