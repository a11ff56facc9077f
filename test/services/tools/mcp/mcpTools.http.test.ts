import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type McpToolset, mcpTools } from "../../../../src/services/tools/mcp/mcpTools.js";
import { startHttpFixture } from "../../../fixtures/mcp/httpServer.mjs";
import { executeTool } from "../../../support/executeTool.js";
import { readFixtureLog, toolNamed, waitFor } from "../../../support/mcpFixture.js";
import { useTempDir } from "../../../support/tempDir.js";

/**
 * Issue Q: `mcpTools({ url })` over streamable HTTP, against a real server from the same SDK on
 * 127.0.0.1 (stateful sessions).
 */

const tmp = useTempDir("agentloop-mcp-http-");
let server: Awaited<ReturnType<typeof startHttpFixture>>;
let toolset: McpToolset | undefined;
let log: string;

beforeEach(async () => {
  log = tmp.path("server.log");
  server = await startHttpFixture({ logFile: log });
});
afterEach(async () => {
  await toolset?.close();
  toolset = undefined;
  await server.close();
});

describe("mcpTools over streamable HTTP", () => {
  it("lists the tools under the server's name with the negotiated protocol version", async () => {
    toolset = await mcpTools({ url: server.url });
    expect(toolset.server).toMatchObject({ name: "fixture-http", version: "1.2.3", transport: "streamable-http" });
    expect(toolset.server.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(toolset.tools.map((tool) => tool.name)).toContain("fixture-http__echo");
  });

  it("calls a tool and records the JSON-RPC id the server saw", async () => {
    toolset = await mcpTools({ url: server.url });
    const result = await executeTool(toolNamed(toolset, "fixture-http__echo"), { text: "over http" });
    expect(result.output).toEqual({ content: [{ type: "text", text: "echo: over http" }] });
    expect(result.evidence).toMatchObject({
      mcp_server: "fixture-http",
      mcp_request_id: readFixtureLog(log)[0]!.requestId,
    });
  });

  it("sends notifications/cancelled over HTTP when the call's signal aborts", async () => {
    toolset = await mcpTools({ url: server.url });
    const abort = new AbortController();
    const pending = executeTool(toolNamed(toolset, "fixture-http__slow"), { ms: 30_000 }, { signal: abort.signal });
    await waitFor(() => readFixtureLog(log).some((entry) => entry.event === "call"), "the call to arrive");
    abort.abort(new Error("timed out"));
    const result = await pending;
    const cancelled = await waitFor(
      () => readFixtureLog(log).find((entry) => entry.event === "cancelled"),
      "the server to see the cancellation",
    );
    expect(cancelled.requestId).toBe(result.evidence?.mcp_request_id);
  });

  it("ends its session on close()", async () => {
    toolset = await mcpTools({ url: server.url });
    expect(server.sessions()).toBe(1);
    await toolset.close();
    await waitFor(() => server.sessions() === 0, "the session to end");
  });

  it("makes calls after the server went away error results", async () => {
    toolset = await mcpTools({ url: server.url });
    await server.close();
    const result = await executeTool(toolNamed(toolset, "fixture-http__echo"), { text: "anyone?" });
    expect(result.status).toBe("error");
    expect(result.evidence).toMatchObject({ mcp_tool: "echo", mcp_is_error: null });
  });

  it("rejects with connect_failed when nothing listens at the URL", async () => {
    const url = server.url;
    await server.close();
    await expect(mcpTools({ url, connectTimeoutMs: 2_000 })).rejects.toMatchObject({ reason: "connect_failed" });
  });
});
