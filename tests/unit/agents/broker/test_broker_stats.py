"""A broker's put and get figures (``agents.broker.stats``): counts since the start, rates over the last minute, with
the clock passed in."""

from __future__ import annotations

import pytest

from agents.broker.stats import WINDOW_S, BrokerStats, Figures


def test_puts_and_gets_are_counted_per_topic_and_per_group_and_summed() -> None:
    stats = BrokerStats(started=0.0)
    stats.put([("Orders", 10), ("Orders", 5), ("Audit", 1)], now=100.0)
    stats.got("Orders", "GID_a", 2, 15, now=100.0)
    stats.got("Orders", "", 1, 10, now=100.0)  # a raw read by queue offset
    stats.got("Orders", "GID_b", 0, 0, now=100.0)  # an empty receive is no row
    total, rows = stats.figures(now=100.0)
    assert [(f.topic, f.group) for f in rows] == [("Audit", ""), ("Orders", ""), ("Orders", ""), ("Orders", "GID_a")]
    assert total.put_messages == 3 and total.put_bytes == 16
    assert total.get_messages == 3 and total.get_bytes == 25
    orders_put = next(f for f in rows if f.topic == "Orders" and f.put_messages)
    assert orders_put == Figures("Orders", "", 2, 15, put_tps=2 / WINDOW_S)


def test_rates_cover_the_last_minute_and_counts_stay() -> None:
    stats = BrokerStats(started=0.0)
    stats.put([("T", 1)] * 120, now=10.0)
    stats.put([("T", 1)] * 60, now=65.0)
    total, _ = stats.figures(now=65.5)
    assert total.put_tps == pytest.approx(180 / WINDOW_S)  # both seconds are within the minute
    total, _ = stats.figures(now=75.0)
    assert total.put_tps == pytest.approx(60 / WINDOW_S)  # second 10 has left the window
    assert total.put_messages == 180
    total, _ = stats.figures(now=200.0)
    assert total.put_tps == 0.0 and total.put_messages == 180


def test_a_young_broker_divides_by_its_age_not_by_a_minute() -> None:
    stats = BrokerStats(started=100.0)
    stats.put([("T", 1)] * 10, now=104.0)
    total, _ = stats.figures(now=105.0)
    assert total.put_tps == pytest.approx(2.0)  # 10 messages in its first 5 seconds
    total, _ = stats.figures(now=100.2)
    assert total.put_tps == pytest.approx(10.0)  # never divided by less than a second
