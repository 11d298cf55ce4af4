from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [("base", "0001_initial")]

    operations = [
        migrations.AlterModelTable(name="auditevent", table=None),
        migrations.RenameIndex(model_name="auditevent", new_name="audit_target_idx",
                               old_name="console_aud_target__39da8e_idx"),
    ]
