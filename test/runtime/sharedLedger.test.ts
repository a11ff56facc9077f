/**
 * Two processes on one ledger file: a runtime starting next to a live one must
 * not close the live one's runs; a runtime starting after one was SIGKILLed must close its runs.
 * The driving process is a real child running the built package (dist/).
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { useRuntimeHarness } from "../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-shared-");
const ROOT = resolve(import.meta.dirname, "../..");

/** Opens a runtime, starts one run whose only tool call waits for a line on stdin, prints each stage. */
const DRIVER = `
import { AgentRuntime, defineTool } from "./dist/index.js";
import { scriptedProvider } from "./dist/entries/testing.js";
import { z } from "zod";
const file = process.argv.at(-1);
const runtime = await AgentRuntime.make({ database: file });
const released = new Promise((resolve) => process.stdin.once("data", resolve));
const waitForParent = defineTool({
  name: "wait_for_parent",
  description: "Returns once the parent process says so.",
  kind: "observe",
  input: z.object({}),
  execute: async () => {
    process.stdout.write("calling\\n");
    await released;
    return { status: "ok", output: "released" };
  },
});
const handle = runtime.startRun({
  runId: "driven",
  sessionId: "shared",
  input: "Wait for the parent.",
  tools: [waitForParent],
  provider: scriptedProvider([
    { toolCalls: [{ id: "c1", name: "wait_for_parent", arguments: {} }] },
    { text: "The parent released the call." },
  ]),
});
const result = await handle.result;
process.stdout.write(JSON.stringify({ state: result.terminalState, reason: result.terminalReason }) + "\\n");
await runtime.dispose();
`;

type Driver = ChildProcessByStdio<Writable, Readable, Readable>;
const drivers: Driver[] = [];
afterEach(() => {
  for (const child of drivers.splice(0)) child.kill("SIGKILL");
});

function startDriver(file: string): { child: Driver; lines: AsyncIterator<string> } {
  const child = spawn(process.execPath, ["--input-type=module", "-e", DRIVER, file], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"],
  });
  drivers.push(child);
  async function* lines() {
    let buffer = "";
    for await (const chunk of child.stdout) {
      buffer += String(chunk);
      let end = buffer.indexOf("\n");
      while (end >= 0) {
        yield buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        end = buffer.indexOf("\n");
      }
    }
  }
  return { child, lines: lines() };
}

const nextLine = async (lines: AsyncIterator<string>) => (await lines.next()).value as string | undefined;
const exited = (child: Driver) =>
  new Promise<number | null>((done) => (child.exitCode !== null ? done(child.exitCode) : child.once("close", done)));

describe("a second runtime on a ledger file another process is writing", () => {
  it("does not recover the live process's run, which then completes normally", async () => {
    const driver = startDriver(harness.dbFile());
    expect(await nextLine(driver.lines)).toBe("calling");

    const second = await harness.makeRuntime();
    expect(second.recovered).toEqual([]);
    expect((await second.ledger.getRun("driven"))?.terminalState).toBe("running");

    driver.child.stdin.end("go\n");
    expect(JSON.parse((await nextLine(driver.lines)) ?? "null")).toEqual({ state: "completed", reason: "answered" });
    expect(await exited(driver.child)).toBe(0);
    expect(await second.ledger.getRun("driven")).toMatchObject({ terminalState: "completed", failureCode: "answered" });
  });

  it("recovers the run of a process that was SIGKILLed mid-call, with its call cancelled", async () => {
    const driver = startDriver(harness.dbFile());
    expect(await nextLine(driver.lines)).toBe("calling");
    driver.child.kill("SIGKILL");
    await exited(driver.child);

    const second = await harness.makeRuntime();
    expect(second.recovered).toEqual([{ runId: "driven", sessionId: "shared", cancelledCallIds: ["c1"] }]);
    expect(await second.ledger.getRun("driven")).toMatchObject({ terminalState: "failed", failureCode: "interrupted" });
  });
});
