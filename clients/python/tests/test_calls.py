"""Agents that work together, on the wire: what a turn's sends and calls put in its report, the
typed replies and calls an assignment carries, and a producer's call waiting for its answer.
A scripted server plays the node, to see a report's exact body and answer "pending" on cue."""

from __future__ import annotations

import time
from typing import Any

import pytest

from rota import (
    Activation,
    AgentRef,
    AsyncRota,
    CallError,
    CallInfo,
    Context,
    Notification,
    Outcome,
    Reply,
    Rota,
    Runner,
)

from .fake_server import Answer, fake_rota
from .support import wait_until
from .test_runner import Recorder
from .test_runner_answers import NOTHING, assigned

COMPLETED = Answer(200, {"completedAt": "2026-11-24T10:00:01Z", "next": {"status": "none"}})


def _run_one_turn(handle: Any) -> list[Any]:
    """Runs ``handle`` on one scripted turn; the bodies of the reports the runner made."""
    routes = {"claims": [assigned(), NOTHING], "complete": [COMPLETED], "fail": [COMPLETED]}
    recorder = Recorder()
    with fake_rota([NOTHING], routes) as fake, Rota(fake.url) as rota:
        with Runner(rota, handle, runner_id="r1", wait_seconds=1, listener=recorder):
            wait_until("the turn is reported", lambda: len(recorder.reported) == 1)
        return [(h.path, h.body) for h in fake.hits if "/v1/leases/" in h.path]


def test_a_completed_turn_carries_its_sends_and_calls_in_order() -> None:
    def handle(activation: Activation, context: Context) -> Outcome:
        context.send("worker-1", "task", {"n": 1})
        context.call("worker-2", "task", timeout_seconds=300, group="all", dedupe_key="t2")
        context.call("worker-3", "task")
        return Outcome.complete({"ok": True})

    [(path, body)] = _run_one_turn(handle)

    assert path == "/v1/leases/lease-1/complete"
    assert body["result"] == {"ok": True}
    assert body["send"] == [
        {"agentId": "worker-1", "type": "task", "payload": {"n": 1}},
        {
            "agentId": "worker-2",
            "type": "task",
            "dedupeKey": "t2",
            "call": {"timeoutSeconds": 300, "group": "all"},
        },
        {"agentId": "worker-3", "type": "task", "call": {}},
    ]


def test_a_failed_turn_sends_nothing() -> None:
    def handle(activation: Activation, context: Context) -> Outcome:
        context.send("worker-1", "task")
        context.call("worker-2", "task")
        raise RuntimeError("the model is down")

    [(path, body)] = _run_one_turn(handle)

    assert path == "/v1/leases/lease-1/fail"
    assert body["action"] == "retry"
    assert "send" not in body


def test_a_turn_without_sends_reports_no_send_list() -> None:
    kept: list[Context] = []

    def handle(activation: Activation, context: Context) -> None:
        kept.append(context)

    [(_, body)] = _run_one_turn(handle)

    assert "send" not in body
    with pytest.raises(RuntimeError):
        kept[0].send("late", "task")


def test_reads_typed_replies_and_calls_from_an_assignment() -> None:
    answered = Notification.from_json(
        {
            "notificationId": "n1",
            "type": "rota.reply",
            "payload": {
                "callId": "c1",
                "from": {"tenant": "acme", "agentId": "worker-1"},
                "status": "answered",
                "result": {"summary": "done"},
            },
        }
    )
    failed = Notification.from_json(
        {
            "notificationId": "n2",
            "type": "rota.reply",
            "payload": {
                "callId": "c2",
                "from": {"tenant": "acme", "agentId": "gone"},
                "status": "failed",
                "error": {"reason": "undeliverable", "message": "no such agent"},
            },
        }
    )
    call = Notification.from_json(
        {
            "notificationId": "n3",
            "type": "task",
            "payload": {},
            "call": {"callId": "c9", "from": {"tenant": "acme", "agentId": "boss"}, "depth": 2},
        }
    )

    assert answered.is_reply
    assert answered.reply == Reply(
        "c1", AgentRef("acme", "worker-1"), "answered", {"summary": "done"}
    )
    assert answered.reply is not None and answered.reply.answered
    assert failed.reply is not None
    assert failed.reply.error == CallError("undeliverable", "no such agent")
    assert not failed.reply.answered
    assert call.call == CallInfo("c9", AgentRef("acme", "boss"), 2)
    assert not call.is_reply and call.reply is None
    assert answered.call is None


def test_refuses_a_reply_without_a_call_id() -> None:
    broken = Notification.from_json({"notificationId": "n1", "type": "rota.reply", "payload": {}})
    with pytest.raises(ValueError):
        _ = broken.reply


def _answering_after(pending: int) -> dict[str, list[Answer]]:
    accepted = Answer(
        202, {"notificationId": "n1", "unread": 1, "duplicate": False, "callId": "c1"}
    )
    waiting = Answer(200, {"callId": "c1", "status": "pending"})
    done = Answer(
        200,
        {
            "callId": "c1",
            "status": "answered",
            "result": {"text": "hi"},
            "answeredAt": "2026-11-24T10:00:01Z",
        },
    )
    return {"notifications": [accepted], "c1": [waiting] * pending + [done]}


def test_a_producers_call_posts_the_call_then_polls_until_it_is_answered() -> None:
    with fake_rota([NOTHING], _answering_after(2)) as fake, Rota(fake.url, tenant="acme") as rota:
        answer = rota.call("bot", "chat.message", {"text": "hello"}, timeout_seconds=120, wait=60)

    assert answer.status == "answered"
    assert answer.result == {"text": "hi"}
    assert answer.answered_at is not None
    post, *polls = fake.hits
    assert post.method == "POST" and post.path == "/v1/agents/bot/notifications?tenant=acme"
    assert post.body["call"] == {"timeoutSeconds": 120}
    assert post.body["payload"] == {"text": "hello"}
    assert post.body["dedupeKey"].startswith("sdk-")
    assert len(polls) == 3
    for poll in polls:
        assert poll.method == "GET"
        assert poll.path.startswith("/v1/calls/c1?")
        assert "tenant=acme" in poll.path
        assert "waitSeconds=59" in poll.path or "waitSeconds=60" in poll.path


def test_a_producers_call_answers_pending_once_its_own_wait_has_passed() -> None:
    with fake_rota([NOTHING], _answering_after(10_000)) as fake, Rota(fake.url) as rota:
        started = time.monotonic()
        answer = rota.call("bot", "chat.message", wait=1.5)
        took = time.monotonic() - started

    assert answer.pending and answer.status == "pending"
    assert 1.4 <= took < 10, took
    assert fake.hits[0].body["call"] == {}
    assert "waitSeconds=1" in fake.hits[1].path


async def test_the_async_client_polls_the_same_way() -> None:
    with fake_rota([NOTHING], _answering_after(1)) as fake:
        async with AsyncRota(fake.url) as rota:
            answer = await rota.call("bot", "chat.message", wait=30)
            again = await rota.get_call("c1", wait_seconds=5)

    assert answer.answered and again.answered
    assert fake.hits[-1].path == "/v1/calls/c1?waitSeconds=5"
    with Rota("http://127.0.0.1:9") as unused, pytest.raises(ValueError):
        unused.get_call("c1", wait_seconds=61)
