import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Conflict, InvalidRequest, LeaseLost, LeaseNotHeld, NotFound, Rota, RotaError, type Activation } from "../src/index.js";
import { agentId, eventually, sharedNode, type Node } from "./node.js";

let node: Node;
let rota: Rota;

before(async () => {
  node = await sharedNode();
  rota = new Rota(node.url, { timeoutMs: 10_000 });
});
after(() => node.stop());

async function claimFor(id: string, runnerId: string, leaseSeconds = 30): Promise<Activation> {
  await rota.registerAgent(id, { capabilities: [`cap-${id}`] });
  return eventually(`a claim of ${id}`, async () => {
    const answer = await rota.claim(runnerId, { capabilities: [`cap-${id}`], waitSeconds: 2, leaseSeconds });
    return answer.status === "assigned" && answer.assignment.agentId === id ? answer.assignment : undefined;
  });
}

describe("agents", () => {
  test("registers, updates, reads, lists and deletes an agent", async () => {
    const id = agentId("registers");
    const first = await rota.registerAgent(id, { name: "reviewer", capabilities: ["code"], metadata: { model: "m" } });
    assert.equal(first.created, true);
    assert.equal(first.agent.agentId, id);
    assert.deepEqual(first.agent.capabilities, ["code"]);
    const second = await rota.registerAgent(id, { priority: 5 });
    assert.equal(second.created, false);
    assert.equal(second.agent.priority, 5);
    assert.equal(second.agent.name, "reviewer");
    assert.equal((await rota.getAgent(id)).status, "idle");

    const seen: string[] = [];
    for await (const agent of rota.agents({ pageSize: 2 })) {
      seen.push(agent.agentId);
    }
    assert.ok(seen.includes(id), `${id} in ${seen.join(",")}`);

    await rota.deleteAgent(id);
    await assert.rejects(rota.getAgent(id), NotFound);
  });

  test("pauses and resumes an agent; explains and shows history", async () => {
    const id = agentId("pauses");
    await rota.registerAgent(id, { capabilities: [`cap-${id}`] }); // its notification stays unread
    assert.equal((await rota.pauseAgent(id)).status, "paused");
    const explained = await rota.explain(id);
    assert.equal(explained.eligible, false);
    assert.ok(explained.blockedBy.some((b) => b.reason === "paused"), JSON.stringify(explained));
    assert.equal((await rota.resumeAgent(id)).status, "idle");
    await rota.notify(id, "mention", { postId: "p1" });
    const history = await eventually("the notification in the history", async () => {
      const events = await rota.history(id, { limit: 10 });
      return events.length > 0 ? events : undefined;
    });
    assert.ok(history.some((e) => e.type.includes("notification")), JSON.stringify(history));
  });
});

describe("notifications", () => {
  test("dedupes by key and generates a key when none is given", async () => {
    const id = agentId("dedupes");
    await rota.registerAgent(id, { capabilities: [`cap-${id}`] }); // its notifications stay unread
    const first = await rota.notify(id, "mention", { postId: "p9" }, { dedupeKey: "p9-mention" });
    const again = await rota.notify(id, "mention", { postId: "p9" }, { dedupeKey: "p9-mention" });
    assert.equal(first.duplicate, false);
    assert.equal(again.duplicate, true);
    assert.equal(again.notificationId, first.notificationId);
    const other = await rota.notify(id, "mention", { postId: "p9" });
    const another = await rota.notify(id, "mention", { postId: "p9" });
    assert.equal(other.duplicate, false);
    assert.equal(another.duplicate, false);
    assert.equal(another.unread, 3);
  });
});

describe("errors", () => {
  test("are typed with the API's code, message and status", async () => {
    const missing = await rota.getAgent(agentId("missing")).catch((e: unknown) => e);
    assert.ok(missing instanceof NotFound);
    assert.equal(missing.status, 404);
    assert.equal(missing.code, "not_found");
    assert.ok(missing.apiMessage.length > 0);

    const invalid = await rota.registerAgent(agentId("invalid"), { priority: 100_000 }).catch((e: unknown) => e);
    assert.ok(invalid instanceof InvalidRequest);
    assert.equal(invalid.code, "invalid");
    assert.match(invalid.apiMessage, /priority/);

    const unknownLease = await rota.heartbeat("no-such-lease", "r1").catch((e: unknown) => e);
    assert.ok(unknownLease instanceof RotaError);
    assert.ok([404, 410].includes(unknownLease.status), String(unknownLease));
  });

  test("a lease refuses another runner (409 lease_not_held) and, once ended, any report (410)", async () => {
    const id = agentId("lease-errors");
    await rota.notify(id, "t").catch(() => undefined);
    const activation = await claimFor(id, "owner-runner");
    await assert.rejects(rota.heartbeat(activation.leaseId, "someone-else"), (e: unknown) => e instanceof LeaseNotHeld && e instanceof Conflict && e.code === "lease_not_held");
    const extended = await rota.heartbeat(activation.leaseId, "owner-runner");
    assert.ok(Date.parse(extended.expiresAt) > Date.now());
    await rota.complete(activation.leaseId, "owner-runner", { summary: "done" });
    await assert.rejects(rota.complete(activation.leaseId, "owner-runner"), (e: unknown) => e instanceof LeaseLost && e.status === 410);
  });

  test("deleting an agent that holds a lease is a conflict", async () => {
    const id = agentId("leased-delete");
    const activation = await claimFor(id, "delete-runner");
    await assert.rejects(rota.deleteAgent(id), (e: unknown) => e instanceof Conflict && e.status === 409);
    await rota.fail(activation.leaseId, "delete-runner", { action: "snooze", snoozeSeconds: 0 });
    await rota.deleteAgent(id);
  });
});

describe("admin", () => {
  test("stats, pools and runners answer", async () => {
    const stats = await rota.stats();
    assert.equal(typeof stats.paused, "boolean");
    assert.ok(stats.cluster.nodes >= 1);
    const pools = await eventually("the pool scaler's first round", async () => {
      try {
        return await rota.pools();
      } catch (e) {
        if (e instanceof RotaError && e.status === 503) {
          return undefined;
        }
        throw e;
      }
    }, 30_000);
    assert.ok(Array.isArray(pools));
    await rota.claim("stats-runner", { waitSeconds: 0, capabilities: ["nothing-here"] });
    const runners = await rota.runners();
    assert.ok(runners.some((r) => r.runnerId === "stats-runner"), JSON.stringify(runners));
  });

  test("pauses and resumes the system: claims answer paused meanwhile", async () => {
    try {
      assert.equal(await rota.pause(), true);
      const answer = await rota.claim("paused-runner", { waitSeconds: 0, capabilities: ["nothing-here"] });
      assert.equal(answer.status, "paused");
    } finally {
      assert.equal(await rota.resume(), false);
    }
  });

  test("dead letters: a discarded turn's notification is listed, redriven, then discarded for good", async () => {
    const id = agentId("dead-letters");
    await rota.registerAgent(id, { capabilities: [`cap-${id}`] });
    await rota.notify(id, "job", { n: 1 });
    const activation = await claimFor(id, "dead-runner");
    await rota.fail(activation.leaseId, "dead-runner", { action: "discard", error: "poison" });
    const letters = await eventually("the dead letter", async () => {
      const found = await rota.deadLetters({ agentId: id });
      return found.length > 0 ? found : undefined;
    });
    assert.equal(letters[0]?.type, "job");
    const redriven = await rota.redrive(letters[0]?.id ?? "");
    assert.equal(redriven.agentId, id);
    assert.equal((await eventually("the redriven notification", async () => {
      const agent = await rota.getAgent(id);
      return agent.inbox.unread === 1 ? agent : undefined;
    })).inbox.unread, 1);

    const again = await claimFor(id, "dead-runner");
    await rota.fail(again.leaseId, "dead-runner", { action: "cancel" });
    const second = await eventually("the second dead letter", async () => {
      const found = await rota.deadLetters({ agentId: id });
      return found.length > 0 ? found : undefined;
    });
    await rota.discardDeadLetter(second[0]!.id);
    await eventually("the letter gone", async () => ((await rota.deadLetters({ agentId: id })).length === 0 ? true : undefined));
  });

  test("drains and restores a runner; a runner reports its health", async () => {
    const runnerId = `health-${process.pid}`;
    const degraded = await rota.reportHealth(runnerId, true, { reason: "out of memory", seconds: 60 });
    assert.equal(degraded.status, "degraded");
    const refused = await rota.claim(runnerId, { waitSeconds: 0 });
    assert.equal(refused.status, "none");
    assert.ok("reason" in refused && refused.reason === "degraded", JSON.stringify(refused));
    assert.equal((await rota.reportHealth(runnerId, false)).status, "healthy");
    assert.equal((await rota.drainRunner(runnerId)).status, "draining");
    assert.equal((await rota.restoreRunner(runnerId)).status, "healthy");
  });
});
