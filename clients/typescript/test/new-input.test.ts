/**
 * New input during a turn against a real node: the client's input long poll, and through the
 * runner loop one policy at a time (a steered notification reaches the running handler, and one it
 * never takes is the next turn's; an interrupt aborts its signal with reason `interrupted` and the
 * next turn has everything; a rejecting agent refuses with TurnInProgress).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  Conflict,
  LeaseLost,
  Outcome,
  Rota,
  Runner,
  TurnCancelled,
  TurnInProgress,
  type Activation,
  type ActivationNotification,
  type CancelReason,
  type NewInputPolicy,
  type RunnerOptions,
} from "../src/index.js";
import { agentId, eventually, sharedNode, type Node } from "./node.js";
import { HttpProxy } from "./proxies.js";

let node: Node;
let rota: Rota;

before(async () => {
  node = await sharedNode();
  rota = new Rota(node.url, { timeoutMs: 10_000 });
});
after(() => node.stop());

/** An agent with the given policy, a capability of its own and one notification waiting. */
async function agentWithTurn(name: string, newInput: NewInputPolicy): Promise<{ id: string; capability: string }> {
  const id = agentId(name);
  const capability = `cap-${id}`;
  await rota.registerAgent(id, { capabilities: [capability], maxAttempts: 3, newInput });
  await rota.notify(id, "first");
  return { id, capability };
}

function runnerFor(client: Rota, capability: string, handler: ConstructorParameters<typeof Runner>[1], options: RunnerOptions = {}): Runner {
  return new Runner(client, handler, { mode: "notification", capabilities: [capability], waitSeconds: 1, shutdownGraceMs: 2_000, ...options });
}

/** A promise and its resolve, for a handler to say it started. */
function latch(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe("new input during a turn", () => {
  test("awaitInput: empty after its wait, then the steered notification once, then the interrupt; reports answer 410 interrupted", async () => {
    const runnerId = `input-client-${process.pid}`;
    const { id, capability } = await agentWithTurn("input-client", "steer");
    const claimed = await eventually("the claim", async () => {
      const answer = await rota.claim(runnerId, { mode: "notification", capabilities: [capability], waitSeconds: 1 });
      return answer.status === "assigned" ? answer.assignment : undefined;
    });
    assert.equal(claimed.agent.newInput, "steer");
    const leaseId = claimed.leaseId;

    const quiet = await rota.awaitInput(leaseId, runnerId, { waitSeconds: 0 });
    assert.deepEqual(quiet, { notifications: [], interrupted: false });

    // A long poll answered as soon as a notification is steered into the lease.
    const waiting = rota.awaitInput(leaseId, runnerId, { waitSeconds: 20 });
    await new Promise((r) => setTimeout(r, 300));
    const steered = await rota.notify(id, "second", { text: "also this" });
    assert.equal(steered.steered, true);
    const heard = await waiting;
    assert.equal(heard.interrupted, false);
    assert.deepEqual(heard.notifications.map((n) => [n.notificationId, n.type, n.payload]), [[steered.notificationId, "second", { text: "also this" }]]);
    // Given once: neither a second poll nor the heartbeat gives it again.
    assert.deepEqual((await rota.awaitInput(leaseId, runnerId, { waitSeconds: 0 })).notifications, []);
    assert.deepEqual((await rota.heartbeat(leaseId, runnerId)).notifications, []);

    // The notification's own policy interrupts.
    const interrupting = await rota.notify(id, "stop", undefined, { newInput: "interrupt" });
    assert.equal(interrupting.interrupted, true);
    const ended = await rota.awaitInput(leaseId, runnerId, { waitSeconds: 5 });
    assert.equal(ended.interrupted, true);
    assert.equal(ended.reason, "interrupted");
    await assert.rejects(rota.complete(leaseId, runnerId), (error: unknown) => {
      assert.ok(error instanceof LeaseLost, String(error));
      assert.equal(error.status, 410);
      assert.equal(error.reason, "interrupted");
      assert.equal(error.interrupted, true);
      return true;
    });
    const agent = await rota.getAgent(id);
    assert.equal(agent.inbox.unread, 3, "the interrupted lease's notifications are unread again, with the new one");
  });

  test("steer: a notification posted during a running turn reaches the handler's iterator, and completing the lease completes it", async () => {
    const { id, capability } = await agentWithTurn("steer", "steer");
    const started = latch();
    const heard: ActivationNotification[] = [];
    const reported: Activation[] = [];
    const proxy = await HttpProxy.start(node.url);
    const client = new Rota(proxy.url, { timeoutMs: 10_000 });
    const runner = runnerFor(client, capability, async (_activation, context) => {
      started.open();
      for await (const notification of context.input()) {
        heard.push(notification);
        break;
      }
      return Outcome.complete({ heard: heard.length });
    }, { listener: { onReported: (activation) => reported.push(activation) } });
    void runner.run();
    try {
      await started.promise;
      const accepted = await rota.notify(id, "second", { text: "and another thing" });
      assert.equal(accepted.steered, true);
      await eventually("the turn reported", async () => (reported.length > 0 ? true : undefined), 20_000);
    } finally {
      await runner.stop();
      await proxy.close();
    }
    assert.deepEqual(heard.map((n) => [n.type, n.payload]), [["second", { text: "and another thing" }]]);
    assert.ok(proxy.count("POST", "/input") >= 1, "the turn of a steering agent long-polls its input");
    const agent = await rota.getAgent(id);
    assert.equal(agent.inbox.unread, 0, "completing the lease completed the steered notification");
    assert.equal(agent.activationCount, 1);
  });

  test("steer through the heartbeat: without the input poll, the heartbeat's answer brings it, once, to nextInput()", async () => {
    const { id, capability } = await agentWithTurn("steer-heartbeat", "steer");
    const started = latch();
    const heard: string[] = [];
    let afterwards: number | undefined;
    let reported = 0;
    const proxy = await HttpProxy.start(node.url);
    const client = new Rota(proxy.url, { timeoutMs: 10_000 });
    const runner = runnerFor(client, capability, async (_activation, context) => {
      started.open();
      const first = await context.nextInput(20_000);
      if (first !== undefined) {
        heard.push(first.type);
      }
      // Heartbeats go on meanwhile: none gives it again.
      const again = await context.nextInput(1_000);
      afterwards = again === undefined ? 0 : 1;
    }, { followInput: "never", heartbeatIntervalMs: 200, listener: { onReported: () => reported++ } });
    void runner.run();
    try {
      await started.promise;
      assert.equal((await rota.notify(id, "second")).steered, true);
      await eventually("the turn reported", async () => (reported > 0 ? true : undefined), 20_000);
    } finally {
      await runner.stop();
      await proxy.close();
    }
    assert.deepEqual(heard, ["second"]);
    assert.equal(afterwards, 0);
    assert.equal(proxy.count("POST", "/input"), 0, "followInput never: no input poll");
    assert.ok(proxy.count("POST", "/heartbeat") >= 2);
    assert.equal((await rota.getAgent(id)).inbox.unread, 0);
  });

  test("steer: a notification the handler never took stays unread, and the next turn carries it", async () => {
    const { id, capability } = await agentWithTurn("steer-untaken", "steer");
    const started = latch();
    const release = latch();
    const turns: string[][] = [];
    let heartbeats = 0;
    let reported = 0;
    const runner = runnerFor(rota, capability, async (activation) => {
      turns.push(activation.notifications.map((n) => n.type));
      if (turns.length === 1) {
        started.open();
        await release.promise;
      }
    }, { followInput: "never", heartbeatIntervalMs: 200, listener: { onHeartbeat: () => heartbeats++, onReported: () => reported++ } });
    void runner.run();
    try {
      await started.promise;
      assert.equal((await rota.notify(id, "second")).steered, true);
      const beats = heartbeats;
      // The second heartbeat after the notification was sent after it: its answer brought it.
      await eventually("it reached the runner", async () => (heartbeats >= beats + 3 ? true : undefined), 20_000);
      release.open();
      await eventually("two turns reported", async () => (reported >= 2 ? true : undefined), 20_000);
    } finally {
      release.open();
      await runner.stop();
    }
    assert.deepEqual(turns, [["first"], ["second"]]);
    const agent = await rota.getAgent(id);
    assert.equal(agent.inbox.unread, 0);
    assert.equal(agent.activationCount, 2);
  });

  test("a notification's own steer reaches the onInput callback of a runner that always follows the input", async () => {
    const { id, capability } = await agentWithTurn("steer-own", "queue");
    const started = latch();
    const heardOne = latch();
    const heard: string[] = [];
    let reported = 0;
    const runner = runnerFor(rota, capability, async (_activation, context) => {
      context.onInput((notification) => {
        heard.push(notification.type);
        heardOne.open();
      });
      started.open();
      await Promise.race([heardOne.promise, new Promise((r) => setTimeout(r, 20_000))]);
    }, { followInput: "always", listener: { onReported: () => reported++ } });
    void runner.run();
    try {
      await started.promise;
      assert.equal((await rota.notify(id, "second", undefined, { newInput: "steer" })).steered, true);
      await eventually("the turn reported", async () => (reported > 0 ? true : undefined), 20_000);
    } finally {
      await runner.stop();
    }
    assert.deepEqual(heard, ["second"]);
    assert.equal((await rota.getAgent(id)).inbox.unread, 0);
  });

  test("interrupt: the handler's signal is aborted with reason interrupted, nothing is reported, the next turn carries the notifications", async () => {
    const { id, capability } = await agentWithTurn("interrupt", "interrupt");
    const started = latch();
    const carried: number[] = [];
    let stoppedFor: unknown;
    let iteratorThrew: unknown;
    const cancelled: CancelReason[] = [];
    const reported: Activation[] = [];
    const proxy = await HttpProxy.start(node.url);
    const client = new Rota(proxy.url, { timeoutMs: 10_000 });
    const runner = runnerFor(client, capability, async (activation, context) => {
      carried.push(activation.notifications.length);
      if (carried.length === 1) {
        started.open();
        try {
          for await (const notification of context.input()) {
            assert.fail(`an interrupting agent steers nothing: ${notification.type}`);
          }
        } catch (error) {
          iteratorThrew = error;
        }
        stoppedFor = context.signal.reason;
        return Outcome.complete(); // not reported: the lease is gone
      }
      return Outcome.complete();
    }, { listener: { onCancelled: (_activation, reason) => cancelled.push(reason), onReported: (activation) => reported.push(activation) } });
    void runner.run();
    try {
      await started.promise;
      const accepted = await rota.notify(id, "stop");
      assert.equal(accepted.interrupted, true);
      await eventually("the next turn reported", async () => (reported.length > 0 ? true : undefined), 20_000);
    } finally {
      await runner.stop();
      await proxy.close();
    }
    assert.ok(stoppedFor instanceof TurnCancelled && stoppedFor.reason === "interrupted", String(stoppedFor));
    assert.ok(iteratorThrew instanceof TurnCancelled && iteratorThrew.reason === "interrupted", String(iteratorThrew));
    assert.deepEqual(cancelled, ["interrupted"]);
    assert.deepEqual(carried, [1, 2]);
    const reports = proxy.seen.filter((s) => s.method === "POST" && (s.path.endsWith("/complete") || s.path.endsWith("/fail")));
    assert.equal(reports.length, 1, "only the second turn is reported");
    const agent = await rota.getAgent(id);
    assert.equal(agent.inbox.unread, 0);
    assert.equal(agent.activationCount, 1);
  });

  test("reject: a notification during a running turn is refused with TurnInProgress and its retryAfter", async () => {
    const { id, capability } = await agentWithTurn("reject", "reject");
    const started = latch();
    const release = latch();
    let reported = 0;
    const runner = runnerFor(rota, capability, async () => {
      started.open();
      await release.promise;
    }, { listener: { onReported: () => reported++ } });
    void runner.run();
    try {
      await started.promise;
      await assert.rejects(rota.notify(id, "second"), (error: unknown) => {
        assert.ok(error instanceof TurnInProgress, String(error));
        assert.ok(error instanceof Conflict);
        assert.equal(error.status, 409);
        assert.equal(error.code, "turn_in_progress");
        assert.ok(error.retryAfter !== undefined && error.retryAfter >= 0, `retryAfter ${error.retryAfter}`);
        return true;
      });
      release.open();
      await eventually("the turn reported", async () => (reported > 0 ? true : undefined), 20_000);
    } finally {
      release.open();
      await runner.stop();
    }
    const agent = await rota.getAgent(id);
    assert.equal(agent.inbox.unread, 0, "nothing of the refused notification was stored");
    assert.equal(agent.activationCount, 1);
  });
});
