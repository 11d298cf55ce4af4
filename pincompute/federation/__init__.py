"""Federation on the host, its pure half: admission against a project's tier grants, stable placement of
shards, and the aggregation of member shard statuses into the host object's status.

No I/O: the federation controller reads the host and member watch caches, calls these functions with
frozen values, and writes what they return (conditions, placements, status).
"""
