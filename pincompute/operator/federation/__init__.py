"""The federation controller on the host, the I/O half of ``pincompute.federation``: the host's store
(``host``), member reachability (``member_health``), admission (``admitter``), placement, propagation
and status aggregation (``propagator``), revisions (``revisions_io``) and the whole wired into the
operator process (``controller``).
"""
