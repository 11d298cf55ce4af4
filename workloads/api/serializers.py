"""Shapes of the workload API's bodies (for validation and the OpenAPI schema); the values are built in
``workloads.api.representation``."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from base.api import StrictInput
from pincompute import GROUP, VERSION
from pincompute.diagnosis import State, Target
from pincompute.kinds import KINDS
from pincompute.specs.checks import WORKLOAD_NAME_MAX
from pincompute.tiers import Tier
from workloads.operations import MAX_REPLICAS
from workloads.reads import STATUSES

STATES = [value for value, _, _ in STATUSES]
FULL_ONLY = "a single workload's, and a list's with view=full; absent from a list's summaries"
VIEWS = ["summary", "full"]
KIND_HELP = f"one of {', '.join(KINDS)}"
API_VERSION = f"{GROUP}/{VERSION}"


class AdmissionSerializer(serializers.Serializer):
    admitted = serializers.BooleanField(allow_null=True, help_text="null: no verdict yet")
    reason = serializers.CharField(allow_blank=True)
    message = serializers.CharField(allow_blank=True)


class ConditionSerializer(serializers.Serializer):
    type = serializers.CharField()
    status = serializers.CharField(allow_blank=True)
    reason = serializers.CharField(allow_blank=True)
    message = serializers.CharField(allow_blank=True)
    lastTransitionTime = serializers.CharField(allow_blank=True)


class StatusSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=STATES, help_text="the list's status filter value")
    reason = serializers.CharField(allow_blank=True, help_text="why it waits or what is wrong")
    phase = serializers.CharField(allow_blank=True)
    ready = serializers.IntegerField()
    desired = serializers.IntegerField(allow_null=True)
    clusters = serializers.ListField(child=serializers.CharField(), help_text="where it is placed")
    conditions = ConditionSerializer(many=True, required=False, help_text=FULL_ONLY)


class ShardSerializer(serializers.Serializer):
    cluster = serializers.CharField()
    zone = serializers.CharField(allow_blank=True)
    replicas = serializers.IntegerField()
    ready = serializers.IntegerField()
    state = serializers.CharField()
    message = serializers.CharField(allow_blank=True)
    lastSeen = serializers.CharField(allow_null=True)
    unreachableSince = serializers.CharField(allow_null=True)


class WorkloadOwnershipLinkSerializer(serializers.Serializer):
    kind = serializers.CharField()
    title = serializers.CharField()
    url = serializers.CharField()


class WorkloadOwnershipSerializer(serializers.Serializer):
    team = serializers.CharField(allow_blank=True, help_text="spec.team, else the project's")
    oncall = serializers.CharField(
        allow_blank=True, help_text="the pincompute.io/oncall annotation, else the project's"
    )
    links = WorkloadOwnershipLinkSerializer(
        many=True, help_text="the pincompute.io/links annotation, else the project's"
    )
    inherited = serializers.ListField(child=serializers.CharField(), help_text="which of them are the project's")


class WorkloadSerializer(serializers.Serializer):
    apiVersion = serializers.CharField()
    kind = serializers.CharField(help_text=KIND_HELP)
    name = serializers.CharField()
    project = serializers.CharField()
    tier = serializers.CharField()
    labels = serializers.DictField(child=serializers.CharField(allow_blank=True), required=False, help_text=FULL_ONLY)
    annotations = serializers.DictField(
        child=serializers.CharField(allow_blank=True), required=False, help_text=FULL_ONLY
    )
    spec = serializers.JSONField(required=False, help_text=FULL_ONLY)
    version = serializers.CharField(
        help_text="the version (a change of the spec moves it); also the ETag. Send it as If-Match to write"
    )
    admission = AdmissionSerializer()
    status = StatusSerializer()
    shards = ShardSerializer(many=True, required=False, help_text=FULL_ONLY)
    createdAt = serializers.CharField(allow_null=True)
    deleting = serializers.BooleanField()
    ownership = WorkloadOwnershipSerializer(
        required=False, help_text="one workload only (not in lists): its team, on-call contact and links"
    )


class WorkloadPageSerializer(serializers.Serializer):
    next = serializers.CharField(allow_null=True, help_text="the URL of the next page; null on the last")
    problems = serializers.ListField(child=serializers.CharField(), help_text="caches not synced, a missing host")
    results = WorkloadSerializer(many=True)


NAME_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"  # a DNS-1123 label: a container's name
# A workload's name, as the core checks it (pincompute.specs.checks.workload_name): it also names Services
WORKLOAD_NAME_PATTERN = r"^[a-z]([-a-z0-9]*[a-z0-9])?$"
WORKLOAD_NAME_RULE = f"lower-case letters, digits and '-', starting with a letter, at most {WORKLOAD_NAME_MAX}"
KIND_NAMES = [*KINDS, *(info.plural for info in KINDS.values())]


@extend_schema_field({"type": "string", "enum": list(KINDS)}, component_name="WorkloadKind")
class WorkloadKindField(serializers.ChoiceField):
    def __init__(self, **kwargs: object) -> None:
        super().__init__(choices=list(KINDS), **kwargs)


class MetadataSerializer(serializers.Serializer):
    """The document's metadata. Server-owned fields a client sends back (``uid``, ``resourceVersion``, ...) are
    dropped by the service, so other keys are allowed."""

    open_body = True  # the schema says so (base.api_schema)

    name = serializers.RegexField(
        WORKLOAD_NAME_PATTERN,
        max_length=WORKLOAD_NAME_MAX,
        required=False,
        help_text=WORKLOAD_NAME_RULE,
        error_messages={"invalid": f"use {WORKLOAD_NAME_RULE}"},
    )
    labels = serializers.DictField(child=serializers.CharField(allow_blank=True), required=False)
    annotations = serializers.DictField(child=serializers.CharField(allow_blank=True), required=False)


class DocumentSerializer(StrictInput):
    """A workload document as kubectl would take it; ``spec`` is the kind's (validated by the core: the kind's
    fields, images, zones, the project's grant), ``status`` is ignored. PUT may leave out the kind and name: the
    URL names them."""

    # required (the OpenAPI description says so: workloads.api.spec_schemas), but refused by the core's validation
    # when absent, which names it together with every other problem of the document
    apiVersion = serializers.ChoiceField(choices=[API_VERSION], required=False)
    kind = WorkloadKindField(required=False, help_text=KIND_HELP)
    metadata = MetadataSerializer(required=False)
    spec = serializers.DictField(help_text="the kind's spec")
    status = serializers.DictField(required=False, help_text="ignored: the server owns it")


class NewMetadataSerializer(MetadataSerializer):
    """A new workload's metadata: the name is required."""

    open_body = True

    name = serializers.RegexField(
        WORKLOAD_NAME_PATTERN,
        max_length=WORKLOAD_NAME_MAX,
        help_text=WORKLOAD_NAME_RULE,
        error_messages={"invalid": f"use {WORKLOAD_NAME_RULE}"},
    )


class NewDocumentSerializer(DocumentSerializer):
    """A new workload's document: the API version, the kind and the name are required. The OpenAPI description
    states it per kind, with the kind's spec (``workloads.api.spec_schemas``)."""

    kind = WorkloadKindField(help_text=KIND_HELP)
    metadata = NewMetadataSerializer()


class PatchSerializer(StrictInput):
    """A JSON merge patch (RFC 7386) of the document: ``null`` removes a key."""

    metadata = serializers.DictField(required=False)
    spec = serializers.DictField(required=False)


class NoInputSerializer(StrictInput):
    """An operation that takes no input: no body, or an empty object (a field is a 400 naming it)."""


class ScaleSerializer(StrictInput):
    """The number of replicas to run (scalable kinds only)."""

    replicas = serializers.IntegerField(min_value=0, max_value=MAX_REPLICAS)


# A pod's name (a DNS-1123 subdomain), or empty for every pod.
POD_PATTERN = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"


class RestartContainerSerializer(StrictInput):
    """One container to restart, in every pod of the workload or in the one ``pod`` names."""

    # trim_whitespace off: "app\n" is not a name (the service refuses it) rather than quietly "app"
    container = serializers.RegexField(
        NAME_PATTERN,
        max_length=63,
        trim_whitespace=False,
        help_text="one of the workload's containers (a DNS-1123 label)",
    )
    pod = serializers.RegexField(
        POD_PATTERN,
        required=False,
        allow_blank=True,
        default="",
        max_length=253,
        trim_whitespace=False,
        help_text="one of the workload's pods (as the project's pods list names them); every pod when empty",
    )


class WorkloadRefSerializer(serializers.Serializer):
    kind = serializers.CharField()
    name = serializers.CharField()


class EntrySerializer(serializers.Serializer):
    at = serializers.CharField(help_text="RFC 3339")
    source = serializers.CharField(help_text='"host" or a member cluster')
    category = serializers.ChoiceField(
        choices=["state", "event", "revision", "admission", "placement", "scale", "operation"],
        help_text="recorded history adds admission, placement, scale and operation",
    )
    level = serializers.ChoiceField(choices=["normal", "warning"])
    title = serializers.CharField(allow_blank=True)
    message = serializers.CharField(allow_blank=True)
    subject = serializers.CharField(allow_blank=True, help_text='the involved object, e.g. "Pod web-abc"')
    count = serializers.IntegerField()
    workload = WorkloadRefSerializer(required=False, help_text="on a project's timeline")


class TimelineSerializer(serializers.Serializer):
    results = EntrySerializer(many=True)
    truncated = serializers.BooleanField(help_text="more entries match than the limit")


TIERS = [t.value for t in Tier]


# --- day two: why it is not running, and going back ----------------------------------------------------------


class SubjectSerializer(serializers.Serializer):
    cluster = serializers.CharField(required=False, help_text="the member cluster the next step is about")
    pod = serializers.CharField(required=False)
    container = serializers.CharField(required=False)


class DiagnosisSerializer(serializers.Serializer):
    """Why the workload is (not) running (``pincompute.diagnosis``): the first cause in its precedence."""

    state = serializers.ChoiceField(choices=[s.value for s in State], help_text="a word a program can switch on")
    severity = serializers.ChoiceField(choices=["ok", "waiting", "error"])
    cause = serializers.CharField(help_text="one sentence with its numbers")
    nextStep = serializers.CharField(help_text="one sentence: what to do")
    target = serializers.ChoiceField(
        choices=[t.value for t in Target], allow_blank=True, help_text="where the next step is taken"
    )
    subject = SubjectSerializer()
    link = serializers.CharField(allow_blank=True, help_text="the portal page of the next step")


class RollbackInputSerializer(StrictInput):
    """The revision to go back to; absent: the newest one that is not current (``kubectl rollout undo``)."""

    revision = serializers.IntegerField(min_value=1, max_value=2**31 - 1, required=False, allow_null=True)


class ChangeSerializer(serializers.Serializer):
    path = serializers.CharField()
    before = serializers.JSONField(allow_null=True, help_text="null: absent")
    after = serializers.JSONField(allow_null=True, help_text="null: absent")


class RollbackSerializer(serializers.Serializer):
    revision = serializers.IntegerField(help_text="the revision gone back to")
    changed = serializers.BooleanField(help_text="false: the spec already was that revision's; nothing written")
    changes = ChangeSerializer(many=True, help_text="each field of the spec the rollback changed")
    workload = WorkloadSerializer()
