import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Outcome, Rota, Runner, TurnCancelled, type Activation, type CancelReason, type RunnerOptions } from "../src/index.js";
import { agentId, eventually, sharedNode, type Node } from "./node.js";
import { HttpProxy } from "./proxies.js";

let node: Node;
let rota: Rota;

before(async () => {
  node = await sharedNode();
  rota = new Rota(node.url, { timeoutMs: 10_000 });
});
after(() => node.stop());

/** An agent with a capability of its own, so that only this test's runner takes its turns. */
async function agentWithWork(name: string, notifications = 1): Promise<{ id: string; capability: string }> {
  const id = agentId(name);
  const capability = `cap-${id}`;
  await rota.registerAgent(id, { capabilities: [capability], maxAttempts: 3 });
  for (let n = 0; n < notifications; n++) {
    await rota.notify(id, "job", { n });
  }
  return { id, capability };
}

function runnerFor(capability: string, handler: ConstructorParameters<typeof Runner>[1], options: RunnerOptions = {}): Runner {
  return new Runner(rota, handler, { mode: "notification", capabilities: [capability], waitSeconds: 1, shutdownGraceMs: 2_000, ...options });
}

async function historyTypes(id: string): Promise<string[]> {
  return (await rota.history(id, { limit: 50 })).map((e) => e.type);
}

describe("Runner", () => {
  test("completes a turn with its result and sends each notification once", async () => {
    const { id, capability } = await agentWithWork("completes", 2);
    const turns: Activation[] = [];
    const runner = runnerFor(capability, (activation) => {
      turns.push(activation);
      return Outcome.complete({ handled: activation.notifications.length });
    }, { runnerId: `completes-${process.pid}` });
    const running = runner.run();
    try {
      await eventually("the inbox read", async () => ((await rota.getAgent(id)).inbox.unread === 0 && (await rota.getAgent(id)).activationCount >= 1 ? true : undefined));
    } finally {
      await runner.stop();
      await running;
    }
    assert.equal(turns[0]?.agentId, id);
    assert.equal(turns[0]?.notifications.length, 2);
    assert.equal(turns[0]?.kind, "inbox");
    assert.ok((await rota.runners()).some((r) => r.runnerId === `completes-${process.pid}`), "the runner's identity is its runnerId");
  });

  test("heartbeats at a third of the lease keep a turn longer than its lease alive", async () => {
    const { id, capability } = await agentWithWork("heartbeats");
    let beats = 0;
    let aborted = false;
    const runner = runnerFor(capability, async (_activation, context) => {
      await new Promise((r) => setTimeout(r, 7_500));
      aborted = context.signal.aborted;
    }, { leaseSeconds: 5, listener: { onHeartbeat: () => beats++ } });
    void runner.run();
    try {
      await eventually("the turn completed", async () => ((await historyTypes(id)).some((t) => t.includes("completed")) ? true : undefined), 20_000);
    } finally {
      await runner.stop();
    }
    assert.equal(aborted, false);
    assert.ok(beats >= 3, `${beats} heartbeats in 7.5 s of a 5 s lease`);
    assert.equal((await rota.getAgent(id)).inbox.unread, 0);
  });

  test("the turn's signal fires when the node answers the heartbeat that the lease is lost, and nothing is reported", async () => {
    const { id, capability } = await agentWithWork("lease-lost");
    const proxy = await HttpProxy.start(node.url);
    proxy.intercept = (seen) => (seen.path.includes("/heartbeat") ? { status: 410, body: '{"error":"lease_lost","message":"superseded"}' } : undefined);
    const client = new Rota(proxy.url, { timeoutMs: 10_000 });
    let reason: CancelReason | undefined;
    let cancelled: CancelReason | undefined;
    const runner = new Runner(client, async (_activation, context) => {
      await new Promise<void>((resolve) => context.signal.addEventListener("abort", () => resolve()));
      reason = (context.signal.reason as TurnCancelled).reason;
      return Outcome.complete();
    }, { mode: "notification", capabilities: [capability], waitSeconds: 1, heartbeatIntervalMs: 300, listener: { onCancelled: (_a, r) => (cancelled = r) } });
    void runner.run();
    try {
      await eventually("the cancellation", async () => cancelled, 10_000);
    } finally {
      await runner.stop(0);
      await proxy.close();
    }
    assert.equal(reason, "lease_lost");
    assert.equal(cancelled, "lease_lost");
    assert.equal(proxy.count("POST", "/complete"), 0, "nothing reported for a lost lease");
    assert.ok(!(await historyTypes(id)).some((t) => t.includes("completed")));
  });

  test("the turn's signal fires at the deadline when no heartbeat succeeds", async () => {
    const { capability } = await agentWithWork("deadline");
    let reason: unknown;
    const runner = runnerFor(capability, async (_activation, context) => {
      await new Promise<void>((resolve) => context.signal.addEventListener("abort", () => resolve()));
      reason = context.signal.reason;
    }, { leaseSeconds: 5, heartbeatIntervalMs: 60_000 });
    const started = performance.now();
    void runner.run();
    try {
      await eventually("the deadline", async () => reason, 15_000);
    } finally {
      await runner.stop(0);
    }
    assert.ok(reason instanceof TurnCancelled && reason.reason === "lease_expired", String(reason));
    assert.ok(performance.now() - started >= 4_000);
  });

  test("outcomes: a thrown error retries, snooze holds the agent back, discard dead-letters", async () => {
    const retried = await agentWithWork("outcome-retry");
    let attempts = 0;
    const retrying = runnerFor(retried.capability, (activation) => {
      attempts = Math.max(attempts, activation.attempt);
      if (activation.attempt === 1) {
        throw new Error("model timeout");
      }
    }, { concurrency: 2 }); // the node gives a failed turn to another runner id first: the other slot
    void retrying.run();
    await eventually("the second attempt", async () => ((await rota.getAgent(retried.id)).inbox.unread === 0 ? true : undefined), 20_000);
    await retrying.stop();
    assert.equal(attempts, 2);

    const snoozed = await agentWithWork("outcome-snooze");
    const snoozing = runnerFor(snoozed.capability, () => Outcome.snooze(600, "not now"));
    void snoozing.run();
    await eventually("snoozed", async () => ((await rota.getAgent(snoozed.id)).status === "snoozed" ? true : undefined));
    await snoozing.stop();
    assert.equal((await rota.getAgent(snoozed.id)).inbox.unread, 1);

    const discarded = await agentWithWork("outcome-discard");
    const discarding = runnerFor(discarded.capability, () => Outcome.discard("poison"));
    void discarding.run();
    const letters = await eventually("the dead letter", async () => {
      const found = await rota.deadLetters({ agentId: discarded.id });
      return found.length > 0 ? found : undefined;
    });
    await discarding.stop();
    assert.equal(letters.length, 1);

    const cancelledAgent = await agentWithWork("outcome-cancel");
    const cancelling = runnerFor(cancelledAgent.capability, () => Outcome.cancel("not wanted"));
    void cancelling.run();
    await eventually("the cancelled letter", async () => ((await rota.deadLetters({ agentId: cancelledAgent.id })).length === 1 ? true : undefined));
    await cancelling.stop();
  });

  test("runs at most `concurrency` turns at once, each slot under its own runner id", async () => {
    const capability = `cap-${agentId("concurrency")}`;
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const id = agentId(`concurrency-${i}`);
      ids.push(id);
      await rota.registerAgent(id, { capabilities: [capability] });
      await rota.notify(id, "job");
    }
    let now = 0;
    let most = 0;
    const slots = new Set<string>();
    const runner = runnerFor(capability, async (_activation, context) => {
      now += 1;
      most = Math.max(most, now);
      slots.add(context.runnerId);
      await new Promise((r) => setTimeout(r, 700));
      now -= 1;
    }, { concurrency: 2, runnerId: `pair-${process.pid}` });
    void runner.run();
    try {
      await eventually("every inbox read", async () => {
        for (const id of ids) {
          if ((await rota.getAgent(id)).inbox.unread > 0) {
            return undefined;
          }
        }
        return true;
      }, 20_000);
    } finally {
      await runner.stop();
    }
    assert.equal(most, 2);
    assert.deepEqual([...slots].sort(), [`pair-${process.pid}-1`, `pair-${process.pid}-2`]);
    assert.deepEqual(runner.slotIds, [`pair-${process.pid}-1`, `pair-${process.pid}-2`]);
  });

  test("stop() fires the signal after the grace and hands the lease back without using an attempt", async () => {
    const { id, capability } = await agentWithWork("hands-back");
    let started = false;
    const runner = runnerFor(capability, async (_activation, context) => {
      started = true;
      await new Promise<void>((resolve) => context.signal.addEventListener("abort", () => resolve()));
    }, { leaseSeconds: 300 });
    void runner.run();
    await eventually("the turn", async () => (started ? true : undefined));
    assert.equal((await rota.getAgent(id)).status, "leased");
    const stopping = performance.now();
    await runner.stop(200);
    assert.ok(performance.now() - stopping < 5_000);
    const agent = await rota.getAgent(id);
    assert.notEqual(agent.status, "leased");
    assert.equal(agent.lease, null);
    assert.equal(agent.inbox.unread, 1);
    const again = await eventually("the next claim", async () => {
      const answer = await rota.claim(`hands-back-check-${process.pid}`, { capabilities: [capability], waitSeconds: 1 });
      return answer.status === "assigned" ? answer.assignment : undefined;
    });
    assert.equal(again.attempt, 1, "the hand-back used no attempt");
    await rota.complete(again.leaseId, `hands-back-check-${process.pid}`);
  });

  test("a degraded runner is refused work until it reports healthy, which wakes it at once", async () => {
    const { id, capability } = await agentWithWork("degraded");
    const refusals: string[] = [];
    let turns = 0;
    const runner = runnerFor(capability, () => {
      turns += 1;
    }, { runnerId: `sick-${process.pid}`, listener: { onRefused: (_slot, reason) => refusals.push(reason) } });
    const states = await runner.reportHealth(true, { reason: "no API key", seconds: 300 });
    assert.equal(states[0]?.status, "degraded");
    void runner.run();
    try {
      await eventually("a refusal", async () => (refusals.length > 0 ? true : undefined));
      assert.equal(refusals[0], "degraded");
      assert.equal(turns, 0);
      const view = (await rota.runners()).find((r) => r.runnerId === `sick-${process.pid}`);
      assert.equal(view?.status, "degraded");
      const woke = performance.now();
      await runner.reportHealth(false);
      await eventually("the turn after recovery", async () => ((await rota.getAgent(id)).inbox.unread === 0 ? true : undefined));
      assert.ok(performance.now() - woke < 10_000, "woken before the refusal's retryAfterSeconds");
    } finally {
      await runner.stop();
    }
    assert.equal(turns, 1);
  });
});
