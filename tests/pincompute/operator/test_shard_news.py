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
