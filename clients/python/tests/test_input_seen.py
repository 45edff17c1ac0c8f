"""The runner's cursor on steered input: a turn's report names, in ``inputSeen``, the steered
notifications its handler took (drained, waited for, iterated, handed to its callback), not those
that only reached the SDK; a handler that took none sends an empty list. A scripted server plays
the node, to see each report's exact body."""

from __future__ import annotations

import asyncio
from typing import Any

from rota import (
    Activation,
    AsyncRota,
    AsyncRunner,
    Context,
    Notification,
    Outcome,
    Rota,
    Runner,
)

from .fake_server import Answer, fake_rota
from .support import wait_until
from .test_runner import Recorder
from .test_runner_answers import NOTHING, assigned

REPORTED = Answer(200, {"completedAt": "2026-11-24T10:00:01Z", "next": {"status": "none"}})


def _steered(*ids: str) -> list[dict[str, Any]]:
    return [
        {
            "notificationId": i,
            "type": "message",
            "payload": {"text": i},
            "receivedAt": "2026-11-24T10:00:00Z",
            "attempt": 1,
        }
        for i in ids
    ]


def _beat(*ids: str) -> Answer:
    return Answer(200, {"expiresAt": "2026-11-24T10:00:10Z", "notifications": _steered(*ids)})


def _notifications(*ids: str) -> list[Notification]:
    return [Notification.from_json(raw) for raw in _steered(*ids)]


# ---- the context keeps the cursor ----


def test_the_context_names_what_the_handler_took_not_what_only_arrived() -> None:
    context = Context("r1", "lease-1", deadline=0.0)
    context._offer(_notifications("s1"))
    taken = context.next_input(timeout=0)
    assert taken is not None and taken.notification_id == "s1"
    context._offer(_notifications("s2", "s3"))
    assert [n.notification_id for n in context.drain_input()] == ["s2", "s3"]
    context._offer(_notifications("s4", "s2"))  # s4 arrives, s2 again is dropped

    assert context.input_seen == ["s1", "s2", "s3"]


def test_the_context_names_what_was_iterated_and_handed_to_the_callback() -> None:
    iterated = Context("r1", "lease-1", deadline=0.0)
    iterated._offer(_notifications("s1", "s2"))
    iterated._end_input()
    assert [n.notification_id for n in iterated.input()] == ["s1", "s2"]
    assert iterated.input_seen == ["s1", "s2"]

    called = Context("r1", "lease-2", deadline=0.0)
    called._offer(_notifications("s1"))
    heard: list[str] = []
    called.on_input(lambda n: heard.append(n.notification_id))  # the waiting one first
    called._offer(_notifications("s2"))
    assert heard == ["s1", "s2"]
    assert called.input_seen == ["s1", "s2"]


# ---- the runner's reports carry it ----


def _run_one_turn(handle: Any, heartbeats: list[Answer], recorder: Recorder) -> list[Any]:
    """Runs one turn whose heartbeats are answered from ``heartbeats`` (the last repeats); the
    bodies of the reports the runner sent for it."""
    routes = {
        "claims": [assigned(), NOTHING],
        "heartbeat": heartbeats,
        "complete": [REPORTED],
        "fail": [REPORTED],
    }
    with fake_rota([NOTHING], routes) as fake, Rota(fake.url) as rota:
        options: dict[str, Any] = {"runner_id": "r1", "wait_seconds": 1, "shutdown_grace": 5.0}
        with Runner(rota, handle, heartbeat_interval=0.1, listener=recorder, **options):
            wait_until("the turn is reported", lambda: len(recorder.reported) == 1)
        return [(h.path, h.body) for h in fake.hits if "/v1/leases/lease-1/" in h.path]


def _reports(hits: list[Any]) -> list[Any]:
    return [(path, body) for path, body in hits if not path.endswith("/heartbeat")]


def test_a_completion_names_the_steered_input_the_handler_took_and_not_what_it_left() -> None:
    recorder = Recorder()

    def handle(activation: Activation, context: Context) -> Outcome:
        took = context.next_input(timeout=20)
        assert took is not None
        # The third heartbeat starts after the second one's answer (s2) reached the context.
        wait_until("s2 has arrived", lambda: recorder.heartbeats >= 3)
        return Outcome.complete({"took": took.notification_id})

    hits = _run_one_turn(handle, [_beat("s1"), _beat("s2"), _beat()], recorder)

    [(path, body)] = _reports(hits)
    assert path == "/v1/leases/lease-1/complete"
    assert body["result"] == {"took": "s1"}
    assert body["inputSeen"] == ["s1"]
    assert "next" in body, "the report that claims again carries the cursor too"


def test_a_handler_that_never_reads_its_input_sends_an_empty_list() -> None:
    recorder = Recorder()

    def handle(activation: Activation, context: Context) -> None:
        wait_until("s1 has arrived", lambda: recorder.heartbeats >= 2)

    hits = _run_one_turn(handle, [_beat("s1"), _beat()], recorder)

    [(path, body)] = _reports(hits)
    assert path == "/v1/leases/lease-1/complete"
    assert body["inputSeen"] == []


def test_a_failed_turn_names_the_steered_input_its_handler_took() -> None:
    recorder = Recorder()

    def handle(activation: Activation, context: Context) -> None:
        took = context.drain_input()
        while not took:
            context.sleep(0.05)
            took = context.drain_input()
        raise RuntimeError(f"cannot answer {took[0].type}")

    hits = _run_one_turn(handle, [_beat("s1"), _beat()], recorder)

    [(path, body)] = _reports(hits)
    assert path == "/v1/leases/lease-1/fail"
    assert body["action"] == "retry"
    assert body["inputSeen"] == ["s1"]


def test_a_lease_handed_back_at_stop_names_the_steered_input_its_handler_took() -> None:
    recorder = Recorder()
    routes = {"claims": [assigned(), NOTHING], "heartbeat": [_beat("s1"), _beat()]}

    def handle(activation: Activation, context: Context) -> None:
        context.next_input(timeout=20)
        context.wait_cancelled(20)

    with fake_rota([REPORTED], routes) as fake, Rota(fake.url) as rota:
        runner = Runner(
            rota, handle, runner_id="r1", wait_seconds=1, heartbeat_interval=0.1, listener=recorder
        ).start()
        wait_until("s1 has arrived", lambda: recorder.heartbeats >= 2)
        runner.stop(grace=0.2)

    [hand_back] = fake.hits_to("fail")
    assert hand_back.body["action"] == "snooze"
    assert hand_back.body["snoozeSeconds"] == 0
    assert hand_back.body["inputSeen"] == ["s1"]


async def test_a_coroutine_handlers_callback_input_is_named_in_its_completion() -> None:
    recorder = Recorder()
    routes = {
        "claims": [assigned(), NOTHING],
        "heartbeat": [_beat("s1", "s2"), _beat()],
        "complete": [REPORTED],
    }

    async def handle(activation: Activation, context: Context) -> None:
        heard: asyncio.Queue[str] = asyncio.Queue()
        context.on_input(lambda n: heard.put_nowait(n.notification_id))
        for _ in range(2):
            await asyncio.wait_for(heard.get(), 20)

    with fake_rota([NOTHING], routes) as fake:
        async with AsyncRota(fake.url) as client:
            runner = AsyncRunner(
                client,
                handle,
                runner_id="r1",
                wait_seconds=1,
                heartbeat_interval=0.1,
                listener=recorder,
            )
            running = asyncio.create_task(runner.run())
            await asyncio.to_thread(
                wait_until, "the turn is reported", lambda: bool(recorder.reported)
            )
            runner.stop(grace=1.0)
            await asyncio.wait_for(running, 20)

    [completion] = fake.hits_to("complete")
    assert completion.body["inputSeen"] == ["s1", "s2"]


# ---- the client ----


def test_the_client_sends_input_seen_only_when_given() -> None:
    with fake_rota([REPORTED]) as fake, Rota(fake.url) as rota:
        rota.complete("lease-1", "r1", input_seen=["s1"])
        rota.fail("lease-2", "r1", action="retry", input_seen=[])
        rota.complete("lease-3", "r1")
        rota.fail("lease-4", "r1")

    bodies = [h.body for h in fake.hits]
    assert [b.get("inputSeen") for b in bodies] == [["s1"], [], None, None]
    assert ["inputSeen" in b for b in bodies] == [True, True, False, False]


def test_a_node_from_before_the_cursor_gets_reports_without_it() -> None:
    refused = Answer(
        400,
        {"error": "invalid", "message": "unknown field 'inputSeen' (known fields: runnerId)"},
    )
    with fake_rota([refused, REPORTED]) as fake, Rota(fake.url) as rota:
        rota.complete("lease-1", "r1", input_seen=["s1"])
        rota.fail("lease-2", "r1", input_seen=["s2"])

    bodies = [h.body for h in fake.hits]
    assert bodies == [
        {"runnerId": "r1", "inputSeen": ["s1"]},
        {"runnerId": "r1"},
        {"runnerId": "r1", "action": "retry"},
    ], "refused once, then never sent again"
