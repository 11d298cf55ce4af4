"""A workload's history that survives its deletion: the recorder (``record_history``, leader-elected on the host)
writes what it sees of every workload into ``WorkloadRecord`` and ``HistoryEntry``; the timeline, the deleted
workloads' pages, the API and the CLI read it back; ``history.prune`` drops what is older than the retention."""
