"""The shared base below every app: audit, permissions and tenant scoping, the htmx page/partial
helper, request ids, and the service error taxonomy with its mappings (forms, API body, close codes).

It imports only Django, DRF and ``pincompute``; every app imports it, it imports no app.
"""
