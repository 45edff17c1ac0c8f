"""New input during a turn through the runner loop, one policy at a time, against a real node:
a steered notification reaches the running handler (one it never takes is the next turn's), an
interrupt cancels it with ``CancelReason.INTERRUPTED`` and the next turn has everything, a
rejecting agent refuses, a queueing one keeps the notification for the next turn."""

from __future__ import annotations

import threading

import pytest

from rota import (
    Activation,
    CancelReason,
    Context,
    Notification,
    Outcome,
    Rota,
    Runner,
    TurnInProgress,
)

from .support import register, wait_until
from .test_runner import Recorder, runner_options


def _started_turn(
    rota: Rota, agent_id: str, new_input: str
) -> tuple[threading.Event, threading.Event]:
    register(rota, agent_id, new_input=new_input)
    rota.notify(agent_id, "first")
    return threading.Event(), threading.Event()


def test_a_steered_notification_reaches_the_running_handler(rota: Rota, agent_id: str) -> None:
    started, _ = _started_turn(rota, agent_id, "steer")
    heard: list[str] = []
    recorder = Recorder()

    def handle(activation: Activation, context: Context) -> Outcome:
        started.set()
        steered = context.next_input(timeout=20)
        if steered is not None:
            heard.append(steered.type)
        return Outcome.complete()

    with Runner(rota, handle, listener=recorder, **runner_options(agent_id)):
        assert started.wait(20)
        result = rota.notify(agent_id, "second")
        assert result.steered
        wait_until("the turn is reported", lambda: bool(recorder.reported))

    assert heard == ["second"]
    view = rota.get_agent(agent_id)
    assert view["inbox"]["unread"] == 0
    assert view["activationCount"] == 1


def test_a_steered_notification_the_handler_never_took_is_the_next_turns(
    rota: Rota, agent_id: str
) -> None:
    started, release = _started_turn(rota, agent_id, "steer")
    turns: list[list[str]] = []
    recorder = Recorder()

    def handle(activation: Activation, context: Context) -> Outcome:
        turns.append([n.type for n in activation.notifications])
        if len(turns) == 1:
            started.set()
            release.wait(20)
        return Outcome.complete()

    options = runner_options(agent_id, follow_input="never", heartbeat_interval=0.2)
    with Runner(rota, handle, listener=recorder, **options):
        assert started.wait(20)
        assert rota.notify(agent_id, "second").steered
        beats = recorder.heartbeats
        # The second heartbeat after the notification was sent after it: its answer brought it.
        wait_until("it reached the runner", lambda: recorder.heartbeats >= beats + 3)
        release.set()
        wait_until("two turns are reported", lambda: len(recorder.reported) >= 2)

    assert turns == [["first"], ["second"]]
    view = rota.get_agent(agent_id)
    assert view["inbox"]["unread"] == 0
    assert view["activationCount"] == 2


def test_a_notifications_own_steer_reaches_the_callback(rota: Rota, agent_id: str) -> None:
    started, heard_one = _started_turn(rota, agent_id, "queue")
    heard: list[Notification] = []
    recorder = Recorder()

    def handle(activation: Activation, context: Context) -> Outcome:
        def on_input(n: Notification) -> None:
            heard.append(n)
            heard_one.set()

        context.on_input(on_input)
        started.set()
        heard_one.wait(20)
        return Outcome.complete()

    options = runner_options(agent_id, follow_input="always")
    with Runner(rota, handle, listener=recorder, **options):
        assert started.wait(20)
        rota.notify(agent_id, "second", new_input="steer")
        wait_until("the turn is reported", lambda: bool(recorder.reported))

    assert [n.type for n in heard] == ["second"]
    assert rota.get_agent(agent_id)["inbox"]["unread"] == 0


def test_an_interrupt_cancels_the_handler_and_the_next_turn_has_everything(
    rota: Rota, agent_id: str
) -> None:
    started, _ = _started_turn(rota, agent_id, "interrupt")
    carried: list[int] = []
    stopped_for: list[CancelReason | None] = []
    recorder = Recorder()

    def handle(activation: Activation, context: Context) -> Outcome:
        carried.append(len(activation.notifications))
        if len(carried) == 1:
            started.set()
            context.wait_cancelled(20)
            stopped_for.append(context.reason)
        return Outcome.complete()

    with Runner(rota, handle, listener=recorder, **runner_options(agent_id)):
        assert started.wait(20)
        assert rota.notify(agent_id, "stop").interrupted
        wait_until("the next turn is reported", lambda: bool(recorder.reported))

    assert stopped_for == [CancelReason.INTERRUPTED]
    assert [reason for _, reason in recorder.cancelled] == [CancelReason.INTERRUPTED]
    assert carried == [1, 2]
    view = rota.get_agent(agent_id)
    assert view["inbox"]["unread"] == 0
    assert view["activationCount"] == 1


def test_a_rejecting_agent_refuses_new_input_while_its_turn_runs(rota: Rota, agent_id: str) -> None:
    started, release = _started_turn(rota, agent_id, "reject")
    recorder = Recorder()

    def handle(activation: Activation, context: Context) -> Outcome:
        started.set()
        release.wait(20)
        return Outcome.complete()

    with Runner(rota, handle, listener=recorder, **runner_options(agent_id)):
        assert started.wait(20)
        with pytest.raises(TurnInProgress) as refused:
            rota.notify(agent_id, "second")
        assert refused.value.retry_after is not None
        release.set()
        wait_until("the turn is reported", lambda: bool(recorder.reported))

    assert rota.get_agent(agent_id)["inbox"]["unread"] == 0


def test_a_queueing_agents_turn_hears_nothing_and_the_next_turn_has_it(
    rota: Rota, agent_id: str
) -> None:
    started, release = _started_turn(rota, agent_id, "queue")
    heard: list[int] = []
    recorder = Recorder()

    def handle(activation: Activation, context: Context) -> Outcome:
        started.set()
        release.wait(20)
        heard.append(len(context.drain_input()))
        return Outcome.complete()

    options = runner_options(agent_id, heartbeat_interval=0.2)
    with Runner(rota, handle, listener=recorder, **options):
        assert started.wait(20)
        result = rota.notify(agent_id, "second")
        assert not result.steered and not result.interrupted
        beats = recorder.heartbeats
        wait_until("a heartbeat after the notification", lambda: recorder.heartbeats > beats)
        release.set()
        wait_until("two turns are reported", lambda: len(recorder.reported) >= 2)

    assert heard == [0, 0]
    assert rota.get_agent(agent_id)["activationCount"] == 2
