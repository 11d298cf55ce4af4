"""The AuditEvent model moved here from the console app: state only, the table is kept, then renamed."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("console", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='AuditEvent',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                        ('actor_name', models.CharField(db_index=True, max_length=150)),
                        ('action', models.CharField(db_index=True, max_length=80)),
                        ('target_kind', models.CharField(max_length=80)),
                        ('target_name', models.CharField(max_length=253)),
                        ('project_name', models.CharField(blank=True, db_index=True, max_length=63)),
                        ('cluster', models.CharField(blank=True, db_index=True, max_length=63)),
                        ('request_id', models.CharField(blank=True, max_length=64)),
                        ('before', models.JSONField(blank=True, null=True)),
                        ('after', models.JSONField(blank=True, null=True)),
                        ('summary', models.CharField(blank=True, max_length=500)),
                        ('actor', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'console_auditevent',
                        'ordering': ['-created_at', '-id'],
                        'indexes': [models.Index(fields=['target_kind', 'target_name'], name='console_aud_target__39da8e_idx')],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
