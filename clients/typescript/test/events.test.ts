import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { errorFromResponse } from "../src/errors.js";
import { Gone, LeaseLost, Rota, SseDecoder, type RotaEvent } from "../src/index.js";
import { agentId, sharedNode, type Node } from "./node.js";
import { TcpProxy } from "./proxies.js";

let node: Node;
let rota: Rota;

before(async () => {
  node = await sharedNode();
  rota = new Rota(node.url, { timeoutMs: 10_000 });
});
after(() => node.stop());

/** The next `count` events of the iterator, or a failure after `ms`. */
async function take(events: AsyncIterator<RotaEvent>, count: number, ms = 15_000): Promise<RotaEvent[]> {
  const taken: RotaEvent[] = [];
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`only ${taken.length} of ${count} events in ${ms} ms`)), ms).unref());
  while (taken.length < count) {
    const next = await Promise.race([events.next(), timeout]);
    assert.ok(!next.done, "the stream ended");
    taken.push(next.value);
  }
  return taken;
}

describe("events", () => {
  test("streams an agent's events and resumes after a given id without gaps or duplicates", async () => {
    const id = agentId("streams");
    await rota.registerAgent(id, { capabilities: [`cap-${id}`] });
    const stream = rota.events({ agentId: id, types: ["notification.accepted"] });
    const events = stream[Symbol.asyncIterator]();
    const first = take(events, 3);
    // The stream is open once its first request is answered; notifications sent before may be
    // missed by a stream that starts "from now", so they go out after a short wait.
    await new Promise((r) => setTimeout(r, 500));
    for (const n of [1, 2, 3]) {
      await rota.notify(id, `t${n}`, { n });
    }
    const seen = await first;
    stream.close();
    assert.deepEqual(seen.map((e) => e.data.notificationType), ["t1", "t2", "t3"]);
    assert.ok(seen.every((e) => e.type === "notification.accepted" && e.data.agentId === id && e.id));
    assert.equal(stream.lastEventId, seen[2]!.id);

    const resumed = rota.events({ agentId: id, types: ["notification.accepted"], since: seen[0]!.id });
    const again = await take(resumed[Symbol.asyncIterator](), 2);
    resumed.close();
    assert.deepEqual(again.map((e) => e.id), [seen[1]!.id, seen[2]!.id]);
  });

  test("reconnects after a dropped connection with Last-Event-ID", async () => {
    const id = agentId("reconnects");
    await rota.registerAgent(id, { capabilities: [`cap-${id}`] });
    const port = Number(new URL(node.url).port);
    const proxy = await TcpProxy.start(port);
    const client = new Rota(proxy.url, { timeoutMs: 10_000 });
    const stream = client.events({ agentId: id, types: ["notification.accepted"] });
    const events = stream[Symbol.asyncIterator]();
    try {
      const first = take(events, 1);
      await new Promise((r) => setTimeout(r, 500));
      await rota.notify(id, "before-cut");
      assert.equal((await first)[0]?.data.notificationType, "before-cut");
      proxy.cut();
      await rota.notify(id, "after-cut-1");
      await rota.notify(id, "after-cut-2");
      const rest = await take(events, 2);
      assert.deepEqual(rest.map((e) => e.data.notificationType), ["after-cut-1", "after-cut-2"]);
      assert.ok(proxy.accepted >= 2, `reconnected (${proxy.accepted} connections)`);
    } finally {
      stream.close();
      await proxy.close();
    }
  });

  test("a quiet stream outlives the client's request timeout on one connection", async () => {
    const id = agentId("quiet");
    await rota.registerAgent(id, { capabilities: [`cap-${id}`] });
    const proxy = await TcpProxy.start(Number(new URL(node.url).port));
    const stream = new Rota(proxy.url, { timeoutMs: 1_000 }).events({ agentId: id, types: ["notification.accepted"] });
    try {
      const first = take(stream[Symbol.asyncIterator](), 1);
      await new Promise((r) => setTimeout(r, 2_500));
      await rota.notify(id, "late");
      assert.equal((await first)[0]?.data.notificationType, "late");
      assert.equal(proxy.accepted, 1, "no reconnection");
    } finally {
      stream.close();
      await proxy.close();
    }
  });

  test("leaving the loop closes the stream", async () => {
    const id = agentId("leaves");
    await rota.registerAgent(id, { capabilities: [`cap-${id}`] });
    const stream = rota.events({ agentId: id });
    setTimeout(() => void rota.notify(id, "one"), 500);
    for await (const event of stream) {
      assert.equal(event.data.agentId, id);
      break;
    }
    const next = await stream[Symbol.asyncIterator]().next();
    assert.equal(next.done, true);
  });
});

describe("SseDecoder", () => {
  test("joins data lines, skips comments, keeps the id and falls back to the data's type", () => {
    const decoder = new SseDecoder();
    const lines = [": keep-alive", "id: 7", "data: {\"type\": \"lease.granted\",", "data:  \"agentId\": \"a1\"}", ""];
    const events = lines.map((l) => decoder.feed(l)).filter((e) => e !== undefined);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.id, "7");
    assert.equal(events[0]!.type, "lease.granted");
    assert.equal(events[0]!.data.agentId, "a1");
  });
});

describe("a position retention removed events after", () => {
  test("is a Gone with the oldest retained id, not a LeaseLost", () => {
    const gone = errorFromResponse(410, '{"error":"gone","message":"removed","oldestRetainedId":"1042"}', undefined);
    assert.ok(gone instanceof Gone);
    assert.equal(gone.oldestRetainedId, "1042");
    const lost = errorFromResponse(410, '{"error":"lease_lost","message":"expired"}', undefined);
    assert.ok(lost instanceof LeaseLost);
    assert.ok(!(lost instanceof Gone));
  });
});
