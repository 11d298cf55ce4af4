"""The debug pages, one module per concern (thin views over ``debugging.authz``, the consumers' own resolver):

- ``pods``: the pod page (containers, the log tab, the shell tab)
- ``shell``: the terminal panel
- ``logs``: a selector's pods on one cluster, a workload's pods on every member cluster
- ``sessions``: a project's shells and log streams
- ``recordings``: a recorded shell's player and asciicast file
- ``common``: the pod and container asked for, and their websocket URLs
"""
