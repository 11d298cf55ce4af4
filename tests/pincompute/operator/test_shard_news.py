"""Which member shard events queue their host workload (``federation.shard_news``)."""

from pincompute.operator.federation.shard_news import ShardNews

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
