import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";

import { PACKAGE_DIR, sharedNode, type Node } from "./node.js";

const run = promisify(execFile);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const OPENAPI = join(PACKAGE_DIR, "..", "..", "modules", "rota-http", "src", "main", "resources", "dev", "rota", "http", "openapi.yaml");

describe("generated types", () => {
  test("src/generated/openapi.ts is what openapi.yaml generates (run `npm run generate` after changing it)", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "rota-ts-generate-")), "openapi.ts");
    const cli = join(PACKAGE_DIR, "node_modules", "openapi-typescript", "bin", "cli.js");
    const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as { scripts: { generate: string } };
    assert.match(manifest.scripts.generate, /--empty-objects-unknown/, "the drift check generates as `npm run generate` does");
    await run(process.execPath, [cli, OPENAPI, "--empty-objects-unknown", "--output", out], { cwd: PACKAGE_DIR });
    const committed = readFileSync(join(PACKAGE_DIR, "src", "generated", "openapi.ts"), "utf8");
    assert.ok(committed === readFileSync(out, "utf8"), "src/generated/openapi.ts has drifted from openapi.yaml: run `npm run generate` in clients/typescript and commit the result");
  });
});

describe("the npm package", () => {
  let node: Node;
  let project: string;

  before(async () => {
    node = await sharedNode();
    const packed = mkdtempSync(join(tmpdir(), "rota-ts-pack-"));
    await run(npm, ["pack", "--silent", "--pack-destination", packed], { cwd: PACKAGE_DIR });
    const tarball = readdirSync(packed).find((f) => f.endsWith(".tgz"));
    assert.ok(tarball, "npm pack made a tarball");
    project = mkdtempSync(join(tmpdir(), "rota-ts-fresh-"));
    await run(npm, ["init", "-y"], { cwd: project });
    await run(npm, ["pkg", "set", "type=module"], { cwd: project });
    await run(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", join(packed, tarball)], { cwd: project });
  });
  after(() => node.stop());

  test("holds the built module, its types and the README, and nothing else", async () => {
    const { stdout } = await run(npm, ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: PACKAGE_DIR });
    const files = (JSON.parse(stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path);
    assert.ok(files.includes("dist/index.js") && files.includes("dist/index.d.ts") && files.includes("README.md"), files.join(", "));
    assert.ok(files.every((f) => f.startsWith("dist/") || ["README.md", "package.json"].includes(f)), files.join(", "));
    const installed = JSON.parse(readFileSync(join(project, "node_modules", "rota-client", "package.json"), "utf8")) as { dependencies?: object };
    assert.equal(installed.dependencies, undefined, "no runtime dependency");
  });

  test("a fresh project imports it, and type-checks against it with tsc --strict", async () => {
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", 'const m = await import("rota-client"); console.log(Object.keys(m).sort().join(","))'], { cwd: project });
    for (const name of ["Rota", "Runner", "Outcome", "RotaError", "LeaseLost", "TurnCancelled"]) {
      assert.ok(stdout.split(",").map((s) => s.trim()).includes(name), `${name} in ${stdout}`);
    }
    writeFileSync(
      join(project, "check.ts"),
      [
        'import { Outcome, Rota, Runner, type AgentView, type Activation } from "rota-client";',
        'const rota = new Rota("http://127.0.0.1:8080");',
        'export const agent: Promise<AgentView> = rota.getAgent("a1");',
        "export const runner = new Runner(rota, (activation: Activation, { signal }) => {",
        "  signal.throwIfAborted();",
        "  return activation.notifications.length > 0 ? Outcome.complete({ n: 1 }) : Outcome.snooze(5);",
        "});",
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", lib: ["es2023", "dom"], types: [] }, files: ["check.ts"] }),
    );
    const tsc = join(PACKAGE_DIR, "node_modules", "typescript", "bin", "tsc");
    await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project }).catch((error: Error & { stdout?: string }) => {
      assert.fail(`tsc --strict in the fresh project:\n${error.stdout || error.message}`);
    });
  });

  test("the README's quick start runs as written: a producer and a runner's turn", async () => {
    const readme = readFileSync(join(PACKAGE_DIR, "README.md"), "utf8");
    const start = readme.indexOf("Then `hello.js`");
    const block = /```js\n([\s\S]*?)```/.exec(readme.slice(start));
    assert.ok(start >= 0 && block, "the README has the hello.js block");
    writeFileSync(join(project, "hello.js"), block[1]!);
    const { stdout } = await run(process.execPath, ["hello.js"], { cwd: project, timeout: 60_000, env: { ...process.env, ROTA_URL: node.url } });
    assert.match(stdout, /reviewer-1: mention \{"postId":"p9"\}/);
  });
});
