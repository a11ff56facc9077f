/**
 * Smoke test of the kill fuzz (fuzz/killFuzz.ts): a short run — a dozen SIGKILLed children of the
 * built package on reused ledger files, recovered by the runtime and by the CLI, with live rounds
 * where the file is recovered next to a process still driving its runs — must find no violation
 * and report plausible figures. The ledger checker it relies on must flag broken ledgers, so that
 * a quiet run means something.
 *
 * Known failure (2026-12-01): "its process is dead, yet recovery left it running" in a `live`
 * round is a real bug, not flakiness of the suite: recovery closes each run in a deferred
 * transaction (reads, then writes), which SQLite refuses at once with SQLITE_BUSY_SNAPSHOT when the
 * live process committed in between; the run is skipped with a warning and stays open.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Sqlite from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ledgerBreaks, readLedgerFile, runKillFuzz } from "../../fuzz/killFuzz.js";
import { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { fixtureTool } from "../../src/services/tools/fixtureTool.js";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentloop-kill-fuzz-test-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("kill fuzz", () => {
  it("finds no violation when children are SIGKILLed at random moments", async () => {
    const report = await runKillFuzz({ killPoints: 12, seed: 20261201, parallelism: 3, dir });
    expect(report.violations).toEqual([]);
    const figures = report.figures as Record<string, number>;
    expect(report.suite).toBe("killFuzz");
    expect(figures.killPoints).toBeGreaterThanOrEqual(12);
    expect(figures.childProcesses).toBeGreaterThanOrEqual(figures.killPoints!);
    expect(figures.runsStarted).toBeGreaterThan(0);
    expect(figures.runsFinished).toBeGreaterThan(0);
    expect(figures.runsRecovered).toBeGreaterThan(0);
    // Every lane has a live round (recovery next to a live process) and a round whose children end by themselves.
    expect(figures.liveRounds).toBeGreaterThanOrEqual(1);
    expect(figures.liveRunsLeftAlone).toBeGreaterThanOrEqual(1);
    expect(figures.cliRecoveries! + figures.runtimeRecoveries!).toBeGreaterThanOrEqual(figures.rounds!);
    expect(figures.integrityChecks).toBeGreaterThanOrEqual(figures.rounds!);
    expect(figures.recoverIdempotenceChecks).toBe(figures.rounds);
    expect(figures.violations).toBe(0);
  }, 60_000);

  it("its ledger checker flags every kind of broken ledger", async () => {
    const file = join(dir, "ledger.db");
    const runtime = await AgentRuntime.make({ database: file });
    const handle = runtime.startRun({
      runId: "good",
      sessionId: "s",
      input: "Look it up.",
      tools: [fixtureTool({ name: "lookup", outcomes: [{ status: "ok", output: "found" }] })],
      provider: scriptedProvider([
        { toolCalls: [{ id: "c1", name: "lookup", arguments: { key: "a" } }] },
        { text: "It is listed above." },
      ]),
    });
    expect((await handle.result).terminalState).toBe("completed");
    await runtime.dispose();
    expect(ledgerBreaks(readLedgerFile(file))).toEqual([]);

    const settled = new Sqlite(file);
    settled.pragma("wal_checkpoint(TRUNCATE)");
    settled.close();

    /** A copy of the good ledger, without its triggers and terminal index, broken by `sql`. */
    let copies = 0;
    const breaksAfter = (sql: string) => {
      const copy = join(dir, `broken-${copies++}.db`);
      copyFileSync(file, copy);
      const db = new Sqlite(copy);
      const guards = db
        .prepare(
          "SELECT type, name FROM sqlite_master WHERE (type = 'trigger' AND tbl_name LIKE 'agent_%') OR name = 'idx_agent_run_events_terminal'",
        )
        .all() as Array<{ type: string; name: string }>;
      for (const { type, name } of guards) db.exec(`DROP ${type === "trigger" ? "TRIGGER" : "INDEX"} ${name}`);
      db.pragma("foreign_keys = OFF");
      db.exec(sql);
      db.close();
      return ledgerBreaks(readLedgerFile(copy)).join("\n");
    };
    const last = "(SELECT MAX(sequence) FROM agent_run_events WHERE run_id = 'good')";
    expect(breaksAfter("DELETE FROM agent_execution_receipts WHERE call_id = 'c1'")).toMatch(
      /run good: call c1 closed without a receipt/,
    );
    expect(
      breaksAfter(
        `INSERT INTO agent_run_events (run_id, sequence, event_type, payload_json, created_at)
         VALUES ('good', ${last} + 1, 'user_input', '{}', '2026-01-01T00:00:00Z')`,
      ),
    ).toMatch(/run good: the terminal event is not the last event/);
    expect(breaksAfter("UPDATE agent_runs SET terminal_state = 'cancelled' WHERE run_id = 'good'")).toMatch(
      /run good: row says cancelled, terminal event says completed/,
    );
    expect(breaksAfter("UPDATE agent_runs SET failure_code = 'interrupted' WHERE run_id = 'good'")).toMatch(
      /run good: row reason interrupted, terminal event reason answered/,
    );
    expect(breaksAfter(`DELETE FROM agent_run_events WHERE run_id = 'good' AND event_type = 'terminal'`)).toMatch(
      /run good: completed with 0 terminal events/,
    );
    expect(breaksAfter("UPDATE agent_run_events SET sequence = sequence + 10 WHERE sequence = 2")).toMatch(
      /run good: sequence 12 at position \d+ \(not contiguous from 1\)/,
    );
    expect(
      breaksAfter(`UPDATE agent_run_events SET sequence = 100 WHERE event_type = 'tool_call';
                   UPDATE agent_run_events SET sequence = 101 WHERE event_type = 'tool_result'`),
    ).not.toMatch(/before its call/);
    expect(breaksAfter("UPDATE agent_run_events SET sequence = 100 WHERE event_type = 'tool_call'")).toMatch(
      /run good: result of c1 before its call/,
    );
    expect(
      breaksAfter(`INSERT INTO agent_execution_receipts
        SELECT 'stray', run_id, 'c9', tool_name, status, verification_status, input_fingerprint, evidence_json,
               started_at, finished_at, lease_epoch, tool_kind, external_id, evidence_keys_json
        FROM agent_execution_receipts WHERE call_id = 'c1'`),
    ).toMatch(/run good: receipt of c9 without its tool_call/);
    expect(
      breaksAfter(`INSERT INTO agent_runs (run_id, session_id, terminal_state, completion_contract_json, started_at)
         VALUES ('open', 's', 'running', '{}', '2026-01-01T00:00:00Z')`),
    ).toMatch(/run open: still running after recovery/);
  });
});
