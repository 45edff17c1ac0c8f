/** A real Rota node for the tests: rota-server.jar on free ports, H2 in a temporary directory. */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const REPOSITORY = resolve(PACKAGE_DIR, "..", "..");
const DEFAULT_JAR = join(REPOSITORY, "modules", "rota-server", "target", "rota-server.jar");
const READY_TIMEOUT_MS = Number(process.env.ROTA_TEST_READY_TIMEOUT ?? "120") * 1000;

export interface Node {
  url: string;
  managementUrl: string;
  directory: string;
  stop(): Promise<void>;
  logTail(lines?: number): string;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** Starts the node and waits for its /ready; fails saying what is missing otherwise. */
export async function startNode(): Promise<Node> {
  const jar = process.env.ROTA_SERVER_JAR ?? DEFAULT_JAR;
  if (!existsSync(jar)) {
    throw new Error(
      `${jar} is missing: build it first with \`mvn -B -q -pl modules/rota-server -am package -DskipTests\` (or point ROTA_SERVER_JAR at a rota-server.jar)`,
    );
  }
  const java = process.env.JAVA_HOME ? join(process.env.JAVA_HOME, "bin", "java") : "java";
  const directory = mkdtempSync(join(tmpdir(), "rota-ts-node-"));
  const [httpPort, managementPort, clusterPort] = [await freePort(), await freePort(), await freePort()];
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("ROTA_")) {
      env[key] = value;
    }
  }
  Object.assign(env, {
    ROTA_HTTP_PORT: String(httpPort),
    ROTA_MANAGEMENT_PORT: String(managementPort),
    ROTA_CLUSTER_PORT: String(clusterPort),
    ROTA_DATA_DIR: join(directory, "data"),
    ROTA_LOG_LEVEL: "WARN",
  });
  const log = join(directory, "node.log");
  const out = openSync(log, "w");
  const child: ChildProcess = spawn(java, ["-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", jar], {
    cwd: directory,
    env,
    stdio: ["ignore", out, out],
  });
  // A test process that ends without its after() hook (a failed before(), an uncaught error)
  // must not leave its node running.
  const killOnExit = (): void => void child.kill("SIGKILL");
  process.once("exit", killOnExit);
  let exit: string | undefined;
  child.on("exit", (code, signal) => {
    process.off("exit", killOnExit);
    exit = `the node exited with ${code ?? signal}`;
  });
  child.on("error", (error) => {
    exit = `java could not be started (${java}): ${error.message}`;
  });
  const logTail = (lines = 40): string => {
    try {
      return readFileSync(log, "utf8").split("\n").slice(-lines).join("\n");
    } catch {
      return "(no log)";
    }
  };
  const node: Node = {
    url: `http://127.0.0.1:${httpPort}`,
    managementUrl: `http://127.0.0.1:${managementPort}`,
    directory,
    logTail,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          done();
          return;
        }
        const kill = setTimeout(() => child.kill("SIGKILL"), 20_000);
        child.once("exit", () => {
          clearTimeout(kill);
          done();
        });
        child.kill("SIGTERM");
      }),
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exit !== undefined) {
      throw new Error(`${exit}:\n${logTail()}`);
    }
    try {
      const answer = await fetch(`${node.managementUrl}/ready`, { signal: AbortSignal.timeout(2_000) });
      if (answer.status === 200) {
        return node;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  await node.stop();
  throw new Error(`the node was not ready within ${READY_TIMEOUT_MS / 1000} s:\n${logTail()}`);
}

/** Where `with-node.ts` tells the test files its node listens. */
export const SHARED_URL = "ROTA_TEST_NODE_URL";
export const SHARED_MANAGEMENT_URL = "ROTA_TEST_NODE_MANAGEMENT_URL";

let shared: Promise<Node> | undefined;

/**
 * The node of the suite: the one `with-node.ts` started for every test file when it runs them (its
 * `stop()` does nothing then, the runner stops it after the last file), or else one node for this
 * file alone (node:test runs each file in a process of its own), stopped by `stop()` or when the
 * process ends. Test files on a shared node see each other's agents: every agent a test leaves with
 * unread notifications needs a capability of its own, so that no other file's runner (whose
 * capabilities cover an agent that requires none) takes its turn; and the files run one at a time,
 * since one of them pauses the whole system.
 */
export function sharedNode(): Promise<Node> {
  shared ??= attachedNode() ?? startNode();
  return shared;
}

function attachedNode(): Promise<Node> | undefined {
  const url = process.env[SHARED_URL];
  const managementUrl = process.env[SHARED_MANAGEMENT_URL];
  if (!url || !managementUrl) {
    return undefined;
  }
  return Promise.resolve({
    url,
    managementUrl,
    directory: "",
    stop: () => Promise.resolve(),
    logTail: () => "(the shared node's log is with-node.ts's to show)",
  });
}

let ids = 0;

/** A fresh agent id per test: tests share one node and must not see each other's agents. */
export function agentId(name: string): string {
  ids += 1;
  return `${name.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 40)}-${ids}-${process.pid}`;
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) {
        return value;
      }
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last error: ${last instanceof Error ? last.message : JSON.stringify(last)})` : ""}`);
}
