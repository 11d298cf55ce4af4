import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def drop_oidc_superusers(apps, schema_editor):
    """Sign-in used to make every platform admin a Django superuser; those accounts have no usable password
    (OIDC-created). Superusers made by ``createsuperuser`` have a password and keep the flag."""
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    for user in User.objects.filter(is_superuser=True):
        if not user.password or user.password.startswith("!"):
            user.is_superuser = user.is_staff = False
            user.save(update_fields=["is_superuser", "is_staff"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_rename_table"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="OidcIdentity",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("issuer", models.CharField(max_length=255)),
                ("subject", models.CharField(max_length=255)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("last_sign_in_at", models.DateTimeField(blank=True, null=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="oidc_identities",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("issuer", "subject"), name="one_user_per_oidc_identity")
                ]
            },
        ),
        migrations.RunPython(drop_oidc_superusers, migrations.RunPython.noop),
    ]
