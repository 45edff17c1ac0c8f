"""Agents that work together, against a real node: a turn's send reaching its target, an
orchestrator's group of calls answered and read back as typed replies in one turn, and a
producer's call waiting for the agent's answer."""

from __future__ import annotations

import threading

from rota import Activation, Context, Notification, Outcome, Reply, Rota, Runner

from .support import capability, wait_until
from .test_runner import runner_options


class Turns:
    """Every turn's notifications, by agent, in the order the turns ran."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_agent: dict[str, list[tuple[Notification, ...]]] = {}

    def add(self, activation: Activation) -> None:
        with self.lock:
            self.by_agent.setdefault(activation.agent_id, []).append(activation.notifications)

    def of(self, agent_id: str) -> list[tuple[Notification, ...]]:
        with self.lock:
            return list(self.by_agent.get(agent_id, []))

    def received(self, agent_id: str) -> list[Notification]:
        return [n for turn in self.of(agent_id) for n in turn]


def _team(rota: Rota, lead: str, *others: str) -> None:
    """Registers ``lead`` and ``others`` under the lead's test capability: one runner serves all."""
    for agent in (lead, *others):
        rota.register_agent(agent, capabilities=[capability(lead)])


def test_a_turns_send_reaches_its_target(rota: Rota, agent_id: str) -> None:
    target = f"{agent_id}-target"
    _team(rota, agent_id, target)
    rota.notify(agent_id, "start")
    turns = Turns()

    def handle(activation: Activation, context: Context) -> None:
        turns.add(activation)
        if activation.agent_id == agent_id:
            context.send(target, "task", {"step": 1})

    with Runner(rota, handle, **runner_options(agent_id, concurrency=2)):
        wait_until("the target's turn", lambda: bool(turns.received(target)), timeout=30)

    [task] = turns.received(target)
    assert task.type == "task"
    assert task.payload == {"step": 1}
    assert task.call is None


def test_an_orchestrators_group_of_calls_comes_back_as_typed_replies_in_one_turn(
    rota: Rota, agent_id: str
) -> None:
    workers = [f"{agent_id}-w{i}" for i in range(1, 4)]
    _team(rota, agent_id, *workers)
    rota.notify(agent_id, "start")
    turns = Turns()

    def handle(activation: Activation, context: Context) -> Outcome:
        turns.add(activation)
        if activation.agent_id != agent_id:
            return Outcome.complete({"worker": activation.agent_id})
        if any(n.type == "start" for n in activation.notifications):
            for worker in workers:
                context.call(worker, "task", {"part": 1}, group="review")
        return Outcome.complete()

    def replies() -> list[Reply]:
        for turn in turns.of(agent_id):
            found = [n.reply for n in turn if n.reply is not None]
            if found:
                return found
        return []

    with Runner(rota, handle, **runner_options(agent_id, concurrency=2)):
        wait_until("the orchestrator's turn with the replies", lambda: bool(replies()), 30)

    got = replies()
    assert len(got) == 3, f"all three replies in one turn: {got}"
    assert {r.from_.agent_id for r in got if r.from_ is not None} == set(workers)
    for reply in got:
        assert reply.status == "answered"
        assert reply.from_ is not None
        assert reply.result == {"worker": reply.from_.agent_id}
    [task] = turns.received(workers[0])
    assert task.call is not None
    assert task.call.from_ is not None and task.call.from_.agent_id == agent_id
    assert task.call.call_id in {r.call_id for r in got}


def test_a_producers_call_waits_for_the_agents_answer(rota: Rota, agent_id: str) -> None:
    _team(rota, agent_id)

    def handle(activation: Activation, context: Context) -> Outcome:
        [message] = activation.notifications
        assert message.call is not None
        return Outcome.complete({"text": f"you said {message.payload['text']}"})

    with Runner(rota, handle, **runner_options(agent_id)):
        answer = rota.call(agent_id, "chat.message", {"text": "hello"}, timeout_seconds=60, wait=30)

    assert answer.status == "answered", answer
    assert answer.result == {"text": "you said hello"}
    assert answer.answered_at is not None
    assert rota.get_call(answer.call_id) == answer
