import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Outcome, Rota, Runner, callOf, replyOf, type Activation, type ActivationNotification, type Handler, type Reply } from "../src/index.js";
import { agentId, eventually, sharedNode, type Node } from "./node.js";

/**
 * Agents that work together, against a real node: a turn's send reaching its target, an
 * orchestrator's group of calls answered and read back as typed replies in one turn, and a
 * producer's call waiting for the agent's answer.
 */
let node: Node;
let rota: Rota;

before(async () => {
  node = await sharedNode();
  rota = new Rota(node.url, { timeoutMs: 10_000 });
});
after(() => node.stop());

/** Every turn's notifications, by agent, in the order the turns ran. */
class Turns {
  private readonly byAgent = new Map<string, ActivationNotification[][]>();

  add(activation: Activation): void {
    const turns = this.byAgent.get(activation.agentId) ?? [];
    turns.push(activation.notifications);
    this.byAgent.set(activation.agentId, turns);
  }

  of(agent: string): ActivationNotification[][] {
    return this.byAgent.get(agent) ?? [];
  }

  received(agent: string): ActivationNotification[] {
    return this.of(agent).flat();
  }
}

/** Registers the agents under one capability of their own: one runner of the test serves them all. */
async function team(capability: string, ...agents: string[]): Promise<void> {
  for (const agent of agents) {
    await rota.registerAgent(agent, { capabilities: [capability] });
  }
}

async function withRunner<T>(capability: string, turns: Turns, handler: Handler, body: () => Promise<T>): Promise<T> {
  const runner = new Runner(
    rota,
    (activation, context) => {
      turns.add(activation);
      return handler(activation, context);
    },
    { mode: "notification", capabilities: [capability], concurrency: 2, waitSeconds: 1, shutdownGraceMs: 2_000 },
  );
  const running = runner.run();
  try {
    return await body();
  } finally {
    await runner.stop();
    await running;
  }
}

describe("agents that work together", () => {
  test("a turn's send reaches its target", async () => {
    const sender = agentId("sender");
    const target = agentId("target");
    const capability = `cap-${sender}`;
    await team(capability, sender, target);
    await rota.notify(sender, "start");
    const turns = new Turns();
    const task = await withRunner(
      capability,
      turns,
      (activation, context) => {
        if (activation.agentId === sender) {
          context.send(target, "task", { step: 1 });
        }
      },
      () => eventually("the target's turn", () => Promise.resolve(turns.received(target).find((n) => n.type === "task")), 30_000),
    );
    assert.deepEqual(task.payload, { step: 1 });
    assert.equal(callOf(task), undefined);
  });

  test("an orchestrator's group of calls comes back as typed replies in one turn", async () => {
    const boss = agentId("boss");
    const workers = [agentId("worker"), agentId("worker"), agentId("worker")];
    const capability = `cap-${boss}`;
    await team(capability, boss, ...workers);
    await rota.notify(boss, "start");
    const turns = new Turns();
    const repliesInOneTurn = (): Reply[] | undefined =>
      turns
        .of(boss)
        .map((turn) => turn.map(replyOf).filter((r): r is Reply => r !== undefined))
        .find((replies) => replies.length > 0);
    const replies = await withRunner(
      capability,
      turns,
      (activation, context) => {
        if (activation.agentId !== boss) {
          return Outcome.complete({ worker: activation.agentId });
        }
        if (activation.notifications.some((n) => n.type === "start")) {
          for (const worker of workers) {
            context.call(worker, "task", { part: 1 }, { group: "review" });
          }
        }
        return Outcome.complete();
      },
      () => eventually("the boss's turn with the replies", () => Promise.resolve(repliesInOneTurn()), 30_000),
    );
    assert.equal(replies.length, 3, `all three replies in one turn: ${JSON.stringify(replies)}`);
    assert.deepEqual(new Set(replies.map((r) => r.from.agentId)), new Set(workers));
    for (const reply of replies) {
      assert.equal(reply.status, "answered");
      assert.deepEqual(reply.result, { worker: reply.from.agentId });
    }
    const call = callOf(turns.received(workers[0]!)[0]!);
    assert.equal(call?.from.agentId, boss);
    assert.ok(replies.some((r) => r.callId === call?.callId));
  });

  test("a producer's call waits for the agent's answer", async () => {
    const bot = agentId("bot");
    const capability = `cap-${bot}`;
    await team(capability, bot);
    const turns = new Turns();
    const answer = await withRunner(
      capability,
      turns,
      (activation) => {
        const message = activation.notifications[0]!;
        assert.ok(callOf(message) !== undefined);
        return Outcome.complete({ text: `you said ${(message.payload as { text: string }).text}` });
      },
      () => rota.call(bot, "chat.message", { text: "hello" }, { timeoutSeconds: 60, waitMs: 30_000 }),
    );
    assert.equal(answer.status, "answered", JSON.stringify(answer));
    assert.deepEqual(answer.result, { text: "you said hello" });
    assert.ok(answer.answeredAt);
    assert.deepEqual(await rota.getCall(answer.callId), answer);
  });
});
