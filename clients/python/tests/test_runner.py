"""The runner loop against a real node: claims, heartbeats, deadlines, outcomes, stopping."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx

from rota import (
    Activation,
    AsyncRota,
    AsyncRunner,
    CancelReason,
    Context,
    Outcome,
    Rota,
    Runner,
    RunnerListener,
)

from .node import Node
from .support import capability, event_types, register, wait_until


class Recorder(RunnerListener):
    """Everything a runner told its listener, thread-safe."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.claimed: list[Activation] = []
        self.heartbeats = 0
        self.reported: list[tuple[Activation, Outcome]] = []
        self.cancelled: list[tuple[Activation, CancelReason]] = []
        self.errors: list[tuple[str, BaseException]] = []

    def on_claimed(self, activation: Activation) -> None:
        with self.lock:
            self.claimed.append(activation)

    def on_heartbeat(self, activation: Activation) -> None:
        with self.lock:
            self.heartbeats += 1

    def on_reported(self, activation: Activation, outcome: Outcome) -> None:
        with self.lock:
            self.reported.append((activation, outcome))

    def on_cancelled(self, activation: Activation, reason: CancelReason) -> None:
        with self.lock:
            self.cancelled.append((activation, reason))

    def on_error(self, what: str, error: BaseException) -> None:
        with self.lock:
            self.errors.append((what, error))


def runner_options(agent_id: str, **overrides: Any) -> dict[str, Any]:
    options: dict[str, Any] = {
        "runner_id": f"r-{agent_id}"[:60],
        "mode": "notification",
        "capabilities": [capability(agent_id)],
        "wait_seconds": 2,
        "lease_seconds": 30,
        "shutdown_grace": 5.0,
    }
    options.update(overrides)
    return options


def test_runner_claims_runs_the_handler_and_completes(rota: Rota, agent_id: str) -> None:
    register(rota, agent_id)
    rota.notify(agent_id, "mention", {"postId": "p1"})
    rota.notify(agent_id, "mention", {"postId": "p2"})
    seen: list[Activation] = []
    recorder = Recorder()

    def handle(activation: Activation, context: Context) -> Outcome:
        seen.append(activation)
        posts = [n.payload["postId"] for n in activation.notifications]
        return Outcome.complete({"replied": posts})

    with Runner(rota, handle, listener=recorder, **runner_options(agent_id)):
        wait_until("the activation is reported", lambda: bool(recorder.reported))

    [activation] = seen
    assert activation.agent_id == agent_id
    assert activation.kind == "inbox"
    assert activation.attempt == 1
    assert not activation.more
    assert [n.type for n in activation.notifications] == ["mention", "mention"]
    assert recorder.reported[0][1] == Outcome.complete({"replied": ["p1", "p2"]})
    view = rota.get_agent(agent_id)
    assert view["inbox"]["unread"] == 0
    assert view["lease"] is None
    assert "activation.completed" in event_types(rota, agent_id)


def _answered(node_url: str, route: str) -> float:
    """Answered POST requests of an API route so far, from the node's ``/metrics``."""
    text = httpx.get(node_url + "/metrics").text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("rota_http_requests_seconds_count{")
        and 'method="POST"' in line
        and f'route="{route}"' in line
    )


def test_while_work_waits_each_report_carries_the_next_claim(
    node: Node, rota: Rota, agent_id: str
) -> None:
    agents = [agent_id, agent_id + "-b", agent_id + "-c", agent_id + "-d"]
    for agent in agents:
        rota.register_agent(agent, capabilities=[capability(agent_id)])
        rota.notify(agent, "mention", {"postId": agent})
    claims = _answered(node.url, "/v1/claims")
    completions = _answered(node.url, "/v1/leases/{leaseId}/complete")
    recorder = Recorder()

    with Runner(rota, lambda a, c: None, listener=recorder, **runner_options(agent_id)):
        wait_until("four activations reported", lambda: len(recorder.reported) == 4)
        # The first claim, and at most the long poll begun once the fourth report's claim found
        # nothing; a claim per turn would be four.
        assert _answered(node.url, "/v1/claims") - claims <= 2
        assert _answered(node.url, "/v1/leases/{leaseId}/complete") - completions == 4

    for agent in agents:
        assert rota.get_agent(agent)["activationCount"] == 1


def test_heartbeats_keep_the_lease_past_its_length(rota: Rota, agent_id: str) -> None:
    register(rota, agent_id)
    rota.notify(agent_id, "mention")
    recorder = Recorder()

    def handle(activation: Activation, context: Context) -> Outcome:
        context.sleep(8.0)  # the lease is 5 s: only heartbeats keep it
        return Outcome.complete({"slept": 8})

    with Runner(rota, handle, listener=recorder, **runner_options(agent_id, lease_seconds=5)):
        wait_until("the activation is reported", lambda: bool(recorder.reported), timeout=30)

    assert recorder.cancelled == []
    assert recorder.heartbeats >= 3, "a heartbeat every third of the 5 s lease"
    [(activation, outcome)] = recorder.reported
    assert outcome.action == "complete"
    assert activation.lease_seconds == 5
    types = event_types(rota, agent_id)
    assert "lease.expired" not in types
    assert types.count("activation.completed") == 1
    assert rota.get_agent(agent_id)["inbox"]["unread"] == 0


async def test_a_coroutine_that_overruns_its_lease_is_cancelled(
    node: Node, rota: Rota, agent_id: str
) -> None:
    register(rota, agent_id)
    rota.notify(agent_id, "mention")
    recorder = Recorder()
    stopped = asyncio.Event()
    started = time.monotonic()

    async def handle(activation: Activation, context: Context) -> Outcome:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            stopped.set()
            raise
        return Outcome.complete()

    async with AsyncRota(node.url) as client:
        # No heartbeat before the 5 s lease runs out: the deadline must stop the handler.
        runner = AsyncRunner(
            client,
            handle,
            listener=recorder,
            **runner_options(agent_id, lease_seconds=5, heartbeat_interval=60.0),
        )
        running = asyncio.create_task(runner.run())
        await asyncio.wait_for(stopped.wait(), timeout=20)
        elapsed = time.monotonic() - started
        runner.stop(grace=1.0)
        await asyncio.wait_for(running, timeout=20)

    assert 4.0 <= elapsed < 10.0
    assert [reason for _, reason in recorder.cancelled] == [CancelReason.LEASE_EXPIRED]
    assert recorder.reported == [], "a cancelled activation is never reported"
    assert "activation.completed" not in event_types(rota, agent_id)
    # The lease ran out on the server too: the notification comes back with the next attempt.
    again = await asyncio.to_thread(
        rota.claim,
        "r-after-overrun",
        mode="notification",
        capabilities=[capability(agent_id)],
        wait_seconds=20,
    )
    assert again.activation is not None
    assert again.activation.attempt == 2
    rota.complete(again.activation.lease_id, "r-after-overrun")


def test_a_plain_handler_that_overruns_sees_its_context_cancelled(
    rota: Rota, agent_id: str
) -> None:
    register(rota, agent_id)
    rota.notify(agent_id, "mention")
    recorder = Recorder()
    reasons: list[CancelReason | None] = []

    def handle(activation: Activation, context: Context) -> Outcome:
        context.wait_cancelled(30)
        reasons.append(context.reason)
        return Outcome.complete()  # too late: not reported

    options = runner_options(agent_id, lease_seconds=5, heartbeat_interval=60.0)
    with Runner(rota, handle, listener=recorder, **options):
        wait_until("the handler is stopped", lambda: bool(recorder.cancelled), timeout=20)

    assert reasons == [CancelReason.LEASE_EXPIRED]
    assert recorder.reported == []
    assert "activation.completed" not in event_types(rota, agent_id)


def test_outcomes_and_exceptions_become_failures(rota: Rota, agent_id: str) -> None:
    register(rota, agent_id, max_attempts=5)
    rota.notify(agent_id, "mention")
    recorder = Recorder()
    attempts: list[int] = []

    def handle(activation: Activation, context: Context) -> Outcome:
        attempts.append(activation.attempt)
        if activation.attempt == 1:
            raise RuntimeError("model timeout")
        return Outcome.snooze(120, "come back later")

    # Two slots: a retry avoids the slot that failed it for 30 s (decision 69), the other takes it.
    options = runner_options(agent_id, concurrency=2)
    with Runner(rota, handle, listener=recorder, **options):
        wait_until("two activations are reported", lambda: len(recorder.reported) == 2)

    assert attempts == [1, 2]
    first, second = (outcome for _, outcome in recorder.reported)
    assert first.action == "retry"
    assert first.error is not None and "model timeout" in first.error
    assert second == Outcome.snooze(120, "come back later")
    view = rota.get_agent(agent_id)
    assert view["status"] == "snoozed"
    failed = [e for e in rota.history(agent_id) if e["type"] == "activation.failed"]
    assert sorted(e["action"] for e in failed) == ["retry", "snooze"]


def test_runs_at_most_concurrency_handlers_at_once(rota: Rota, agent_id: str) -> None:
    cap = capability(agent_id)
    agents = [f"{agent_id}-{i}" for i in range(3)]
    for a in agents:
        rota.register_agent(a, capabilities=[cap])
        rota.notify(a, "mention")
    lock = threading.Lock()
    now_running = 0
    most = 0
    release = threading.Event()
    recorder = Recorder()

    def handle(activation: Activation, context: Context) -> None:
        nonlocal now_running, most
        with lock:
            now_running += 1
            most = max(most, now_running)
        release.wait(10)
        with lock:
            now_running -= 1

    with Runner(rota, handle, listener=recorder, **runner_options(agent_id, concurrency=2)) as r:
        wait_until("two handlers run", lambda: most == 2)
        time.sleep(0.5)  # a third slot, if there were one, would have claimed by now
        assert r.busy == 2
        release.set()
        wait_until("all three are reported", lambda: len(recorder.reported) == 3)

    assert most == 2
    assert {a.agent_id for a, _ in recorder.reported} == set(agents)
    assert {a.lease_id for a in recorder.claimed} == {a.lease_id for a, _ in recorder.reported}


def test_stop_hands_back_a_running_lease_without_using_an_attempt(
    rota: Rota, agent_id: str
) -> None:
    register(rota, agent_id)
    rota.notify(agent_id, "mention")
    recorder = Recorder()

    def handle(activation: Activation, context: Context) -> Outcome:
        context.wait_cancelled(60)
        return Outcome.complete()

    runner = Runner(rota, handle, listener=recorder, **runner_options(agent_id)).start()
    wait_until("the handler runs", lambda: runner.busy == 1)
    began = time.monotonic()
    runner.stop(grace=0.5)

    assert time.monotonic() - began < 10
    assert [reason for _, reason in recorder.cancelled] == [CancelReason.SHUTDOWN]
    assert rota.get_agent(agent_id)["lease"] is None
    again = rota.claim(
        "r-after-stop", mode="notification", capabilities=[capability(agent_id)], wait_seconds=10
    )
    assert again.activation is not None
    assert again.activation.attempt == 1, "a handed-back lease uses up no attempt"
    rota.complete(again.activation.lease_id, "r-after-stop")
