import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { scriptedProvider } from "../../../../src/services/providers/scripted.js";
import { type McpToolset, mcpTools } from "../../../../src/services/tools/mcp/mcpTools.js";
import { describeTool } from "../../../../src/services/tools/Tool.js";
import { executeTool } from "../../../support/executeTool.js";
import { toolNamed } from "../../../support/mcpFixture.js";
import { callStep, finish, textStep, useRuntimeHarness } from "../../../support/runtimeHarness.js";

/**
 * MCP tools whose input schemas ajv cannot compile as they are, from a real server process
 * (test/fixtures/mcp/schemaServer.mjs): what cannot be followed accepts anything at its place,
 * everything else is still checked before the call is sent, and a schema that cannot be compiled
 * at all leaves its tool unoffered with the reason.
 */

const SCHEMA_SERVER = fileURLToPath(new URL("../../../fixtures/mcp/schemaServer.mjs", import.meta.url));

const harness = useRuntimeHarness("agentloop-mcp-schemas-");
let open: McpToolset[] = [];
afterEach(async () => {
  await Promise.all(open.map((toolset) => toolset.close()));
  open = [];
});

async function connect() {
  const log = harness.path("calls.log");
  const toolset = await mcpTools({ command: process.execPath, args: [SCHEMA_SERVER, "--log", log], stderr: "ignore" });
  open.push(toolset);
  const calls = () =>
    existsSync(log)
      ? readFileSync(log, "utf8")
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as { tool: string; arguments: unknown })
      : [];
  return { toolset, calls };
}

describe("MCP input schemas with references agentloop does not follow", () => {
  it("refuses a number where the schema's required string is due although another property's $ref is remote", async () => {
    const { toolset, calls } = await connect();
    await expect(executeTool(toolNamed(toolset, "schemas__lookup"), { id: 42 })).rejects.toThrow(
      /invalid arguments: .*must be string/,
    );
    await expect(executeTool(toolNamed(toolset, "schemas__lookup"), {})).rejects.toThrow(/must have required property/);
    expect(calls()).toEqual([]);
  });

  it("accepts any value where the remote $ref stands, and still checks the keywords beside it", async () => {
    const { toolset, calls } = await connect();
    const lookup = toolNamed(toolset, "schemas__lookup");
    await expect(executeTool(lookup, { id: "r-1", owner: 3 })).rejects.toThrow(/owner.*must be object/);
    const result = await executeTool(lookup, { id: "r-1", owner: { anything: [1, 2] } });
    expect(result.status).toBe("ok");
    expect(calls()).toEqual([{ tool: "lookup", arguments: { id: "r-1", owner: { anything: [1, 2] } } }]);
  });

  it("follows local references and lets only a missing local one accept anything", async () => {
    const { toolset, calls } = await connect();
    const tag = toolNamed(toolset, "schemas__tag");
    await expect(executeTool(tag, { tags: [7] })).rejects.toThrow(/tags.0.*must be string/);
    await expect(executeTool(tag, { tags: [""] })).rejects.toThrow(/must NOT have fewer than 1 characters/);
    expect((await executeTool(tag, { tags: ["a"], note: { free: true } })).status).toBe("ok");
    expect(calls().map((call) => call.tool)).toEqual(["tag"]);
  });

  it("resolves references against the schema's own $id: the sibling document is open, the local definition checked", async () => {
    const { toolset } = await connect();
    const order = toolNamed(toolset, "schemas__order");
    await expect(executeTool(order, { qty: "two" })).rejects.toThrow(/qty.*must be integer/);
    await expect(executeTool(order, { qty: 0 })).rejects.toThrow(/qty.*must be >= 1/);
    expect((await executeTool(order, { qty: 2, item: "anything" })).status).toBe("ok");
  });

  it("lists which tools are checked only in part, and which references were not followed", async () => {
    const { toolset } = await connect();
    expect(toolset.partlyChecked).toEqual([
      { tool: "lookup", name: "schemas__lookup", unresolvedRefs: ["https://schemas.example.invalid/person.json"] },
      { tool: "tag", name: "schemas__tag", unresolvedRefs: ["#/$defs/Missing"] },
      { tool: "order", name: "schemas__order", unresolvedRefs: ["https://schemas.example.invalid/item.json"] },
    ]);
    // The model still sees the server's schema as written.
    expect(describeTool(toolNamed(toolset, "schemas__lookup")).inputSchema).toMatchObject({
      properties: { owner: { $ref: "https://schemas.example.invalid/person.json" } },
    });
  });

  it("does not offer a tool whose schema cannot be compiled, and says why in the listing", async () => {
    const { toolset } = await connect();
    expect(toolset.tools.map((tool) => tool.name)).not.toContain("schemas__broken");
    expect(toolset.refused).toEqual([
      {
        tool: "broken",
        reason:
          "broken is not offered: its input schema cannot be compiled: type must be JSONType or JSONType[]: strnig",
      },
    ]);
  });

  it("checks two tools whose schemas share an $id each against its own schema", async () => {
    const { toolset } = await connect();
    expect((await executeTool(toolNamed(toolset, "schemas__second"), { y: 1 })).status).toBe("ok");
    await expect(executeTool(toolNamed(toolset, "schemas__first"), { y: 1 })).rejects.toThrow(/required property 'x'/);
  });

  it("ends a run's call with invalid arguments unchecked arguments would have reached the server with", async () => {
    const { toolset, calls } = await connect();
    const runtime = await harness.makeRuntime();
    const handle = runtime.startRun({
      sessionId: "s",
      input: "Look up record 42.",
      provider: scriptedProvider([
        callStep("c1", "schemas__lookup", { id: 42 }),
        textStep("It could not be looked up."),
      ]),
      tools: [...toolset.tools],
    });
    const ledger = await finish(runtime, handle);
    expect(ledger.receipts.map((receipt) => [receipt.status, receipt.reason])).toEqual([
      ["error", "invalid_arguments"],
    ]);
    expect(calls()).toEqual([]);
  });
});
