"""List endpoints do a constant number of queries, however many rows they return."""

import pytest

from base import audit
from tests.support.factories import make_cluster, make_pool

pytestmark = pytest.mark.django_db


def _audit_rows(n, actor):
    for i in range(n):
        audit.record("x.update", actor=actor, target_kind="Thing", target_name=f"t{i}")


@pytest.mark.parametrize("rows", [1, 30])
def test_audit_api_list_query_count_is_constant(api_client, admin_user, django_assert_max_num_queries, rows):
    _audit_rows(rows, admin_user)
    api_client.force_authenticate(admin_user)

    with django_assert_max_num_queries(4):
        response = api_client.get("/api/v1/audit/")

    assert response.json()["count"] == rows


@pytest.mark.parametrize("clusters", [1, 8])
def test_cluster_api_list_query_count_is_constant(api_client, user, django_assert_max_num_queries, clusters):
    for i in range(clusters):
        cluster = make_cluster(f"member-{i}")
        make_pool(cluster, "reserved", 10)
        make_pool(cluster, "ondemand", 10)
    api_client.force_authenticate(user)

    with django_assert_max_num_queries(4):  # the clusters, their pools, the session user's admin check (once)
        response = api_client.get("/api/v1/clusters/")

    assert response.json()["count"] == clusters


@pytest.mark.parametrize("rows", [1, 40])
def test_audit_page_query_count_is_constant(admin_client_, admin_user, django_assert_max_num_queries, rows):
    _audit_rows(rows, admin_user)

    with django_assert_max_num_queries(9):
        response = admin_client_.get("/audit/")

    assert response.status_code == 200
