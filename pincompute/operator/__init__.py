"""The PinCompute operator: watches pincompute.io/v1 custom resources on every member cluster and
reconciles them into native objects with the pure core (validate, translate, diff, status).

Run with ``python -m pincompute.operator --kubeconfig PATH --context member-a --context member-b``.
Only this package does network I/O; everything it decides is computed by the rest of ``pincompute``.
"""
