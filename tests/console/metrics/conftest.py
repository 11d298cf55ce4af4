"""The debugging tests' fixtures, reused as they are: a project, two Running pods on member-a, the consumers' ORM
thread closed after a websocket test."""

from tests.support.debugging import close_thread_connections, live_pods, project  # noqa: F401
