/**
 * Approval from the command line, with real processes on one SQLite ledger file:
 * `agentloop run --approve …` against a fake (wire-exact) OpenAI server whose model calls the
 * built-in `workspace_write` (kind mutate), and `agentloop approve` / `deny` from a second process
 * for a run another process drives.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Sqlite from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openAIChatWire, startOpenAIChatServer } from "../support/fakeServers/openaiChat.js";
import type { FakeServer } from "../support/fakeServers/shared.js";
import { useTempDir } from "../support/tempDir.js";

const tmp = useTempDir("agentloop-approve-cli-");
const BIN = fileURLToPath(new URL("../../bin/agentloop.mjs", import.meta.url));
const ENV = { ...process.env, OPENAI_API_KEY: "test-key" };

function exited(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** The first approval request in the ledger file, once there is one. */
async function waitForRequest(db: string, timeoutMs = 20_000): Promise<{ run_id: string; call_id: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(db)) {
      const ledger = new Sqlite(db, { readonly: true, fileMustExist: true });
      try {
        const found = ledger
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'agent_approvals'")
          .get();
        const row = found
          ? (ledger.prepare("SELECT run_id, call_id FROM agent_approvals WHERE kind = 'requested'").get() as
              | { run_id: string; call_id: string }
              | undefined)
          : undefined;
        if (row) return row;
      } finally {
        ledger.close();
      }
    }
    if (Date.now() > deadline) throw new Error("timed out waiting for an approval request");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const receiptsOf = (db: string) => {
  const ledger = new Sqlite(db, { readonly: true });
  try {
    return ledger.prepare("SELECT call_id, status, evidence_json FROM agent_execution_receipts").all() as Array<{
      call_id: string;
      status: string;
      evidence_json: string;
    }>;
  } finally {
    ledger.close();
  }
};

describe("approval from the CLI", () => {
  let server: FakeServer;
  let workspace: string;
  let db: string;
  let flags: string[];
  beforeEach(async () => {
    server = await startOpenAIChatServer();
    workspace = tmp.path("ws");
    mkdirSync(workspace);
    db = tmp.path("ledger.db");
    flags = ["--provider", "openai-chat", "--base-url", `${server.origin}/v1`, "--workspace", workspace, "--db", db];
    server.enqueue(
      openAIChatWire.stream({
        calls: [{ id: "w1", name: "workspace_write", arguments: JSON.stringify({ path: "a.txt", content: "hi\n" }) }],
      }),
    );
  });
  afterEach(async () => {
    await server.close();
  });

  it("agentloop approve from a second process lets the waiting call of agentloop run go ahead", async () => {
    server.enqueue(openAIChatWire.stream({ text: "Wrote a.txt." }));
    // `--approve ask` with an answer that never comes: only the other process decides.
    const driver = spawn(process.execPath, [BIN, "run", "Write a.txt", ...flags, "--approve", "ask", "--json"], {
      env: ENV,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const driven = exited(driver);
    const { run_id, call_id } = await waitForRequest(db);
    expect(existsSync(`${workspace}/a.txt`)).toBe(false);
    const approved = await exited(
      spawn(process.execPath, [BIN, "approve", run_id, call_id, "--db", db, "--by", "cli:reviewer"], {
        env: ENV,
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    expect({ code: approved.code, stderr: approved.stderr }).toEqual({ code: 0, stderr: "" });
    expect(approved.stdout).toBe(`approved ${call_id} (workspace_write) of ${run_id} as cli:reviewer\n`);
    driver.stdin?.end();
    const result = await driven;
    expect(JSON.parse(result.stdout).terminalState).toBe("completed");
    expect(readFileSync(`${workspace}/a.txt`, "utf8")).toBe("hi\n");
    const [receipt] = receiptsOf(db);
    expect(JSON.parse(receipt!.evidence_json).approval).toMatchObject({
      decision: "approved",
      decidedBy: "cli:reviewer",
    });

    const again = await exited(
      spawn(process.execPath, [BIN, "deny", run_id, call_id, "--db", db], {
        env: ENV,
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /^agentloop: cannot deny w1 of run_\S+: (it has a decision already|the run has ended)\n$/,
    );
  }, 60_000);

  it("agentloop approve with 40 KiB of edited arguments: the decision row holds them whole and the call runs with them", async () => {
    server.enqueue(openAIChatWire.stream({ text: "Wrote b.txt." }));
    const driver = spawn(process.execPath, [BIN, "run", "Write a.txt", ...flags, "--approve", "ask", "--json"], {
      env: ENV,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const driven = exited(driver);
    const { run_id, call_id } = await waitForRequest(db);
    const content = `${"edited line\n".repeat((40 * 1024) / 12)}`;
    const edited = JSON.stringify({ path: "b.txt", content });
    expect(edited.length).toBeGreaterThan(40 * 1024);
    const approved = await exited(
      spawn(
        process.execPath,
        [BIN, "approve", run_id, call_id, "--db", db, "--arguments", edited, "--by", "cli:reviewer"],
        {
          env: ENV,
          stdio: ["ignore", "pipe", "pipe"],
        },
      ),
    );
    expect({ code: approved.code, stderr: approved.stderr }).toEqual({ code: 0, stderr: "" });
    driver.stdin?.end();
    const result = await driven;
    expect(JSON.parse(result.stdout).terminalState).toBe("completed");
    expect(existsSync(`${workspace}/a.txt`)).toBe(false);
    expect(readFileSync(`${workspace}/b.txt`, "utf8")).toBe(content);
    expect(receiptsOf(db).map((row) => row.status)).toEqual(["ok"]);
    const ledger = new Sqlite(db, { readonly: true });
    try {
      const row = ledger.prepare("SELECT payload_json FROM agent_approvals WHERE kind = 'approved'").get() as {
        payload_json: string;
      };
      expect(JSON.parse(row.payload_json).arguments).toEqual({ path: "b.txt", content });
    } finally {
      ledger.close();
    }
  }, 60_000);

  it("agentloop run --approve ask denies on n: a denied receipt, nothing written, the model told why", async () => {
    server.enqueue(openAIChatWire.stream({ text: "I did not write a.txt: the write was denied." }));
    server.enqueue(openAIChatWire.stream({ text: "I did not write a.txt: the write was denied." }));
    const driver = spawn(process.execPath, [BIN, "run", "Write a.txt", ...flags, "--approve", "ask", "--json"], {
      env: ENV,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const driven = exited(driver);
    await waitForRequest(db);
    driver.stdin?.write("n\n");
    const result = await driven;
    expect(result.stderr).toContain("approve workspace_write");
    expect(existsSync(`${workspace}/a.txt`)).toBe(false);
    expect(receiptsOf(db).map((row) => row.status)).toEqual(["denied"]);
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain("approval was denied");
  }, 60_000);

  it("agentloop run --approve ask edits the arguments on e: the call runs with the edited JSON", async () => {
    server.enqueue(openAIChatWire.stream({ text: "Wrote b.txt." }));
    const driver = spawn(process.execPath, [BIN, "run", "Write a.txt", ...flags, "--approve", "ask", "--json"], {
      env: ENV,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const driven = exited(driver);
    await waitForRequest(db);
    driver.stdin?.write(`e\n${JSON.stringify({ path: "b.txt", content: "edited\n" })}\n`);
    const result = await driven;
    expect(JSON.parse(result.stdout).terminalState).not.toBe("failed");
    expect(existsSync(`${workspace}/a.txt`)).toBe(false);
    expect(readFileSync(`${workspace}/b.txt`, "utf8")).toBe("edited\n");
  }, 60_000);

  it("agentloop run --approve ask refuses edited arguments nested too deep in one line and asks again", async () => {
    server.enqueue(openAIChatWire.stream({ text: "Wrote b.txt." }));
    const driver = spawn(process.execPath, [BIN, "run", "Write a.txt", ...flags, "--approve", "ask", "--json"], {
      env: ENV,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const driven = exited(driver);
    await waitForRequest(db);
    const deep = `${"[".repeat(5_000)}${"]".repeat(5_000)}`;
    driver.stdin?.write(`e\n${deep}\ne\n${JSON.stringify({ path: "b.txt", content: "edited\n" })}\n`);
    const result = await driven;
    expect(result.stderr).toContain("the arguments nest deeper than 64 levels, the limit for edited arguments\n");
    expect(result.stderr).not.toContain("Maximum call stack size exceeded");
    expect(JSON.parse(result.stdout).terminalState).toBe("completed");
    expect(readFileSync(`${workspace}/b.txt`, "utf8")).toBe("edited\n");
  }, 60_000);

  it("agentloop run --approve never denies at once and says so", async () => {
    server.enqueue(openAIChatWire.stream({ text: "Not written." }));
    server.enqueue(openAIChatWire.stream({ text: "Not written." }));
    const result = await exited(
      spawn(process.execPath, [BIN, "run", "Write a.txt", ...flags, "--approve", "never"], {
        env: ENV,
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    expect(result.stderr).toContain("denied workspace_write (w1): --approve never");
    expect(receiptsOf(db).map((row) => row.status)).toEqual(["denied"]);
  }, 60_000);

  it("agentloop approve names a call that does not wait in one line", async () => {
    const migrated = await exited(spawn(process.execPath, [BIN, "migrate", "--db", db], { env: ENV }));
    expect(migrated.code).toBe(0);
    const result = await exited(
      spawn(process.execPath, [BIN, "approve", "run_x", "c9", "--db", db], {
        env: ENV,
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("agentloop: cannot approve c9 of run_x: no such call waits for approval\n");
  }, 60_000);
});
