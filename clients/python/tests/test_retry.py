"""Retries: 503 and 429 are repeated where the call is safe, after the server's Retry-After."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import pytest

from rota import AsyncRota, RetryPolicy, Rota, Unavailable

from .fake_server import Answer, error, fake_rota

AGENT = {"agentId": "a1", "status": "idle"}
ACCEPTED = {"notificationId": "n1", "unread": 1, "duplicate": False}
# A back-off far shorter than Retry-After: the waits measured below can only come from the header.
QUICK = RetryPolicy(attempts=5, initial_backoff=0.01, max_backoff=0.02)


def gaps(at: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(at)]


def test_a_read_is_retried_on_503_after_retry_after() -> None:
    with (
        fake_rota(
            [error(503, "unavailable", 1), error(503, "unavailable", 1), Answer(200, AGENT)]
        ) as fake,
        Rota(fake.url, retry=QUICK) as rota,
    ):
        assert rota.get_agent("a1") == AGENT
    assert len(fake.hits) == 3
    assert all(gap >= 0.95 for gap in gaps([h.at for h in fake.hits])), gaps(
        [h.at for h in fake.hits]
    )


def test_a_notification_with_a_dedupe_key_is_retried_on_429_and_503() -> None:
    answers = [error(429, "inbox_full", 1), error(503, "unavailable", 1), Answer(202, ACCEPTED)]
    with fake_rota(answers) as fake, Rota(fake.url, retry=QUICK) as rota:
        result = rota.notify("a1", "mention", {"p": 1}, dedupe_key="k1")
    assert result.notification_id == "n1"
    assert [h.body["dedupeKey"] for h in fake.hits] == ["k1", "k1", "k1"]
    assert all(gap >= 0.95 for gap in gaps([h.at for h in fake.hits]))


def test_a_notification_without_a_dedupe_key_is_retried_under_a_generated_one() -> None:
    answers = [error(429, "inbox_full", 0), Answer(202, ACCEPTED)]
    with fake_rota(answers) as fake, Rota(fake.url, retry=QUICK) as rota:
        rota.notify("a1", "mention")
    keys = [h.body["dedupeKey"] for h in fake.hits]
    assert len(keys) == 2
    assert keys[0].startswith("sdk-") and keys[0] == keys[1], keys


def accepting_then_503(stored: dict[str, Any]) -> Callable[[Any], Answer]:
    """A node that stores notifications by dedupe key (keyless ones each anew) and answers the
    first request 503 after accepting it, as an answer that ran out of time does."""
    count = itertools.count()

    def answer(body: Any) -> Answer:
        key = body.get("dedupeKey") or f"no-key-{len(stored)}"
        duplicate = key in stored
        stored.setdefault(key, body)
        if next(count) == 0:
            return Answer(
                503,
                {"error": "unavailable", "message": "it may or may not have taken effect"},
                {"Retry-After": "0"},
            )
        return Answer(202, {"notificationId": "n1", "unread": 1, "duplicate": duplicate})

    return answer


def test_a_notification_accepted_then_answered_503_is_stored_once() -> None:
    stored: dict[str, Any] = {}
    with (
        fake_rota([], responder=accepting_then_503(stored)) as fake,
        Rota(fake.url, retry=QUICK) as rota,
    ):
        result = rota.notify("a1", "mention")
    assert len(stored) == 1, stored
    assert result.duplicate
    assert len(fake.hits) == 2
    assert fake.hits[0].body["dedupeKey"] == fake.hits[1].body["dedupeKey"]


async def test_the_async_client_stores_it_once_too() -> None:
    stored: dict[str, Any] = {}
    with fake_rota([], responder=accepting_then_503(stored)) as fake:
        async with AsyncRota(fake.url, retry=QUICK) as rota:
            result = await rota.notify("a1", "mention")
    assert len(stored) == 1, stored
    assert result.duplicate
    assert fake.hits[0].body["dedupeKey"] == fake.hits[1].body["dedupeKey"]


def test_gives_up_after_the_policy_s_attempts() -> None:
    policy = RetryPolicy(attempts=3, initial_backoff=0.01)
    with (
        fake_rota([error(503, "unavailable", 0)]) as fake,
        Rota(fake.url, retry=policy) as rota,
        pytest.raises(Unavailable) as down,
    ):
        rota.stats()
    assert len(fake.hits) == 3
    assert down.value.status == 503
    assert down.value.retry_after == 0


def test_caps_a_long_retry_after() -> None:
    policy = RetryPolicy(attempts=2, initial_backoff=0.01, max_retry_after=0.2)
    with fake_rota([error(503, "unavailable", 3600), Answer(200, AGENT)]) as fake:
        began = time.monotonic()
        with Rota(fake.url, retry=policy) as rota:
            rota.get_agent("a1")
    assert time.monotonic() - began < 2


async def test_the_async_client_retries_alike() -> None:
    with fake_rota([error(503, "unavailable", 1), Answer(200, {"paused": True})]) as fake:
        async with AsyncRota(fake.url, retry=QUICK) as rota:
            assert await rota.pause() is True
    assert len(fake.hits) == 2
    assert gaps([h.at for h in fake.hits])[0] >= 0.95


async def test_the_async_client_does_not_repeat_an_unsafe_call() -> None:
    with fake_rota([error(503, "unavailable", 1), Answer(200, {"redriven": True})]) as fake:
        async with AsyncRota(fake.url, retry=QUICK) as rota:
            with pytest.raises(Unavailable):
                await rota.redrive("d1")
    assert len(fake.hits) == 1
