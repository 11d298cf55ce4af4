"""Grants used to be per member cluster; before the cluster column goes, each tier's rows become one."""

from django.db import migrations


def merge_cluster_grants(apps, schema_editor):
    """Grants used to be per cluster; the regional grant of a tier is their sum."""
    TierQuota = apps.get_model("projects", "TierQuota")
    totals = {}
    for row in TierQuota.objects.order_by("id"):
        key = (row.project_id, row.tier)
        keep = totals.setdefault(key, row)
        if keep.pk != row.pk:
            keep.cpu_milli += row.cpu_milli
            keep.memory_bytes += row.memory_bytes
            keep.gpu += row.gpu
            row.delete()
    for row in totals.values():
        row.save(update_fields=["cpu_milli", "memory_bytes", "gpu"])


class Migration(migrations.Migration):
    dependencies = [("projects", "0001_initial")]

    operations = [migrations.RunPython(merge_cluster_grants, migrations.RunPython.noop)]
