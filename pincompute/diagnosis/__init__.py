"""Why a workload is not running, in one sentence (pure: no I/O).

``diagnose(Evidence(...))`` reads what the portal's caches already hold about one workload (its host object, its
project's other workloads and grant, the placement's per-cluster reasons, its pods on the members, recent Events,
the last log lines when cheap) and returns a ``Diagnosis``: the state (a CamelCase word), the cause in one
sentence with its numbers, and the next step (with a ``Target`` the portal turns into a link). The cause is the
first that holds in ``PRECEDENCE``: deleting; an invalid spec; a member's refusal; admission (waiting for quota,
with who holds it and the queue place); stopped or paused on request; no cluster fits (each cluster's first
reason); the pods (an image that cannot be pulled, a container that cannot be created, a crash loop with its exit
code and last line, a pod no node takes); an unreachable member; a change waiting for quota; degraded; and last
rolling out, succeeded or running.
"""

from pincompute.diagnosis.model import PRECEDENCE, Diagnosis, Evidence, State, Subject, Target
from pincompute.diagnosis.verdict import diagnose

__all__ = ["PRECEDENCE", "Diagnosis", "Evidence", "State", "Subject", "Target", "diagnose"]
