from __future__ import annotations

from django import forms

from clusters.attributes import TAINT_EFFECTS
from clusters.models import Cluster


class ClusterAttributesForm(forms.Form):
    """Shape only, every field optional: the service checks the values, so one submit shows every problem."""

    region = forms.CharField(required=False)
    zone = forms.CharField(required=False)
    hardware_families = forms.CharField(required=False, help_text="Comma separated, e.g. general, gpu")
    labels = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 3}), help_text="key=value, one per line"
    )
    taints = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=f"key=value:Effect, one per line; Effect is {', '.join(TAINT_EFFECTS)}",
    )
    schedulable = forms.BooleanField(required=False)

    @classmethod
    def for_cluster(cls, cluster: Cluster) -> ClusterAttributesForm:
        return cls(
            initial={
                "region": cluster.region,
                "zone": cluster.zone,
                "hardware_families": ", ".join(cluster.hardware_families),
                "labels": "\n".join(f"{k}={v}" for k, v in sorted(cluster.labels.items())),
                "taints": "\n".join(
                    f"{t['key']}{'=' + t['value'] if t.get('value') else ''}:{t['effect']}" for t in cluster.taints
                ),
                "schedulable": cluster.schedulable,
            }
        )


class PoolForm(forms.Form):
    """Shape only: ``clusters.attributes.parse_pool`` says what is wrong with every field at once."""

    cpu = forms.CharField(required=False, help_text="cores, e.g. 64 or 64000m")
    memory = forms.CharField(required=False, help_text="e.g. 256Gi")
    gpu = forms.CharField(required=False, help_text="whole GPUs")
