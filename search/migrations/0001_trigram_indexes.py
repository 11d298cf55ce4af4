"""Trigram indexes for search's ``icontains`` reads on PostgreSQL (``pg_trgm``, a trusted extension since PostgreSQL
13): the audit log, users and deleted workloads grow without bound, and a ``LIKE '%q%'`` without them reads every row.
Each index is on the expression Django's ``icontains`` compares (``UPPER(col::text)``), so the planner uses it. The
embedded default (SQLite) searches the same way, without indexes."""

from __future__ import annotations

from typing import Any

from django.db import migrations

INDEXES = {
    "search_audit_target_trgm": ("base_auditevent", "target_name"),
    "search_audit_action_trgm": ("base_auditevent", "action"),
    "search_audit_actor_trgm": ("base_auditevent", "actor_name"),
    "search_user_username_trgm": ("auth_user", "username"),
    "search_user_email_trgm": ("auth_user", "email"),
    "search_user_first_trgm": ("auth_user", "first_name"),
    "search_user_last_trgm": ("auth_user", "last_name"),
    "search_record_name_trgm": ("history_workloadrecord", "name"),
}


def create(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for name, (table, column) in INDEXES.items():
        schema_editor.execute(
            f'CREATE INDEX IF NOT EXISTS {name} ON {table} USING gin ((UPPER("{column}"::text)) gin_trgm_ops)'
        )


def drop(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for name in INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [
        ("base", "0002_rename_table"),
        ("history", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]
    operations = [migrations.RunPython(create, drop)]
