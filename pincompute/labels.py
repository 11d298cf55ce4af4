"""Every ``pincompute.io/...`` label and annotation key (and the well-known ones we read), spelled once.

The portal writes some of them (placement, namespace ownership), the translator stamps others on
native objects, and the operator, the watch caches and the pages select by them; a key that two of
them spelled differently would silently match nothing. The versioned runtime profile
(``runtime/profile-v1.yaml``) names the identity labels as data; a unit test keeps both in step
with this module.
"""

from __future__ import annotations

from typing import Final

# -- identity labels (runtime profile, translation, namespaces) -------------------------------------
PROJECT_LABEL: Final = "pincompute.io/project"
TEAM_LABEL: Final = "pincompute.io/team"
COST_CENTER_LABEL: Final = "pincompute.io/cost-center"  # on namespaces; chargeback reads it there
WORKLOAD_LABEL: Final = "pincompute.io/workload"
KIND_LABEL: Final = "pincompute.io/kind"
TIER_LABEL: Final = "pincompute.io/tier"  # value: Tier.label (``reserved``, ``ondemand``, ``preemptible``)
SHARD_LABEL: Final = "pincompute.io/shard"
ZONE_LABEL: Final = "pincompute.io/zone"  # also a placement annotation (ZONE_ANNOTATION)

# -- node labels ------------------------------------------------------------------------------------
HARDWARE_FAMILY_LABEL: Final = "pincompute.io/hardware-family"
DAEMON_PAUSED_LABEL: Final = "pincompute.io/daemon-paused"  # no node may carry it: a paused daemon matches none
NODE_ZONE_LABEL: Final = "topology.kubernetes.io/zone"  # well-known Kubernetes node labels
NODE_REGION_LABEL: Final = "topology.kubernetes.io/region"
NODE_INSTANCE_TYPE_LABEL: Final = "node.kubernetes.io/instance-type"

# -- placement the portal writes on a CR (annotations win over labels of the same key) ---------------
CLUSTER_ANNOTATION: Final = "pincompute.io/cluster"
ZONE_ANNOTATION: Final = ZONE_LABEL
REGION_ANNOTATION: Final = "pincompute.io/region"
SHARD_INDEX_ANNOTATION: Final = "pincompute.io/shard-index"
SHARD_COUNT_ANNOTATION: Final = "pincompute.io/shard-count"
REPLICAS_ANNOTATION: Final = "pincompute.io/replicas"

# -- federation: what the host's controller stamps on host objects and on the shards it propagates -------
FEDERATION_FINALIZER: Final = "pincompute.io/federation"  # on host objects: shards are removed first
FEDERATED_LABEL: Final = "pincompute.io/federated"  # value "true" on every shard the federation propagated
HOST_UID_ANNOTATION: Final = "pincompute.io/host-uid"  # a shard's host object
SPEC_HASH_ANNOTATION: Final = "pincompute.io/spec-hash"  # the host spec a shard carries (rollout progress)
FAILOVER_ANNOTATION: Final = "pincompute.io/failover"  # on a shard that took a lost member's replicas: from where, why
REPLACE_PLACEMENT_ANNOTATION: Final = "pincompute.io/replace-placement"  # a new value asks for a fresh placement
# A platform admin's write the host's admission webhook lets through (value: the reason), audited in the apiserver's
# audit log; only honoured for members of BREAK_GLASS_GROUP.
BREAK_GLASS_ANNOTATION: Final = "pincompute.io/break-glass"
BREAK_GLASS_GROUP: Final = "pincompute:break-glass"

# -- pod template annotations -------------------------------------------------------------------------
RESTARTED_AT_ANNOTATION: Final = "pincompute.io/restartedAt"
CONFIG_HASH_ANNOTATION: Final = "pincompute.io/config-hash"
# the content of the project's Secrets/ConfigMaps a workload rolls on: the federation stamps it on the shard, the
# member's translation copies it onto the pod template, so a change rolls the pods
CONFIGS_HASH_ANNOTATION: Final = "pincompute.io/configs-hash"
PROFILE_ANNOTATION: Final = "pincompute.io/runtime-profile"
INJECTED_ANNOTATION: Final = "pincompute.io/injected"

# -- Pod Security admission (namespaces): the project's level, enforced, audited and warned ---------------
POD_SECURITY_ENFORCE_LABEL: Final = "pod-security.kubernetes.io/enforce"
POD_SECURITY_ENFORCE_VERSION_LABEL: Final = "pod-security.kubernetes.io/enforce-version"
POD_SECURITY_AUDIT_LABEL: Final = "pod-security.kubernetes.io/audit"
POD_SECURITY_WARN_LABEL: Final = "pod-security.kubernetes.io/warn"

# -- project policy (namespaces on the host): the policy's JSON, which the host's admission webhook judges by ------
POLICY_ANNOTATION: Final = "pincompute.io/policy"

# -- ownership of everything PinCompute creates --------------------------------------------------------
MANAGED_BY_LABEL: Final = "app.kubernetes.io/managed-by"
MANAGED_BY: Final = "pincompute"
MANAGED_SELECTOR: Final = f"{MANAGED_BY_LABEL}={MANAGED_BY}"


def workload_selector(kind: str, name: str) -> str:
    """Label selector string matching the pods of one workload (the scale subresource's selector)."""
    return f"{KIND_LABEL}={kind},{WORKLOAD_LABEL}={name}"
