from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("accounts", "0004_apitoken_scope")]

    operations = [
        migrations.AddField(
            model_name="apitoken", name="project", field=models.CharField(blank=True, default="", max_length=40)
        ),
        migrations.AddField(
            model_name="apitoken", name="grants", field=models.CharField(blank=True, default="", max_length=40)
        ),
    ]
