"""AuditEvent moved to base and ApiToken to accounts: drop them from this app's state only."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("console", "0001_initial"),
        ("base", "0001_initial"),
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="ApiToken"), migrations.DeleteModel(name="AuditEvent")],
            database_operations=[],
        ),
    ]
