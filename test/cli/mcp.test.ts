import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Sqlite from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startHttpFixture } from "../fixtures/mcp/httpServer.mjs";
import { openAIChatWire, startOpenAIChatServer } from "../support/fakeServers/openaiChat.js";
import type { FakeServer } from "../support/fakeServers/shared.js";
import { FIXTURE_SERVER, isAlive, readFixtureLog, waitFor } from "../support/mcpFixture.js";
import { useTempDir } from "../support/tempDir.js";

/**
 * Issue Q: `agentloop run --mcp "<cmd>"` end to end — the real binary (compiled JS) in a child
 * process, a wire-exact fake OpenAI server, and the fixture MCP server spawned by the CLI over stdio.
 */

const BIN = fileURLToPath(new URL("../../bin/agentloop.mjs", import.meta.url));
const tmp = useTempDir("agentloop-cli-mcp-");

function exited(child: ChildProcess): Promise<{ code: number | null; stderr: string; stdout: string }> {
  let stderr = "";
  let stdout = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr, stdout })));
}

describe("agentloop run --mcp", () => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await startOpenAIChatServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const fixtureFlag = () => {
    const log = tmp.path("mcp.log");
    const pidFile = tmp.path("mcp.pid");
    return { log, pidFile, flag: `${process.execPath} ${FIXTURE_SERVER} --log ${log} --pid-file ${pidFile}` };
  };

  function startCli(args: ReadonlyArray<string>) {
    const db = tmp.path("ledger.db");
    const child = spawn(
      process.execPath,
      [BIN, "run", ...args, "--provider", "openai-chat", "--base-url", `${server.origin}/v1`, "--db", db, "--json"],
      { env: { ...process.env, OPENAI_API_KEY: "test-key" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    return { child, done: exited(child), db };
  }

  function receiptsOf(db: string) {
    const sqlite = new Sqlite(db, { readonly: true, fileMustExist: true });
    try {
      return sqlite
        .prepare("SELECT tool_name, status, evidence_json FROM agent_execution_receipts ORDER BY started_at")
        .all() as Array<{ tool_name: string; status: string; evidence_json: string }>;
    } finally {
      sqlite.close();
    }
  }

  it("offers the server's tools, completes a DELIVER contract with their message id, and stops the server", async () => {
    const { log, pidFile, flag } = fixtureFlag();
    server.enqueue(
      openAIChatWire.stream({
        calls: [{ id: "c1", name: "fixture__send_note", arguments: JSON.stringify({ to: "ops", text: "done" }) }],
      }),
      openAIChatWire.stream({ text: "Sent note-1 to ops." }),
    );
    const { done, db } = startCli([
      "Tell ops it is done.",
      "--mcp",
      flag,
      "--mcp-kind",
      "send_note=deliver",
      "--contract",
      "deliver",
    ]);
    const { code, stdout, stderr } = await done;
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ terminalState: "completed", finalText: "Sent note-1 to ops." });
    const offered = (server.requests[0]!.body.tools as Array<{ function: { name: string } }>).map(
      (tool) => tool.function.name,
    );
    expect(offered).toEqual(expect.arrayContaining(["fixture__echo", "fixture__send_note", "fixture__weird_name"]));
    const [receipt] = receiptsOf(db);
    expect(receipt).toMatchObject({ tool_name: "fixture__send_note", status: "ok" });
    expect(JSON.parse(receipt!.evidence_json)).toMatchObject({
      messageId: "note-1",
      mcp_server: "fixture",
      mcp_request_id: readFixtureLog(log)[0]!.requestId,
    });
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(isAlive(pid)).toBe(false);
  });

  it("takes an http(s) URL as a streamable HTTP server", async () => {
    const http = await startHttpFixture();
    try {
      server.enqueue(
        openAIChatWire.stream({ calls: [{ id: "c1", name: "fixture-http__echo", arguments: '{"text":"hi"}' }] }),
        openAIChatWire.stream({ text: "It said echo: hi." }),
      );
      const { done, db } = startCli(["Echo hi.", "--mcp", http.url, "--contract", "observe"]);
      const { code, stderr } = await done;
      expect(code, stderr).toBe(0);
      expect(receiptsOf(db).map(({ tool_name, status }) => ({ tool_name, status }))).toEqual([
        { tool_name: "fixture-http__echo", status: "ok" },
      ]);
      expect(http.sessions()).toBe(0);
    } finally {
      await http.close();
    }
  });

  it("exits 2 with one line when the MCP server cannot be started", async () => {
    const { done } = startCli(["Do it.", "--mcp", "/nonexistent/mcp-server --flag"]);
    const { code, stderr } = await done;
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toEqual([
      expect.stringContaining("cannot connect to the MCP server /nonexistent/mcp-server"),
    ]);
    expect(server.requests).toEqual([]);
  });

  it("exits 2 on a --mcp-kind that names no kind", async () => {
    const { flag } = fixtureFlag();
    const { code, stderr } = await startCli(["Do it.", "--mcp", flag, "--mcp-kind", "send_note=publish"]).done;
    expect(code).toBe(2);
    expect(stderr).toContain("--mcp-kind send_note=publish: expected <tool>=<observe|mutate|deliver>");
  });

  it("on SIGTERM during an MCP call cancels the run, sends the server notifications/cancelled and leaves no child", async () => {
    const { log, pidFile, flag } = fixtureFlag();
    server.enqueue(openAIChatWire.stream({ calls: [{ id: "c1", name: "fixture__hang", arguments: "{}" }] }));
    const { child, done, db } = startCli(["Wait forever.", "--mcp", flag]);
    await waitFor(() => readFixtureLog(log).some((entry) => entry.event === "call"), "the MCP call", 20_000);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(isAlive(pid)).toBe(true);
    child.kill("SIGTERM");
    const { code, stderr } = await done;
    expect(code, stderr).toBe(143);
    expect(isAlive(pid)).toBe(false);
    expect(readFixtureLog(log).find((entry) => entry.event === "cancelled")).toMatchObject({ tool: "hang" });
    expect(receiptsOf(db).map(({ tool_name, status }) => ({ tool_name, status }))).toEqual([
      { tool_name: "fixture__hang", status: "cancelled" },
    ]);
  });
});
