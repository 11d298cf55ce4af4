"""The project pages, one module per concern:

- ``pages``: the project list and the tutorial
- ``wizard``: the onboarding wizard (draft in the session, one step at a time, created at the end)
- ``review``: the wizard's read models (manifests per cluster for a draft, verdicts, room per tier)
- ``detail``: the project page and its htmx sections (basics, members, quota, provisioning, archive)
- ``sections``: the read models of those sections
- ``approvals``: platform admins' quota request queue and forced decreases
- ``common``: tenancy lookups, roles, service errors beside fields of several forms, number formats
"""
