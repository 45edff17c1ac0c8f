"""A runner that drains an agent's inbox and posts a reply through a pluggable "model".

The model here is a local stub, so the example runs offline; swap ``stub_model`` for a call to
your model client. Each notification may name a ``replyTo`` agent: the reply goes to that
agent's inbox (agents talking to each other), and the turn completes with the replies as its
result. Configured from the environment (``ROTA_URL``, ``ROTA_TOKEN``, ``ROTA_RUNNER_ID``,
``ROTA_CAPABILITIES``, ``ROTA_CONCURRENCY``); stops gracefully on SIGTERM or Ctrl-C.

    python examples/inbox_runner.py           # run until stopped
    python examples/inbox_runner.py --demo    # register two agents, exchange one message, exit
"""

from __future__ import annotations

import os
import sys
import threading
import uuid
from collections.abc import Callable

from rota import Activation, Context, Notification, Outcome, Rota, Runner, RunnerListener

Model = Callable[[str, list[Notification]], str]


def stub_model(agent_name: str, notifications: list[Notification]) -> str:
    """Stands in for a model call: a deterministic reply naming what it read."""
    topics = ", ".join(str(_field(n, "text") or n.type) for n in notifications)
    return f"{agent_name} read: {topics}"


def _field(notification: Notification, name: str) -> object:
    payload = notification.payload
    return payload.get(name) if isinstance(payload, dict) else None


def make_handler(rota: Rota, model: Model) -> Callable[[Activation, Context], Outcome]:
    def handle(activation: Activation, context: Context) -> Outcome:
        if not activation.notifications:
            return Outcome.complete({"replies": 0})  # an exploration or scheduled turn
        reply = model(
            str(activation.agent.get("name", activation.agent_id)), list(activation.notifications)
        )
        context.check()  # the lease may have been lost while the model thought
        targets = {_field(n, "replyTo") for n in activation.notifications}
        for target in sorted(t for t in targets if isinstance(t, str)):
            # The lease id makes the key unique per turn: a retried report posts nothing twice.
            rota.notify(
                target,
                "reply",
                {"text": reply, "from": activation.agent_id},
                dedupe_key=f"reply-{activation.lease_id}-{target}",
            )
        return Outcome.complete({"reply": reply})

    return handle


def run(rota: Rota, model: Model = stub_model) -> None:
    capabilities = [c for c in os.environ.get("ROTA_CAPABILITIES", "").split(",") if c]
    Runner(
        rota,
        make_handler(rota, model),
        runner_id=os.environ.get("ROTA_RUNNER_ID", "inbox-runner"),
        capabilities=capabilities,
        concurrency=int(os.environ.get("ROTA_CONCURRENCY", "2")),
        lease_seconds=60,
    ).run()


def demo(rota: Rota) -> None:
    """Two agents, one message from alice to bob, bob's reply back in alice's inbox."""
    capability = os.environ.get("ROTA_CAPABILITIES") or f"demo-{uuid.uuid4().hex[:8]}"
    alice, bob = f"alice-{capability}", f"bob-{capability}"
    for agent in (alice, bob):
        rota.register_agent(agent, name=agent.split("-")[0], capabilities=[capability])
    rota.notify(bob, "mention", {"text": "how is the build?", "replyTo": alice})
    replied = threading.Event()

    class Watch(RunnerListener):
        def on_reported(self, activation: Activation, outcome: Outcome) -> None:
            print(f"{activation.agent_id}: {outcome.action} {outcome.result}", flush=True)
            if activation.agent_id == alice:
                replied.set()

    runner = Runner(
        rota,
        make_handler(rota, stub_model),
        runner_id=f"demo-{capability}",
        mode="notification",
        capabilities=[capability],
        wait_seconds=2,
        listener=Watch(),
    ).start()
    try:
        if not replied.wait(30):
            sys.exit("no reply within 30 s")
    finally:
        runner.stop(grace=5)
    print("done", flush=True)


if __name__ == "__main__":
    with Rota(
        os.environ.get("ROTA_URL", "http://localhost:8080"), token=os.environ.get("ROTA_TOKEN")
    ) as client:
        if "--demo" in sys.argv:
            demo(client)
        else:
            run(client)
