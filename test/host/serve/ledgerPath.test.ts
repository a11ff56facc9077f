import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerEvent } from "../../../src/domain/index.js";
import { machineGraph } from "../../../src/host/charts/graph.js";
import { highlightOf } from "../../../src/host/charts/highlight.js";
import { RunPathRecorder } from "../../../src/host/charts/pathRecorder.js";
import type { RunPath } from "../../../src/host/charts/runPath.js";
import { loadCassettes } from "../../../src/host/eval/loadCassettes.js";
import { type CaseDetail, type CaseResult, runEval } from "../../../src/host/eval/runEval.js";
import { ledgerPath, RUN_STATES } from "../../../src/host/serve/ledgerPath.js";
import { runMachine } from "../../../src/machines/run/machine.js";
import * as Ledger from "../../../src/persistence/ledger.js";
import { AgentRuntime } from "../../../src/runtime/AgentRuntime.js";
import { FAST_RETRY } from "../../support/runtimeHarness.js";

/**
 * The ledger paths of real runs: the whole built-in evaluation suite (eval/*.json) run through
 * the real runtime with the scripted provider, each case's path derived from its ledger rows alone
 * against the path XState's inspection API recorded while it ran (RunPathRecorder with an exact
 * ledger watermark, as `agentloop eval --report` records it) and against the drawn run chart.
 */

let dir: string;
let runtime: AgentRuntime;
let watermark: Ledger.LedgerWatermark;
let cases: ReadonlyArray<{ readonly result: CaseResult; readonly detail: CaseDetail }>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentloop-ledgerpath-"));
  const db = join(dir, "ledger.db");
  watermark = Ledger.watermark(db)!;
  const recorder = new RunPathRecorder(runMachine.id, watermark.read);
  runtime = await AgentRuntime.make({ database: db, retry: FAST_RETRY, inspect: recorder.inspect });
  const files = readdirSync("eval")
    .filter((file) => file.endsWith(".json"))
    .map((file) => join("eval", file));
  const report = await runEval(runtime, loadCassettes(files), { paths: recorder, database: db });
  cases = report.cases.map((result, index) => ({ result, detail: report.details![index]! }));
}, 120_000);

afterAll(async () => {
  await runtime?.dispose();
  watermark?.close();
  rmSync(dir, { recursive: true, force: true });
});

const pathOf = (result: CaseResult, events: ReadonlyArray<LedgerEvent>) =>
  ledgerPath({ terminalState: result.terminalState }, events);
const byName = (name: string) => {
  const found = cases.find((entry) => entry.detail.name === name);
  if (!found) throw new Error(`no case ${name}`);
  return found;
};

describe("ledgerPath over the built-in suite's real ledgers", () => {
  it("is the path XState inspection recorded: state for state, edge for edge, row for row", () => {
    expect(cases.length).toBeGreaterThan(100);
    // The `cancellation` region leaves no row of its own, and the `approval` region's rows are in
    // agent_approvals, not among the run's events: the event ledger cannot show either.
    const region = (state: string) => state.startsWith("active.cancellation") || state.startsWith("active.approval");
    const comparable = (path: RunPath) => ({
      states: path.states.filter((state) => !region(state)),
      transitions: path.transitions.filter((step) => !region(step.from) && !region(step.to)),
      terminal: path.terminal,
      eventsByState: path.eventsByState,
    });
    // A run parked and resumed on a second runtime enters `opening` again; no row marks that.
    const resumed = (path: RunPath) => path.states.filter((state) => state === "active.work.opening").length > 1;
    const differences = cases.flatMap(({ result, detail }) => {
      expect(detail.path.eventsByState).toBeDefined();
      if (resumed(detail.path)) return [];
      const derived = comparable(pathOf(result, detail.events));
      return JSON.stringify(derived) === JSON.stringify(comparable(detail.path))
        ? []
        : [`${detail.name}: ${JSON.stringify(derived)}`];
    });
    expect(differences).toEqual([]);
  });

  it("starts in opening and ends in the run's terminal state through finalizing", () => {
    for (const { result, detail } of cases) {
      const path = pathOf(result, detail.events);
      expect(path.states[0]).toBe(RUN_STATES.opening);
      expect(path.states.slice(-2)).toEqual([RUN_STATES.finalizing, result.terminalState]);
      expect(path.terminal).toBe(result.terminalState);
    }
  });

  it("takes only transitions the run chart draws", () => {
    const graph = machineGraph(runMachine);
    const unmatched = cases.flatMap(({ result, detail }) =>
      highlightOf(graph, pathOf(result, detail.events)).unmatched.map(
        (transition) => `${detail.name}: ${transition.from} -> ${transition.to}`,
      ),
    );
    expect(unmatched).toEqual([]);
  });

  it("places every ledger row in exactly one state", () => {
    for (const { result, detail } of cases) {
      const placed = Object.values(pathOf(result, detail.events).eventsByState ?? {}).flat();
      expect(placed.map((event) => event.sequence).sort((a, b) => a - b)).toEqual(
        detail.events.map((event) => event.sequence),
      );
    }
  });

  it("puts a tool step's rows in the states that wrote them", () => {
    const { result, detail } = byName("observe-with-receipt");
    const byState = pathOf(result, detail.events).eventsByState ?? {};
    const types = (state: string) => (byState[state] ?? []).map((event) => event.type);
    expect(types(RUN_STATES.opening)).toEqual(["user_input"]);
    expect(types(RUN_STATES.recordingCalls)).toEqual(["tool_call"]);
    expect(types(RUN_STATES.recordingResults)).toEqual(["tool_result"]);
    expect(types(RUN_STATES.finalizing)).toEqual(["assistant_output", "terminal"]);
  });

  it("goes through verifying and recordingTurn for a runtime correction", () => {
    const { result, detail } = byName("deliver-without-message-id");
    const states = pathOf(result, detail.events).states;
    const turn = states.indexOf(RUN_STATES.recordingTurn);
    expect(states.slice(turn - 2, turn + 2)).toEqual([
      RUN_STATES.sampling,
      RUN_STATES.verifying,
      RUN_STATES.recordingTurn,
      RUN_STATES.sampling,
    ]);
  });

  it("stops where the run stood for a doom loop: recordingResults to finalizing", () => {
    const { result, detail } = byName("doom-loop-same-call");
    expect(result.reason).toBe("doom_loop");
    const path = pathOf(result, detail.events);
    expect(path.states.slice(-3)).toEqual([RUN_STATES.recordingResults, RUN_STATES.finalizing, "incomplete"]);
    expect(path.transitions.find((step) => step.to === RUN_STATES.recordingCalls)?.count).toBe(3);
  });

  it("shows a run that is still going in the state it is in now", () => {
    const { detail } = byName("observe-with-receipt");
    const upTo = (type: LedgerEvent["type"]) =>
      detail.events.slice(0, detail.events.findIndex((e) => e.type === type) + 1);
    const running = (events: ReadonlyArray<LedgerEvent>) => ledgerPath({ terminalState: "running" }, events);
    expect(running(upTo("user_input")).states.at(-1)).toBe(RUN_STATES.sampling);
    expect(running(upTo("tool_call")).states.at(-1)).toBe(RUN_STATES.executingTools);
    expect(running(upTo("tool_result")).states.at(-1)).toBe(RUN_STATES.sampling);
    expect(running(upTo("tool_result")).terminal).toBeUndefined();
  });
});
