"""On PostgreSQL, search's ``icontains`` reads of the audit log, users and deleted workloads can use the trigram
indexes (search/migrations/0001): the planner, told not to read the whole table, picks each index for the very
expression Django's ``icontains`` writes, so the index matches the query (a wrong expression would leave a seq scan)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction

from base.models import AuditEvent
from workloads.history.models import WorkloadRecord

pytestmark = [pytest.mark.integration, pytest.mark.django_db]


@pytest.mark.parametrize(
    ("rows", "field", "index"),
    [
        (AuditEvent.objects, "target_name", "search_audit_target_trgm"),
        (AuditEvent.objects, "action", "search_audit_action_trgm"),
        (AuditEvent.objects, "actor_name", "search_audit_actor_trgm"),
        (get_user_model().objects, "username", "search_user_username_trgm"),
        (get_user_model().objects, "email", "search_user_email_trgm"),
        (WorkloadRecord.objects, "name", "search_record_name_trgm"),
    ],
)
def test_each_icontains_read_can_use_its_trigram_index(rows, field, index):
    assert connection.vendor == "postgresql", "the suite runs on PostgreSQL"
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # and no plain index walk (created_at's, then a filter):
        cursor.execute("SET LOCAL enable_indexscan = off")  # a GIN index is read by a bitmap scan only
        plan = rows.filter(**{f"{field}__icontains": "checkout"}).explain()

    assert index in plan, plan
