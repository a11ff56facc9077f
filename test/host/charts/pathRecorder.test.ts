import { describe, expect, it } from "vitest";
import { BUILTIN_SUITE } from "../../../src/cli/evalCommand.js";
import { machineGraph } from "../../../src/host/charts/graph.js";
import { RunPathRecorder } from "../../../src/host/charts/pathRecorder.js";
import { loadCassettes } from "../../../src/host/eval/loadCassettes.js";
import { runEval } from "../../../src/host/eval/runEval.js";
import { runMachine } from "../../../src/machines/run/machine.js";
import * as Ledger from "../../../src/persistence/ledger.js";
import { useRuntimeHarness } from "../../support/runtimeHarness.js";

const harness = useRuntimeHarness("agentloop-path-recorder-");

/**
 * Where the run machine writes each kind of row: the state whose command writes it. A row found
 * anywhere else means the watermark was read too early or too late.
 */
function writtenIn(type: string, origin: unknown): ReadonlyArray<string> {
  switch (type) {
    case "user_input":
      return origin === "runtime_correction" ? ["active.work.recordingTurn"] : ["active.work.opening"];
    case "tool_call":
      return ["active.work.recordingCalls"];
    case "tool_result":
      // Calls that never reported get their receipts with the terminal event.
      return ["active.work.recordingResults", "finalizing"];
    case "assistant_output":
    case "provider_anomaly":
      return ["active.work.recordingCalls", "active.work.recordingTurn", "finalizing"];
    case "terminal":
      return ["finalizing"];
    default:
      return [];
  }
}

describe("RunPathRecorder with a SQLite watermark", () => {
  it("puts every ledger event of every built-in case in the state whose command wrote it, once", async () => {
    const db = harness.dbFile();
    const watermark = Ledger.watermark(db)!;
    const recorder = new RunPathRecorder(runMachine.id, watermark.read);
    const runtime = await harness.makeRuntime({ inspect: recorder.inspect });
    try {
      const report = await runEval(runtime, loadCassettes([BUILTIN_SUITE]), { paths: recorder, database: db });
      expect(report.details).toHaveLength(report.cases.length);
      const misplaced: string[] = [];
      for (const detail of report.details ?? []) {
        const byState = detail.path.eventsByState;
        expect(byState, `${detail.name}: no events per state`).toBeDefined();
        const placed = Object.entries(byState!).flatMap(([state, events]) => events.map((event) => ({ state, event })));
        expect(placed.map(({ event }) => event.sequence).sort((a, b) => a - b)).toEqual(
          detail.events.map((event) => event.sequence),
        );
        for (const { state, event } of placed) {
          const row = detail.events.find((candidate) => candidate.sequence === event.sequence)!;
          const origin = (row.payload as { origin?: unknown } | null)?.origin;
          if (!writtenIn(row.type, origin).includes(state))
            misplaced.push(`${detail.name}: #${row.sequence} ${row.type} in ${state}`);
        }
        expect(detail.path.terminal, detail.name).toBe(detail.statePath.at(-1));
        expect(detail.statePath[0], detail.name).toBe("active.work.opening");
      }
      expect(misplaced).toEqual([]);
    } finally {
      watermark.close();
    }
  }, 120_000);

  it("records the transitions the machine declares, so every one of them is a drawn edge", async () => {
    const recorder = new RunPathRecorder(runMachine.id);
    const runtime = await harness.makeRuntime({ inspect: recorder.inspect });
    const report = await runEval(runtime, loadCassettes(["eval/01-answers.json"]), { paths: recorder });
    const edges = machineGraph(runMachine).edges.map((edge) => edge.id);
    for (const detail of report.details ?? []) {
      expect(detail.path.transitions.length, detail.name).toBeGreaterThan(0);
      for (const transition of detail.path.transitions) {
        expect(edges, `${detail.name}: ${transition.from}->${transition.to}`).toContain(
          `${transition.from}->${transition.to}`,
        );
      }
      expect(detail.path.transitions.map((t) => `${t.from}->${t.to}`)).toContain("active.work->active.work.sampling");
      // Without a watermark there is no way to tell which state wrote which row: none is claimed.
      expect(detail.path.eventsByState, detail.name).toBeUndefined();
    }
  });

  it("without a recorder the path is the states the subscription saw, between consecutive states", async () => {
    const runtime = await harness.makeRuntime();
    const report = await runEval(runtime, loadCassettes(["eval/01-answers.json"]));
    const detail = report.details![0]!;
    expect(detail.path.states).toEqual(detail.statePath);
    expect(
      detail.path.transitions.every((t) => detail.statePath.includes(t.from) && detail.statePath.includes(t.to)),
    ).toBe(true);
    expect(detail.path.eventsByState).toBeUndefined();
  });

  it("a watermark on a missing ledger reads nothing instead of failing", () => {
    const watermark = Ledger.watermark(harness.path("absent.db"))!;
    expect(watermark.read("run_x")).toBeUndefined();
    watermark.close();
  });

  it("PostgreSQL and in-memory ledgers have no watermark", () => {
    expect(Ledger.watermark("postgres://localhost/agentloop")).toBeUndefined();
    expect(Ledger.watermark(":memory:")).toBeUndefined();
  });
});
