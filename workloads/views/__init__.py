"""The workload pages, one module per concern (thin: they parse, call ``workloads.services`` or a read module, and
render):

- ``listing``: the workload list (filters, polled table)
- ``catalog``: the catalog, a page per kind (schema form and YAML editor in sync, preview, create)
- ``detail``: one workload's page, its htmx panels (status, timeline, revisions, spec) and its actions
"""
