/**
 * `agentloop inspect` as a child process (bin/agentloop.mjs) on a real SQLite ledger: each call's
 * approval row (who decided what, when, with what scope) beside the call, and nothing the ledger
 * holds — tool output, ids, names — reaches the terminal with a control character in it.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { AgentRunStore } from "../../src/persistence/AgentRunStore.js";
import { recordApprovalDecision, recordApprovalRequest } from "../../src/persistence/approvals.js";
import {
  closure,
  newRun,
  receipt,
  toolCall,
  toolResult,
  userInput,
  useTempDir,
  withLedger,
} from "../support/tempDir.js";

const tmp = useTempDir("agentloop-inspect-cli-");
const BIN = fileURLToPath(new URL("../../bin/agentloop.mjs", import.meta.url));
/** A child process starts the whole CLI; allow for a loaded machine (not a timing assertion). */
const CHILD_TIMEOUT = 60_000;
const AT = "2024-05-01T00:00:00.000Z";

/** Output a hostile tool returned: DEL, a C1 CSI, an OSC that sets the window title, a BS and a CR. */
const HOSTILE_OUTPUT = "done\u007f \u009b31mred \u001b]0;pwned\u0007 back\b\rover";

function runChild(argv: ReadonlyArray<string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...argv], { stdio: ["ignore", "pipe", "pipe"] });
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

/** A finished run: call c1 approved by cli:alice for the run, and a result with hostile output. */
const seedApprovedRun = (file: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const store = yield* AgentRunStore;
      yield* store.createRun(newRun("run-1", { sessionId: "session\u001b[2J" }), [userInput(1)]);
      yield* store.appendEvents("run-1", [toolCall(2, "c1", "workspace_write"), toolCall(3, "c2", "workspace_write")]);
      for (const callId of ["c1", "c2"]) {
        yield* recordApprovalRequest(
          {
            runId: "run-1",
            step: 1,
            callId,
            toolName: "workspace_write",
            arguments: { path: "a.txt" },
            reason: "mutate tools wait for approval",
            timeoutMs: 60_000,
          },
          AT,
        );
      }
      yield* recordApprovalDecision("run-1", "c1", {
        decision: "approved",
        scope: "run",
        decidedBy: "cli:alice",
        decidedAt: "2024-05-01T00:00:05.000Z",
      });
      yield* recordApprovalDecision("run-1", "c2", {
        decision: "denied",
        message: "not during the freeze",
        decidedBy: "cli:bob",
        decidedAt: "2024-05-01T00:00:06.000Z",
      });
      yield* store.appendEvents(
        "run-1",
        [toolResult(4, "c1", HOSTILE_OUTPUT), toolResult(5, "c2", "denied")],
        [
          receipt("run-1", "c1", { toolName: "workspace_write", evidence: { note: HOSTILE_OUTPUT } }),
          receipt("run-1", "c2", { toolName: "workspace_write", status: "denied", verificationStatus: "unverified" }),
        ],
      );
      yield* store.finishRun("run-1", closure(6));
    }).pipe(withLedger({ filename: file })),
  );

describe("agentloop inspect", () => {
  it(
    "shows each call's approval (who, when, scope or message) on the line after the call",
    async () => {
      const db = tmp.path("ledger.db");
      await seedApprovedRun(db);
      const result = await runChild(["inspect", "run-1", "--db", db]);
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
      const lines = result.stdout.split("\n");
      const call = lines.findIndex((line) => /^ {3}2 {2}\S+ {2}call c1 → workspace_write/.test(line));
      expect(call).toBeGreaterThan(0);
      expect(lines[call + 1]).toBe(
        `      approval requested ${AT} (mutate tools wait for approval); approved by cli:alice at 2024-05-01T00:00:05.000Z, scope run`,
      );
      const denied = lines.findIndex((line) => /call c2 → workspace_write/.test(line));
      expect(lines[denied + 1]).toBe(
        `      approval requested ${AT} (mutate tools wait for approval); denied by cli:bob at 2024-05-01T00:00:06.000Z: not during the freeze`,
      );
    },
    CHILD_TIMEOUT,
  );

  it(
    "--json carries the approval rows with the run",
    async () => {
      const db = tmp.path("ledger.db");
      await seedApprovedRun(db);
      const result = await runChild(["inspect", "run-1", "--db", db, "--json"]);
      expect(result.code).toBe(0);
      const parsed = JSON.parse(result.stdout) as { approvals: Array<Record<string, unknown>> };
      expect(parsed.approvals).toMatchObject([
        { callId: "c1", decision: { decision: "approved", scope: "run", decidedBy: "cli:alice" } },
        { callId: "c2", decision: { decision: "denied", message: "not during the freeze", decidedBy: "cli:bob" } },
      ]);
    },
    CHILD_TIMEOUT,
  );

  it(
    "escapes every control character of the ledger's text (tool output, session id) and keeps JSON output valid",
    async () => {
      const db = tmp.path("ledger.db");
      await seedApprovedRun(db);
      const text = await runChild(["inspect", "run-1", "--db", db]);
      expect(text.code).toBe(0);
      expect(text.stdout).not.toMatch(/(?!\n)\p{Cc}/u);
      expect(text.stdout).toContain("session\\u001b[2J");
      expect(text.stdout).toContain("done\\u007f \\u009b31mred \\u001b]0;pwned\\u0007 back\\u0008\\u000dover");

      const json = await runChild(["inspect", "run-1", "--db", db, "--json"]);
      expect(json.stdout).not.toMatch(/(?!\n)\p{Cc}/u);
      // The escapes are JSON escapes: the values read back are the ledger's, control characters and all.
      const parsed = JSON.parse(json.stdout) as { run: { sessionId: string }; receipts: Array<{ evidence: unknown }> };
      expect(parsed.run.sessionId).toBe("session\u001b[2J");
      expect(parsed.receipts[0]?.evidence).toEqual({ note: HOSTILE_OUTPUT });
    },
    CHILD_TIMEOUT,
  );
});
