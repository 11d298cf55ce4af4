"""Fields the Projects API shares: enums named for what they are, and quantities as Kubernetes strings."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from pincompute.grants import Allocation
from pincompute.quantity import Resources, format_amount
from pincompute.tiers import Tier
from projects.access import ADMIN
from projects.members import KINDS
from projects.models import PodSecurity, ProjectRole, ProjectState, ProvisioningState, QuotaRequestState

TIERS = [tier.label for tier in Tier]
ROLES = [*ProjectRole.values, ADMIN]
REQUEST_STATES = QuotaRequestState.values
QUANTITY_HELP = {
    "cpu": "CPU cores as a Kubernetes quantity: 8, 0.5 or 500m.",
    "memory": "Memory as a Kubernetes quantity: 32Gi, 512Mi.",
    "gpu": "Whole GPUs: 0, 2.",
    "pods": "Whole number of pods: 50.",
}


class ServiceChoiceField(serializers.ChoiceField):
    """An enum in the schema whose value the service checks: an unknown value reaches the service as typed
    and is refused with the service's message (naming the choices), together with every other error."""

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, bool) or not isinstance(data, str | int):
            self.fail("invalid_choice", input=data)
        return str(data)


def named_choice(component: str, values: list[str], description: str) -> type[ServiceChoiceField]:
    """A choice field whose enum is the schema component ``component``. ``role``, ``kind`` and ``state``
    mean different things across the API (a cluster's role, a member's role), so each set is named for
    what it is rather than for the field."""

    class Field(ServiceChoiceField):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(choices=values, **kwargs)

    Field.__name__ = Field.__qualname__ = f"{component}Field"
    schema = {"type": "string", "enum": values, "description": description}
    return extend_schema_field(schema, component_name=component)(Field)


TierField = named_choice("Tier", TIERS, "A quota tier.")
ProjectRoleField = named_choice("ProjectRole", ProjectRole.values, "A member's role in a project.")
EffectiveRoleField = named_choice("EffectiveRole", ROLES, "The caller's role in a project; admin for platform admins.")
MemberKindField = named_choice("MemberKind", list(KINDS), "user (a username) or group (an OIDC group's name).")
ProjectStateField = named_choice("ProjectState", ProjectState.values, "A project's lifecycle state.")
PodSecurityField = named_choice("PodSecurity", PodSecurity.values, "The Pod Security admission level.")
RequestStateField = named_choice("QuotaRequestState", REQUEST_STATES, "Where a quota request stands.")
ProvisioningStateField = named_choice(
    "ProvisioningState", ProvisioningState.values, "How far a cluster has followed the project."
)


class QuantityField(serializers.CharField):
    """A quantity is a string, as the schema says. A value of another JSON type reaches the service as sent
    (DRF would turn 8 into "8" and accept it), which refuses it by field together with every other error."""

    checked_by_service = True  # base.api.type_errors leaves it to the service

    def to_internal_value(self, data: Any) -> Any:
        return super().to_internal_value(data) if isinstance(data, str) else data


def quantity_field(name: str, **kwargs: Any) -> serializers.CharField:
    return QuantityField(allow_blank=True, help_text=QUANTITY_HELP[name], **kwargs)


class AllocationSerializer(serializers.Serializer):
    """A grant or what workloads hold: requests plus a pod count."""

    cpu = serializers.CharField(read_only=True, help_text=QUANTITY_HELP["cpu"])
    memory = serializers.CharField(read_only=True, help_text=QUANTITY_HELP["memory"])
    gpu = serializers.CharField(read_only=True, help_text=QUANTITY_HELP["gpu"])
    pods = serializers.CharField(read_only=True, help_text=QUANTITY_HELP["pods"])

    def to_representation(self, instance: Allocation | dict[str, int]) -> dict[str, str]:
        grant = instance if isinstance(instance, Allocation) else Allocation.from_json(instance)
        return grant.formatted()


class ResourcesSerializer(serializers.Serializer):
    """Pool capacity and room: cpu, memory and gpu (pools have no pod dimension); may be negative."""

    cpu = serializers.CharField(read_only=True)
    memory = serializers.CharField(read_only=True)
    gpu = serializers.CharField(read_only=True)

    def to_representation(self, instance: Resources) -> dict[str, str]:
        return {name: format_amount(name, amount) for name, amount in instance.amounts().items()}
