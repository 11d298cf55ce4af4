"""The terminal panel: the pod page's htmx tab, or a page of its own; viewers get a 403, like the exec websocket."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from kubernetes.config.config_exception import ConfigException

from base.htmx import render_page
from clusters.health import live_health
from clusters.runtime import api_for
from debugging.shell.commands import AUTO, SHELLS, available, shell_command
from debugging.views.common import pod_and_container, websocket_urls


@login_required
def shell_panel(request: HttpRequest, cluster: str, namespace: str, pod: str) -> HttpResponse:
    """The terminal: the pod page's htmx tab, or a page of its own when opened directly; 403 for viewers,
    like the exec websocket (4403)."""
    ref, container = pod_and_container(request, cluster, namespace, pod, need_exec=True)  # sidecars: admins only (403)
    shell, _ = shell_command(request.GET.get("shell"))  # Invalid -> 400, like the websocket's 4400
    uid = str((ref.pod.get("metadata") or {}).get("uid", ""))
    live = live_health(ref.cluster)
    try:  # not while this process's breaker keeps off the cluster: the probe would wait on its dead apiserver
        reachable = live is None or live.state == "closed"
        present = available(api_for(ref.cluster), ref.namespace, ref.name, uid, container) if reachable else ["sh"]
    except ConfigException:
        present = ["sh"]  # the websocket says why it cannot connect
    urls = websocket_urls(ref, container)
    if shell != AUTO:
        urls["exec_url"] += f"?shell={shell}"
    context = {
        "ref": ref,
        "container": container,
        "shell": shell,
        "shells": [name for name in SHELLS if name == AUTO or name in present],
        "recorded": ref.project.record_shells,
        **urls,
    }
    return render_page(request, "debugging/shell_page.html", "debugging/partials/shell.html", context)
