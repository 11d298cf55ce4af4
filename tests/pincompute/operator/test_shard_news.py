"""Which member shard events queue their host workload (``federation.shard_news``)."""

from pincompute.operator.federation.shard_news import COALESCE_SECONDS, PROGRESS_SECONDS, ShardNews

SHARD = ("member-a", "PinPod", "proj-a", "nb")


def _shard(version: str, ready: str = "", spec_image: str = "app:1") -> dict:
    status = {"conditions": [{"type": "Ready", "status": ready}]} if ready else {}
    return {
        "kind": "PinPod",
        "metadata": {"name": "nb", "namespace": "proj-a", "uid": "s1", "generation": 1, "resourceVersion": version},
        "spec": {"containers": [{"name": "app", "image": spec_image}]},
        "status": status,
    }


def test_our_apply_echo_and_a_version_only_change_are_no_news_a_status_edit_or_deletion_is():
    news = ShardNews()
    news.wrote(SHARD, _shard("5"))

    assert not news.is_news(SHARD, "ADDED", _shard("5"))  # the echo of our apply
    assert not news.is_news(SHARD, "MODIFIED", _shard("6"))  # only its version moved
    assert news.is_news(SHARD, "MODIFIED", _shard("7", ready="True"))  # the member reports
    assert not news.is_news(SHARD, "MODIFIED", _shard("7", ready="True"))  # a relist's repeat
    assert news.is_news(SHARD, "MODIFIED", _shard("8", ready="True", spec_image="app:2"))  # a hand edit
    assert news.is_news(SHARD, "DELETED", _shard("9", ready="True", spec_image="app:2"))
    assert news.is_news(SHARD, "ADDED", _shard("10"))  # after a deletion nothing is known


def _stepped(version: str, **status: object) -> dict:
    shard = _shard(version)
    shard["status"] = status
    return shard


def test_a_step_still_on_its_way_waits_a_second_and_the_ready_step_does_not():
    news = ShardNews()
    news.wrote(SHARD, _shard("5"))
    progressing = {"conditions": [{"type": "Ready", "status": "False"}], "phase": "Progressing"}
    assert news.delay(SHARD, "MODIFIED", _stepped("6", **progressing)) == PROGRESS_SECONDS
    assert news.delay(SHARD, "MODIFIED", _stepped("7", **progressing)) is None  # a repeat
    ready = {"conditions": [{"type": "Ready", "status": "True"}], "phase": "Running"}
    assert news.delay(SHARD, "MODIFIED", _stepped("8", **ready)) == COALESCE_SECONDS
    degraded = {"conditions": [{"type": "Ready", "status": "False"}, {"type": "Degraded", "status": "True"}]}
    assert news.delay(SHARD, "MODIFIED", _stepped("9", **degraded)) == COALESCE_SECONDS
    assert news.delay(SHARD, "MODIFIED", _stepped("10", phase="Succeeded")) == COALESCE_SECONDS
    assert news.delay(SHARD, "MODIFIED", _stepped("11", phase="Failed")) == COALESCE_SECONDS
    edited = _stepped("12", phase="Pending")
    edited["spec"]["containers"][0]["image"] = "app:2"  # a hand edit goes at once, whatever its status says
    assert news.delay(SHARD, "MODIFIED", edited) == COALESCE_SECONDS
    assert news.delay(SHARD, "DELETED", edited) == COALESCE_SECONDS
    assert news.delay(SHARD, "ADDED", _stepped("13", phase="Pending")) == COALESCE_SECONDS  # nothing known before


def test_the_echo_that_beats_our_writes_answer_is_no_news_but_a_status_meanwhile_is():
    news = ShardNews()
    with news.writing(SHARD):
        assert news.delay(SHARD, "ADDED", _shard("5")) is None  # the create's echo, before the call returned
        news.wrote(SHARD, _shard("5"))
    assert news.delay(SHARD, "ADDED", _shard("9")) is None  # a relist

    with news.writing(SHARD):  # an update in flight: its echo moves the spec only
        assert news.delay(SHARD, "MODIFIED", _shard("10", spec_image="app:2")) is None
        assert news.delay(SHARD, "MODIFIED", _shard("11", ready="True", spec_image="app:2")) == COALESCE_SECONDS
    assert news.delay(SHARD, "MODIFIED", _shard("12", ready="True", spec_image="app:3")) == COALESCE_SECONDS

    other = ("member-b", "PinPod", "proj-a", "nb")
    assert news.delay(other, "ADDED", _shard("13")) == COALESCE_SECONDS  # no write in flight there: a hand-made one


def test_the_operator_process_delays_a_shards_news_instead_of_queueing_it_at_once(tmp_path):
    """The wiring: the federation once got no ``enqueue_after`` and its fallback queued at once, so no shard news
    was ever coalesced (3.7 host reconciles per workload paced at 5/s instead of 2)."""
    import threading

    import yaml

    from pincompute.operator.app import ClusterTarget, Settings, build_operator

    kubeconfig = tmp_path / "kubeconfig"
    names = ("host", "member-a")
    kubeconfig.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": n, "cluster": {"server": "https://127.0.0.1:9"}} for n in names],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": n, "context": {"cluster": n, "user": "u"}} for n in names],
            }
        )
    )
    settings = Settings(
        clusters=[ClusterTarget("member-a", str(kubeconfig), "member-a")],
        host=ClusterTarget("host", str(kubeconfig), "host"),
    )
    operator = build_operator(settings, threading.Event())
    shard = _shard("5")
    shard["metadata"]["labels"] = {"pincompute.io/federated": "true"}

    for observe in operator.clusters["member-a"].observers:
        observe("ADDED", shard)

    assert operator.host_queue.depth() == (0, 0, 1)  # waiting out the coalescing window, not ready at once
    key = operator.host_queue.get(timeout=2)
    assert key is not None and (key.cluster, key.kind, key.name) == ("host", "PinPod", "nb")
