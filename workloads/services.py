"""The workloads app's writes in one import, for pages, API views, commands, benches and tests.

Each is ``verb_noun(target, *, actor)``: it authorizes, validates, writes the one host object (workloads live on
the host cluster, not in the database: there is no transaction to join, so the audit row follows the write that
landed, ``submission.record``) and raises the base's ``ServiceError`` family. They live in a module per concern;
this one only re-exports them:

- ``workloads.submission``: ``submit_workload`` (create or update from a document; ``Accepted``, ``NeverFits``)
- ``workloads.growth``: ``ExceedsGrant``, the refusal of a growth of an admitted workload the grant has no room for
- ``workloads.operations``: ``operate_workload`` (pause, resume, stop, start, restart, scale; ``Operated``),
  ``delete_workload``
- ``workloads.rollback``: ``rollback_workload`` (an earlier revision's spec written back as an edit; ``RolledBack``)

Reads are their own modules: ``workloads.lookup`` (one workload the user may see), ``workloads.reads`` (rows, pods,
shards, revisions from the watch caches), ``workloads.preview`` (what a submission would do), ``workloads.timeline``.
"""

from __future__ import annotations

from workloads.growth import ExceedsGrant
from workloads.operations import OPERATIONS, Operated, delete_workload, operate_workload
from workloads.rollback import RolledBack, rollback_workload
from workloads.submission import WRITE_ROLES, Accepted, NeverFits, submit_workload

__all__ = [
    "OPERATIONS",
    "WRITE_ROLES",
    "Accepted",
    "ExceedsGrant",
    "NeverFits",
    "Operated",
    "RolledBack",
    "delete_workload",
    "operate_workload",
    "rollback_workload",
    "submit_workload",
]
