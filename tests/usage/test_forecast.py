"""The capacity forecast's arithmetic (pure: no database)."""

from datetime import UTC, datetime, timedelta

import pytest

from usage.forecast import forecasts, least_squares

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _point(hour: int, allocated: float, capacity: float = 10.0) -> dict[str, object]:
    return {"start": T0 + timedelta(hours=hour), "tier": "reserved", "capacity_cores": capacity,
            "allocated_cores": allocated, "capacity_gib": 0.0, "allocated_gib": 0.0,
            "capacity_gpus": 0.0, "allocated_gpus": 0.0}  # fmt: skip


def test_exact_line_has_no_residual_and_its_slope() -> None:
    trend = least_squares([0.0, 1.0, 2.0, 3.0], [1.0, 3.0, 5.0, 7.0])
    assert trend is not None
    assert trend.slope_per_day == pytest.approx(2.0)
    assert trend.now_value == pytest.approx(7.0)
    assert trend.residual == pytest.approx(0.0)


def test_noise_shows_as_residual() -> None:
    trend = least_squares([0.0, 1.0, 2.0, 3.0], [0.0, 2.0, 0.0, 2.0])
    assert trend is not None and trend.residual == pytest.approx(0.8944, abs=1e-3)


def test_pool_growing_one_core_a_day_fills_in_the_remaining_days() -> None:
    # 1 core/day = 1/24 per hour; after 48 hours at 4 cores of 10, full in 6 days
    points = [_point(h, 2.0 + h / 24) for h in range(49)]
    (f,) = forecasts(points, ("reserved",))
    assert f.days_to_full == pytest.approx(6.0)
    assert f.sentence == "Reserved pool CPU: full in about 6.0 days at this rate."


def test_shrinking_or_flat_pool_never_fills_and_one_point_is_no_forecast() -> None:
    (f,) = forecasts([_point(h, 5.0 - h / 24) for h in range(10)], ("reserved",))
    assert f.days_to_full is None and "not filling" in f.sentence
    assert forecasts([_point(0, 5.0)], ("reserved",)) == []


@pytest.mark.django_db
def test_the_capacity_partial_shows_the_forecast_and_its_error(region, admin_user, client):
    from django.utils import timezone

    from usage.models import CapacitySample, Resolution

    hour = timezone.now().replace(minute=0, second=0, microsecond=0)
    for back, cores in ((4, 2), (3, 3), (2, 4), (1, 5)):  # one core more each hour, of ten
        CapacitySample.objects.create(resolution=Resolution.MINUTE, start=hour - timedelta(hours=back),
                                      cluster="member-a", tier="reserved", cpu_capacity=10 * 1000 * 60,
                                      cpu_allocated=cores * 1000 * 60, seconds=60)  # fmt: skip
    client.force_login(admin_user)

    page = client.get("/usage/clusters/member-a/capacity/").content.decode()

    assert 'id="capacity-forecast"' in page
    assert "Reserved pool CPU: full in about 0.2 days at this rate." in page
    assert "error &plusmn;0.00 cores" in page


@pytest.mark.django_db
def test_the_capacity_api_answers_the_forecast(region, admin_user):
    from django.utils import timezone
    from rest_framework.test import APIClient

    from usage.models import CapacitySample, Resolution

    hour = timezone.now().replace(minute=0, second=0, microsecond=0)
    for back, cores in ((3, 2), (2, 4), (1, 6)):  # two cores more each hour, of twelve
        CapacitySample.objects.create(resolution=Resolution.MINUTE, start=hour - timedelta(hours=back),
                                      cluster="member-a", tier="ondemand", cpu_capacity=12 * 1000 * 60,
                                      cpu_allocated=cores * 1000 * 60, seconds=60)  # fmt: skip
    client = APIClient()
    client.force_authenticate(admin_user)

    (f,) = client.get("/api/v1/clusters/member-a/capacity/").json()["forecasts"]

    assert (f["tier"], f["unit"]) == ("ondemand", "cores")
    assert f["slope_per_day"] == pytest.approx(48.0) and f["days_to_full"] == pytest.approx(0.125)
