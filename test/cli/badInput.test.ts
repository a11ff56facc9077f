/**
 * Commands refused for bad input touch no file: `agentloop` child processes (bin/agentloop.mjs) on a
 * real SQLite ledger with a call waiting for approval, while another connection holds the ledger
 * open so its -wal and -shm exist. Each refusal is one `agentloop:` line with exit 2, and the
 * database, its -wal and its -shm are byte-identical afterwards (no owner row, no decision row).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Sqlite from "better-sqlite3";
import { Effect } from "effect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EDITED_ARGUMENTS_MAX_DEPTH } from "../../src/domain/index.js";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { recordApprovalRequest } from "../../src/persistence/approvals.js";
import { fileSha256, listDir, newRun, toolCall, userInput, useTempDir, withLedger } from "../support/tempDir.js";

const tmp = useTempDir("agentloop-bad-input-");
const BIN = fileURLToPath(new URL("../../bin/agentloop.mjs", import.meta.url));
const ENV = { ...process.env, OPENAI_API_KEY: "test-key" };
/** A child process starts the whole CLI; allow for a loaded machine (not a timing assertion). */
const CHILD_TIMEOUT = 60_000;

function runChild(argv: ReadonlyArray<string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...argv], { env: ENV, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** A running run `run-1` whose call `c1` (workspace_write) waits for approval. */
const seedWaitingCall = (file: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("run-1"), [userInput(1)]);
      yield* store.appendEvents("run-1", [toolCall(2, "c1", "workspace_write")]);
      yield* recordApprovalRequest(
        {
          runId: "run-1",
          step: 1,
          callId: "c1",
          toolName: "workspace_write",
          arguments: { path: "a.txt", content: "hi" },
          reason: "mutate",
          timeoutMs: 600_000,
        },
        "2024-01-01T00:00:00.000Z",
      );
    }).pipe(withLedger({ filename: file })),
  );

/** Hashes of the ledger and its companions ("absent" for a file that is not there). */
const ledgerHashes = (db: string) =>
  Object.fromEntries(
    [db, `${db}-wal`, `${db}-shm`].map((file) => [file, existsSync(file) ? fileSha256(file) : "absent"]),
  );

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const provider = ["--provider", "openai-chat", "--base-url", "http://127.0.0.1:9/v1"];

interface BadInput {
  readonly name: string;
  readonly argv: (dir: string, db: string) => string[];
  readonly message: RegExp;
}

const BAD_INPUTS: ReadonlyArray<BadInput> = [
  {
    name: "run with a --workspace that does not exist",
    argv: (dir, db) => ["run", "Write a.txt", ...provider, "--workspace", `${dir}/does/not/exist`, "--db", db],
    message: /^agentloop: workspace \S+\/does\/not\/exist does not exist$/,
  },
  {
    name: "run with a --workspace that is a file",
    argv: (dir, db) => {
      writeFileSync(`${dir}/notes.txt`, "notes\n");
      return ["run", "Write a.txt", ...provider, "--workspace", `${dir}/notes.txt`, "--db", db];
    },
    message: /^agentloop: workspace \S+\/notes\.txt is not a folder$/,
  },
  {
    name: "run with --mcp-kind but no --mcp server",
    argv: (_dir, db) => ["run", "Write a.txt", ...provider, "--mcp-kind", "send=mutate", "--db", db],
    message: /^agentloop: --mcp-kind needs at least one --mcp server$/,
  },
  {
    name: "run with an --mcp server that cannot be reached",
    argv: (_dir, db) => ["run", "Write a.txt", ...provider, "--mcp", "http://127.0.0.1:9/mcp", "--db", db],
    message: /^agentloop: cannot connect to the MCP server http:\/\/127\.0\.0\.1:9\/mcp: /,
  },
  {
    name: "recover --resume with a --workspace that does not exist",
    argv: (dir, db) => ["recover", "--resume", ...provider, "--workspace", `${dir}/nowhere`, "--db", db],
    message: /^agentloop: workspace \S+\/nowhere does not exist$/,
  },
  {
    name: "approve with arguments that are not JSON",
    argv: (_dir, db) => ["approve", "run-1", "c1", "--arguments", "{not json", "--db", db],
    message: /^agentloop: --arguments is not JSON: /,
  },
  {
    name: "approve with arguments nested 5,000 deep",
    argv: (_dir, db) => ["approve", "run-1", "c1", "--arguments", nested(5_000), "--db", db],
    message: new RegExp(`^agentloop: --arguments nest deeper than ${EDITED_ARGUMENTS_MAX_DEPTH} levels, the limit`),
  },
  {
    name: "approve --by with ESC and BEL (a terminal title sequence)",
    argv: (_dir, db) => ["approve", "run-1", "c1", "--by", "evil\u001b]0;pwned\u0007", "--db", db],
    message: /^agentloop: --by holds the control character U\+001B$/,
  },
  {
    name: "deny --by with a C1 CSI",
    argv: (_dir, db) => ["deny", "run-1", "c1", "--by", "a\u009b2Jb", "--db", db],
    message: /^agentloop: --by holds the control character U\+009B$/,
  },
  {
    name: "deny --by with CR/LF",
    argv: (_dir, db) => ["deny", "run-1", "c1", "--by", "alice\r\nagentloop: approved", "--db", db],
    message: /^agentloop: --by holds the control character U\+000D$/,
  },
  {
    name: "deny with a --message over its limit",
    argv: (_dir, db) => ["deny", "run-1", "c1", "--message", "m".repeat(5_000), "--db", db],
    message: /^agentloop: --message is longer than 4096 characters$/,
  },
];

describe("a command refused for bad input leaves the ledger, its -wal and its -shm byte-identical", () => {
  let db: string;
  let holder: Sqlite.Database;
  beforeEach(async () => {
    db = tmp.path("good.db");
    await seedWaitingCall(db);
    // Another process's connection: the -wal and -shm exist while it is open.
    holder = new Sqlite(db);
    holder.prepare("SELECT COUNT(*) FROM agent_runs").get();
  });
  afterEach(() => {
    holder.close();
  });

  it.each(BAD_INPUTS)(
    "$name: one line, exit 2, no file changed",
    async ({ argv, message }) => {
      const args = argv(tmp.dir(), db);
      const before = ledgerHashes(db);
      expect(Object.values(before)).not.toContain("absent");
      const files = listDir(tmp.dir());
      const result = await runChild(args);
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: "" });
      expect(result.stderr.endsWith("\n")).toBe(true);
      const lines = result.stderr.slice(0, -1).split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(message);
      expect(lines[0]).not.toMatch(/\p{Cc}/u);
      expect(ledgerHashes(db)).toEqual(before);
      expect(listDir(tmp.dir())).toEqual(files);
    },
    CHILD_TIMEOUT,
  );
});

describe("approve and deny on a ledger file that does not exist", () => {
  it.each(["approve", "deny"])(
    "%s names the missing file in one line and creates nothing",
    async (command) => {
      mkdirSync(tmp.path("empty"));
      const db = tmp.path("empty", "missing.db");
      const result = await runChild([command, "run-1", "c1", "--db", db]);
      expect(result).toEqual({ code: 1, stdout: "", stderr: `agentloop: no ledger database at ${db}\n` });
      expect(listDir(tmp.path("empty"))).toEqual([]);
    },
    CHILD_TIMEOUT,
  );
});
