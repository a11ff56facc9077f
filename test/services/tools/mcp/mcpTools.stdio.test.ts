import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { canonicalJson, sha256 } from "../../../../src/services/tools/fingerprint.js";
import { McpToolsError, type McpToolset, mcpTools } from "../../../../src/services/tools/mcp/mcpTools.js";
import { describeTool } from "../../../../src/services/tools/Tool.js";
import { runNode } from "../../../support/childProcess.js";
import { executeTool } from "../../../support/executeTool.js";
import {
  FIXTURE_SERVER,
  fixtureToolset,
  isAlive,
  readFixtureLog,
  toolNamed,
  waitFor,
} from "../../../support/mcpFixture.js";
import { useTempDir } from "../../../support/tempDir.js";

/**
 * Issue Q: `mcpTools({ command, args, env })` against a real MCP server process (the fixture, same
 * SDK, stdio): listing, schemas, kinds, receipts' evidence, and the server that errs, answers
 * malformed content, hangs or crashes.
 */

const tmp = useTempDir("agentloop-mcp-stdio-");
let open: McpToolset[] = [];
afterEach(async () => {
  await Promise.all(open.map((toolset) => toolset.close()));
  open = [];
});

async function connect(settings: Parameters<typeof fixtureToolset>[1] = {}) {
  const log = tmp.path("server.log");
  const toolset = await fixtureToolset(log, settings);
  open.push(toolset);
  return { toolset, log };
}

describe("mcpTools over stdio: listing", () => {
  it("offers every server tool as <server>__<tool>, sanitised", async () => {
    const { toolset } = await connect();
    expect(toolset.tools.map((tool) => tool.name)).toEqual([
      "fixture__echo",
      "fixture__send_note",
      "fixture__touch",
      "fixture__fail",
      "fixture__slow",
      "fixture__hang",
      "fixture__crash",
      "fixture__malformed",
      "fixture__picture",
      "fixture__weird_name",
    ]);
  });

  it("reports the server's name, version and the negotiated protocol version", async () => {
    const { toolset } = await connect();
    expect(toolset.server).toMatchObject({ name: "fixture", version: "1.2.3", transport: "stdio" });
    expect(toolset.server.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("uses the host's name as the prefix when given", async () => {
    const { toolset } = await connect({ name: "notes" });
    expect(toolset.tools[0]!.name).toBe("notes__echo");
    expect(toolset.server.name).toBe("notes");
  });

  it("offers only the included tools", async () => {
    const { toolset } = await connect({ include: ["echo", "fail"] });
    expect(toolset.tools.map((tool) => tool.name)).toEqual(["fixture__echo", "fixture__fail"]);
  });

  it("shows the model the server's JSON Schema and description", async () => {
    const { toolset } = await connect();
    const descriptor = describeTool(toolNamed(toolset, "fixture__echo"));
    expect(descriptor.description).toBe("Echo a text back.");
    expect(descriptor.inputSchema).toMatchObject({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    });
  });

  it("gives kinds from the annotations: read-only observe, others and unannotated mutate", async () => {
    const { toolset } = await connect();
    const kinds = Object.fromEntries(toolset.tools.map((tool) => [tool.name, tool.kind]));
    expect(kinds).toMatchObject({ fixture__echo: "observe", fixture__send_note: "mutate", fixture__touch: "mutate" });
  });

  it("takes the host's deliver override, and refuses its observe for a tool that writes", async () => {
    const { toolset } = await connect({ kinds: { send_note: "deliver", touch: "observe", echo: "mutate" } });
    expect(toolNamed(toolset, "fixture__send_note").kind).toBe("deliver");
    expect(toolNamed(toolset, "fixture__touch").kind).toBe("mutate");
    expect(toolNamed(toolset, "fixture__echo").kind).toBe("mutate");
  });

  it("puts the host's timeout on every tool", async () => {
    const { toolset } = await connect({ timeoutMs: 1234 });
    expect(toolset.tools.every((tool) => tool.timeoutMs === 1234)).toBe(true);
  });
});

describe("mcpTools over stdio: calls", () => {
  it("returns the text content with the receipt evidence of the call", async () => {
    const { toolset, log } = await connect();
    const result = await executeTool(toolNamed(toolset, "fixture__echo"), { text: "hi" });
    expect(result.status).toBe("ok");
    expect(result.output).toEqual({ content: [{ type: "text", text: "echo: hi" }] });
    const served = readFixtureLog(log).find((entry) => entry.tool === "echo")!;
    expect(result.evidence).toEqual({
      mcp_server: "fixture",
      mcp_server_version: "1.2.3",
      mcp_protocol_version: toolset.server.protocolVersion,
      mcp_tool: "echo",
      mcp_request_id: served.requestId,
      mcp_arguments_sha256: sha256(canonicalJson({ text: "hi" })),
      mcp_result_sha256: sha256(canonicalJson([{ type: "text", text: "echo: hi" }])),
      mcp_is_error: false,
      mcp_annotations: { openWorldHint: false, readOnlyHint: true },
    });
  });

  it("gives each call the JSON-RPC id the server saw", async () => {
    const { toolset, log } = await connect();
    const echo = toolNamed(toolset, "fixture__echo");
    const results = await Promise.all([executeTool(echo, { text: "a" }), executeTool(echo, { text: "b" })]);
    const ids = readFixtureLog(log).map((entry) => entry.requestId);
    expect(results.map((result) => result.evidence?.mcp_request_id).sort()).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(2);
  });

  it("copies a stable id of the structured result into the evidence", async () => {
    const { toolset } = await connect();
    const result = await executeTool(toolNamed(toolset, "fixture__send_note"), { to: "ops", text: "done" });
    expect(result.evidence).toMatchObject({ messageId: "note-1", mcp_is_error: false });
    expect(result.output).toMatchObject({ structuredContent: { messageId: "note-1", to: "ops" } });
  });

  it("turns isError into an error result that keeps the server's text", async () => {
    const { toolset } = await connect();
    const result = await executeTool(toolNamed(toolset, "fixture__fail"), {});
    expect(result.status).toBe("error");
    expect(result.output).toEqual({ content: [{ type: "text", text: "it failed on purpose" }], isError: true });
    expect(result.evidence).toMatchObject({ mcp_is_error: true });
  });

  it("summarises binary content as its size and hash", async () => {
    const { toolset } = await connect();
    const result = await executeTool(toolNamed(toolset, "fixture__picture"), {});
    const data = Buffer.from("not really a png").toString("base64");
    expect(result.output).toEqual({
      content: [
        { type: "image", mimeType: "image/png", bytes: 16, sha256: sha256(data) },
        { type: "resource", uri: "memo://1", mimeType: "text/plain", text: "a memo" },
      ],
    });
  });

  it("refuses arguments that do not match the server's schema before anything is sent", async () => {
    const { toolset, log } = await connect();
    await expect(executeTool(toolNamed(toolset, "fixture__echo"), { text: 3 })).rejects.toThrow(
      /invalid arguments: .*text.*string/,
    );
    expect(readFixtureLog(log)).toEqual([]);
  });

  it("turns malformed content into an error result naming the problem", async () => {
    const { toolset } = await connect();
    const result = await executeTool(toolNamed(toolset, "fixture__malformed"), {});
    expect(result.status).toBe("error");
    expect(JSON.stringify(result.output)).toMatch(
      /fixture answered malformed with a malformed result: .*expected array/,
    );
    expect(result.evidence).toMatchObject({ mcp_tool: "malformed", mcp_result_sha256: null, mcp_is_error: null });
    expect(typeof result.evidence?.mcp_request_id).toBe("number");
  });

  it("sends notifications/cancelled when the call's signal aborts, and the server sees it", async () => {
    const { toolset, log } = await connect();
    const abort = new AbortController();
    const pending = executeTool(toolNamed(toolset, "fixture__slow"), { ms: 30_000 }, { signal: abort.signal });
    await waitFor(() => readFixtureLog(log).some((entry) => entry.event === "call"), "the call to arrive");
    abort.abort(new Error("run cancelled"));
    const result = await pending;
    expect(result.status).toBe("error");
    const cancelled = await waitFor(
      () => readFixtureLog(log).find((entry) => entry.event === "cancelled"),
      "the server to see the cancellation",
    );
    expect(cancelled).toMatchObject({ tool: "slow", requestId: result.evidence?.mcp_request_id });
    expect(cancelled.reason).toContain("run cancelled");
  });

  it("turns a server that dies mid-call into an error result, and later calls too", async () => {
    const { toolset } = await connect();
    const pid = toolset.pid()!;
    const crashed = await executeTool(toolNamed(toolset, "fixture__crash"), {});
    expect(crashed.status).toBe("error");
    expect(JSON.stringify(crashed.output)).toContain("closed the connection");
    expect(crashed.evidence).toMatchObject({ mcp_tool: "crash", mcp_is_error: null });
    await waitFor(() => !isAlive(pid), "the server to be gone");
    const later = await executeTool(toolNamed(toolset, "fixture__echo"), { text: "still there?" });
    expect(later.status).toBe("error");
    expect(later.evidence).toMatchObject({ mcp_request_id: null, mcp_tool: "echo" });
  });
});

describe("mcpTools over stdio: lifecycle", () => {
  it("close() ends the server process, even one stuck in a call", async () => {
    const { toolset } = await connect();
    const pid = toolset.pid()!;
    const hanging = executeTool(toolNamed(toolset, "fixture__hang"), {});
    await new Promise((resolve) => setTimeout(resolve, 100));
    await toolset.close();
    expect(isAlive(pid)).toBe(false);
    expect((await hanging).status).toBe("error");
  });

  it("closes through Symbol.asyncDispose (await using)", async () => {
    const { toolset } = await connect();
    const pid = toolset.pid()!;
    await toolset[Symbol.asyncDispose]();
    expect(isAlive(pid)).toBe(false);
  });

  it("kills a stdio child that is still running when the host process exits without closing", async () => {
    const script = fileURLToPath(new URL("../../../fixtures/mcp/exitWithoutClose.mjs", import.meta.url));
    const { code, stdout, stderr } = await runNode([script], tmp.dir());
    expect(code, stderr).toBe(0);
    const pid = Number(stdout.trim());
    expect(pid).toBeGreaterThan(0);
    await waitFor(() => !isAlive(pid), "the server to be gone", 2_000);
  });

  it("rejects with connect_failed for a command that does not exist", async () => {
    const failure = await mcpTools({ command: "/nonexistent/mcp-server" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpToolsError);
    expect(failure).toMatchObject({ reason: "connect_failed" });
    expect((failure as Error).message).toContain("cannot connect to the MCP server /nonexistent/mcp-server");
  });

  it("rejects with connect_failed for a server that exits before initialize", async () => {
    const failure = await mcpTools({
      command: process.execPath,
      args: [FIXTURE_SERVER, "--exit-on-start"],
      stderr: "ignore",
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ _tag: "McpToolsError", reason: "connect_failed" });
  });

  it("rejects with list_failed for a server that refuses tools/list, and stops it", async () => {
    const pidFile = tmp.path("server.pid");
    const failure = await fixtureToolset(tmp.path("server.log"), { args: ["--no-tools"], pidFile }).catch(
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ _tag: "McpToolsError", reason: "list_failed" });
    expect((failure as Error).message).toContain("the MCP server fixture did not list its tools");
    expect(isAlive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });

  it("rejects with invalid_options for an empty command or a non-http URL", async () => {
    await expect(mcpTools({ command: " " })).rejects.toMatchObject({ reason: "invalid_options" });
    await expect(mcpTools({ url: "ftp://example.com" })).rejects.toMatchObject({ reason: "invalid_options" });
  });
});
