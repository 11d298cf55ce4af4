"""The core's Kubernetes I/O adapters, shared by the operator and the portal's watch cache.

``rawapi`` (raw JSON requests, LIST pages, WATCH streams), ``store`` (the indexed object store) and
``listwatch`` (THE list-then-watch loop). These modules may import ``kubernetes``; the pure core
(everything in ``pincompute`` except ``operator`` and ``kube``) must not import them.
"""
