import { CommanderError } from "commander";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { registerObservabilityCommands } from "../../src/cli/observabilityCommands.js";
import { CliFailure, firstLine } from "../../src/cli/output.js";
import { AgentRuntime } from "../../src/runtime/AgentRuntime.js";
import { scriptedProvider } from "../../src/services/providers/scripted.js";
import { craftLedger } from "../services/observability/support.js";
import { callStep, FAST_RETRY, lookupTool, textStep } from "../support/runtimeHarness.js";
import { fileSha256, useTempDir } from "../support/tempDir.js";

const tmp = useTempDir("agentloop-cli-observability-");

afterEach(() => {
  vi.unstubAllEnvs();
});

interface CliResult {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
}

/** Runs the CLI in-process as `main` does, with the observability commands registered. */
async function runCli(argv: string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  let code = 0;
  const io = { out: (line: string) => out.push(line), err: (line: string) => err.push(line), isTTY: false };
  const setExit = (value: number) => {
    code = value;
  };
  const program = buildProgram(io, setExit);
  if (!program.commands.some((command) => command.name() === "trace")) {
    registerObservabilityCommands(program, io, setExit);
  }
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) code = error.exitCode === 0 ? 0 : 2;
    else if (error instanceof CliFailure) {
      err.push(`agentloop: ${firstLine(error.message)}`);
      code = error.exitCode;
    } else {
      err.push(`agentloop: ${firstLine(error)}`);
      code = 1;
    }
  }
  return { code, out, err };
}

/** One finished lookup run in a fresh ledger file; the runtime is closed again. */
async function ledgerWithRun() {
  const db = tmp.path("ledger.db");
  const runtime = await AgentRuntime.make({ database: db, retry: FAST_RETRY });
  try {
    const result = await runtime.startRun({
      sessionId: "s-cli",
      input: "Look up item 1.",
      provider: scriptedProvider([callStep("c1", "lookup", { i: 1 }), textStep("Item 1 is 'item'.")]),
      tools: [lookupTool()],
      contract: { evidenceMode: "observe", requiredToolNames: ["lookup"] },
    }).result;
    return { db, result };
  } finally {
    await runtime.dispose();
  }
}

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

describe("agentloop trace", () => {
  it("prints the run found by its trace id: header, every event with a summary, receipts and persistence", async () => {
    const { db, result } = await ledgerWithRun();
    const { code, out } = await runCli(["trace", result.traceId, "--db", db]);
    expect(code).toBe(0);
    expect(out.slice(0, 2)).toEqual([`run ${result.runId}`, `trace ${result.traceId}  session s-cli`]);
    expect(out).toContain("terminal completed (receipts_satisfied)");
    const events = out.filter((line) => /^ {2}#\d+ /.test(line)).map((line) => line.trim().split(/\s+/)[1]);
    expect(events).toEqual(["user_input", "tool_call", "tool_result", "assistant_output", "terminal"]);
    expect(out.find((line) => line.includes(" tool_result "))).toMatch(/result c1 lookup ok; receipt ok\/verified/);
    expect(out.find((line) => line.includes(" terminal "))).toMatch(
      /completed \(receipts_satisfied\) steps=2 corrections=0 verification=enforce:completed/,
    );
    expect(out).toContain("  ledger: 5 events, 1 receipts; 1 tool calls, 1 results; every call has a receipt");
    expect(out).toContain("  terminal event: completed; run row: completed (matches)");
  });

  it("prints the run as one JSON object with --json", async () => {
    const { db, result } = await ledgerWithRun();
    const { code, out } = await runCli(["trace", result.traceId, "--db", db, "--json"]);
    expect(code).toBe(0);
    const view = JSON.parse(out.join("\n"));
    expect(view.run).toMatchObject({ runId: result.runId, traceId: result.traceId, terminalState: "completed" });
    expect(view.events.map((event: { type: string }) => event.type)).toHaveLength(5);
    expect(view.persistence).toMatchObject({ toolCalls: 1, receipts: 1, callsWithoutReceipt: [] });
  });

  it("reports an unknown trace id in one line and exits 1", async () => {
    const { db } = await ledgerWithRun();
    const { code, out, err } = await runCli(["trace", "nope", "--db", db]);
    expect({ code, out, err }).toEqual({ code: 1, out: [], err: [`agentloop: no run with trace id nope in ${db}`] });
  });

  it("reports a missing database in one line", async () => {
    const db = tmp.path("missing.db");
    const { code, err } = await runCli(["trace", "t", "--db", db]);
    expect({ code, err }).toEqual({ code: 1, err: [`agentloop: no ledger database at ${db}`] });
  });

  it("leaves the ledger file byte-for-byte unchanged", async () => {
    const { db, result } = await ledgerWithRun();
    const before = fileSha256(db);
    await runCli(["trace", result.traceId, "--db", db]);
    await runCli(["metrics", "--db", db]);
    await runCli(["health", "--db", db]);
    expect(fileSha256(db)).toBe(before);
  });
});

describe("agentloop health", () => {
  it("prints every check ok and exits 0 on a clean ledger", async () => {
    const { db } = await ledgerWithRun();
    const { code, out } = await runCli(["health", "--db", db, "--window", "1h"]);
    expect(code).toBe(0);
    expect(out[0]).toMatch(/^health over the last 1h \(.*\): 1 closed run\(s\)$/);
    expect(out.slice(1).map((line) => line.split(/\s+/).slice(0, 2))).toEqual([
      ["ok", "provider_tool_protocol_invalid_spike"],
      ["ok", "unverified_ratio_jump"],
      ["ok", "ledger_write_failures"],
      ["ok", "orphan_replay_items"],
      ["ok", "deliveries_without_stable_receipt"],
    ]);
  });

  it("prints FIRING for a ledger write failure and exits 1", async () => {
    const db = tmp.path("ledger.db");
    await craftLedger(db, [
      { runId: "ok-1", endedAt: minutesAgo(5) },
      { runId: "broken", endedAt: minutesAgo(3), state: "failed", reason: "ledger_write_failed" },
    ]);
    const { code, out } = await runCli(["health", "--db", db]);
    expect(code).toBe(1);
    expect(out.find((line) => line.includes("ledger_write_failures"))).toMatch(
      /^FIRING {2}ledger_write_failures .*\[broken\]$/,
    );
  });

  it("reports the checks as JSON with --json", async () => {
    const db = tmp.path("ledger.db");
    await craftLedger(db, [{ runId: "dangling", endedAt: minutesAgo(5), calls: [{ callId: "c1", receipt: false }] }]);
    const { code, out } = await runCli(["health", "--db", db, "--json"]);
    const report = JSON.parse(out.join("\n"));
    expect(code).toBe(1);
    expect(report.firing).toBe(true);
    expect(report.checks.find((check: { name: string }) => check.name === "orphan_replay_items")).toMatchObject({
      status: "firing",
      runIds: ["dangling"],
    });
  });

  it("rejects a window it cannot read in one line with exit code 2", async () => {
    const { db } = await ledgerWithRun();
    const { code, err } = await runCli(["health", "--db", db, "--window", "soon"]);
    expect(code).toBe(2);
    expect(err).toEqual(['agentloop: --window must be a positive duration like 30m, 1h, 2d (got "soon")']);
  });
});

describe("agentloop metrics", () => {
  it("prints the seed's metrics in Prometheus format, computed from the ledger", async () => {
    const { db } = await ledgerWithRun();
    const { code, out } = await runCli(["metrics", "--db", db]);
    expect(code).toBe(0);
    expect(out).toContain("# TYPE agent_runs_total counter");
    expect(out).toContain('agent_runs_total{terminal_state="completed"} 1');
    expect(out).toContain("agent_terminal_without_tool_calls_total 0");
    expect(out).toContain('agent_run_steps_bucket{le="2"} 1');
    for (const name of ["agent_receipt_missing_total", "agent_memory_candidate_total", "agent_memory_rejected_total"]) {
      expect(out).toContain(`# TYPE ${name} counter`);
    }
  });
});

describe("agentloop flags", () => {
  it("prints the effective flags and the rollout stage they match", async () => {
    const { code, out } = await runCli(["flags", "--stage", "observability"]);
    expect(code).toBe(0);
    expect(out).toContain("receiptVerification    off");
    expect(out.at(-1)).toBe("rollout stage: 1 observability");
  });

  it("reports a bad environment value naming the variable, with exit code 2", async () => {
    vi.stubEnv("AGENTLOOP_MEMORY_GATE", "sometimes");
    const { code, err } = await runCli(["flags"]);
    expect({ code, err }).toEqual({
      code: 2,
      err: ['agentloop: AGENTLOOP_MEMORY_GATE must be one of off, observe, enforce, got "sometimes"'],
    });
  });
});
