"""Live logs: console logs (``pods/log?follow``) and files inside a container (``tail -F`` over exec).

- ``consumer``: one container's log or file, or every pod of a selector on one cluster (``/ws/logs/...``)
- ``workload_consumer``: a workload's pods on every member cluster, joining and leaving (``/ws/workload-logs/...``)
- ``streams``: the console-log follower (an asyncio task per container), the bounded line buffer, liveness probes
- ``files``: the file follower (``tail`` over ``debugging.kubeexec``)
- ``options``: the stream's options from the query (tail, since, include/exclude, file, resume window)
"""
