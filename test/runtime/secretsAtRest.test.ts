import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { REDACTED } from "../../src/persistence/secretPatterns.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import type { McpToolset } from "../../src/services/tools/mcp/mcpTools.js";
import { defineTool } from "../../src/services/tools/Tool.js";
import { SECRET_SHAPES } from "../fixtures/secrets.js";
import { fixtureToolset } from "../support/mcpFixture.js";
import { finish, ledgerViolations, textStep, useRuntimeHarness } from "../support/runtimeHarness.js";

/**
 * Every shape of the secret corpus, returned by a tool (a plain one and an MCP server's), passed
 * in a model's tool arguments and written in its answer, through a real run on a real SQLite file:
 * neither the `-wal` (read while the runtime is open) nor the database file (after it closed and
 * checkpointed) holds any of the secrets, in their raw or JSON-escaped spelling.
 */

const harness = useRuntimeHarness("agentloop-secrets-");
let toolsets: McpToolset[] = [];
afterEach(async () => {
  await Promise.all(toolsets.map((toolset) => toolset.close()));
  toolsets = [];
});

const spellings = (secret: string) => [secret, JSON.stringify(secret).slice(1, -1)];

/** The shapes whose secret (in any spelling) occurs in the bytes. */
const leaked = (bytes: Buffer) =>
  SECRET_SHAPES.filter(({ secret }) => spellings(secret).some((spelling) => bytes.includes(spelling))).map(
    ({ shape }) => shape,
  );

const readConfig = defineTool({
  name: "read_config",
  description: "Prints one configuration file.",
  kind: "observe",
  input: z.object({ index: z.number().int() }),
  execute: async ({ index }) => ({ status: "ok", output: { text: SECRET_SHAPES[index]!.text } }),
});

/** A run whose first step calls `tool` once per shape, then answers with every shape quoted. */
function steps(call: (index: number) => { name: string; arguments: Record<string, unknown> }) {
  return [
    {
      toolCalls: SECRET_SHAPES.map((_, index) => ({ id: `call_${index}`, ...call(index) })),
      finishReason: "tool_calls" as const,
    },
    textStep(`Findings:\n${SECRET_SHAPES.map((entry) => `- ${entry.text}`).join("\n")}`),
  ];
}

async function runAndScan(
  tools: Parameters<typeof harness.makeRuntime>[0],
  call: (index: number) => { name: string; arguments: Record<string, unknown> },
) {
  const runtime = await harness.makeRuntime(tools);
  const handle = runtime.startRun({
    sessionId: "s",
    input: "Print every configuration file.",
    provider: scriptedProvider(steps(call) as never),
  });
  const ledger = await finish(runtime, handle);
  const wal = readFileSync(`${harness.dbFile()}-wal`);
  await runtime.dispose();
  expect(existsSync(`${harness.dbFile()}-wal`) ? readFileSync(`${harness.dbFile()}-wal`).length : 0).toBe(0);
  return { ledger, wal, db: readFileSync(harness.dbFile()) };
}

describe("secrets at rest after a real run", () => {
  it("stores none of the corpus's secrets a tool returned or the model wrote, in the -wal or the database file", async () => {
    const { ledger, wal, db } = await runAndScan({ tools: [readConfig] }, (index) => ({
      name: "read_config",
      arguments: { index },
    }));
    expect(ledgerViolations(ledger)).toEqual([]);
    expect(ledger.receipts.filter((receipt) => receipt.status === "ok")).toHaveLength(SECRET_SHAPES.length);
    // The rows reached both files, redacted in place.
    for (const bytes of [wal, db]) {
      expect(bytes.includes(REDACTED)).toBe(true);
      expect(bytes.includes("EndpointSuffix=core.windows.net")).toBe(true);
      expect(leaked(bytes)).toEqual([]);
    }
  });

  it("stores none of them when an MCP tool echoes them back from the model's arguments", async () => {
    const toolset = await fixtureToolset(harness.path("server.log"));
    toolsets.push(toolset);
    const { ledger, wal, db } = await runAndScan({ tools: [...toolset.tools] }, (index) => ({
      name: "fixture__echo",
      arguments: { text: SECRET_SHAPES[index]!.text },
    }));
    expect(ledgerViolations(ledger)).toEqual([]);
    expect(ledger.receipts.filter((receipt) => receipt.status === "ok")).toHaveLength(SECRET_SHAPES.length);
    for (const bytes of [wal, db]) {
      expect(bytes.includes("echo: ")).toBe(true);
      expect(leaked(bytes)).toEqual([]);
    }
  });
});
