import { beforeAll, describe, expect, it } from "vitest";
import type { AnyMachineSnapshot, EventObject } from "xstate";
import {
  type AgentRunResult,
  type CompletionContract,
  type ExecutionReceipt,
  evidenceGap,
  type ToolChoice,
} from "../../src/domain/index.js";
import type {
  FinishRunInput,
  Outcome,
  ReceiptVerificationMode,
  SampleInput,
  Verdict,
} from "../../src/machines/protocol.js";
import { MAX_CORRECTION_TURNS, type RunInput, runMachine } from "../../src/machines/run.machine.js";
import type { SamplingPhase } from "../../src/machines/toolChoice.js";
import { canonicalJson } from "../../src/services/tools/fingerprint.js";
import {
  APPEND_LEDGER_IDS,
  buildGraph,
  closedLedgerViolations,
  completePaths,
  coverageOf,
  describeEvent,
  emittedBy,
  endingPathCounts,
  finalNodes,
  type Graph,
  type GraphOptions,
  graphEdges,
  graphNodes,
  invokeInput,
  keyOf,
  ledgerWrite,
  type ModelLedger,
  NONE,
  nodeAt,
  OBSERVE_LOOKUP,
  runEvents,
  runInput,
  shortestTrail,
  stateNodesOf,
  TOOL,
  topologicalKeys,
} from "./coverage.js";

/**
 * Model-based paths of the run machine (issues B and D). The graph covers the machine's full event
 * alphabet: CANCEL, CALL_STARTED and a done/error event for every invoked actor, with
 * representative provider outcomes (answers and empty turns for every finish reason, a tool
 * finish without calls, two calls with different fingerprints, provider failures), the verifier's
 * three verdicts (`correct` with its correction message) and actor outputs computed from the
 * inputs the machine gives its actors (see `runEvents`).
 *
 * The input bounds the graph: maxSteps 2–3, doomLoopThreshold 2, maxProtocolRepairs 1, one call per
 * step (a correction turn is a sampling step too, so maxSteps bounds it as well). Every counter
 * the guards read (step, sequence, protocolRepairs, correctionTurns, receipts, callLog …) is then
 * bounded, so the full context can stay in each node's identity (no custom serializeState).
 *
 * Four graphs: the observe contract under each receiptVerification mode (enforce — the runtime's
 * default — with maxSteps 3; observe and off with maxSteps 2) and the none contract under enforce
 * (maxSteps 2). Coverage is computed over all four: `verificationNotEnforced` can only be taken
 * under observe/off, `correcting` only under enforce.
 */

interface ModelGraph {
  readonly name: string;
  readonly contract: CompletionContract;
  readonly mode: ReceiptVerificationMode;
  readonly options: GraphOptions;
}

const modelGraph = (contract: CompletionContract, mode: ReceiptVerificationMode, maxSteps: number): ModelGraph => ({
  name: `${contract.evidenceMode} contract, ${mode}, maxSteps ${maxSteps}`,
  contract,
  mode,
  options: { input: runInput(contract, { receiptVerification: mode, maxSteps }), events: runEvents },
});

/** The main model: three steps allow a tool step, an answer and a correction turn in one run. */
const ENFORCE = modelGraph(OBSERVE_LOOKUP, "enforce", 3);
// The others differ from it only where the contract or the mode matters (verifying and what
// follows): two steps suffice there and keep the suite fast (~2k nodes each instead of ~10–14k).
const NONE_ENFORCE = modelGraph(NONE, "enforce", 2);
const OBSERVE_MODE = modelGraph(OBSERVE_LOOKUP, "observe", 2);
const OFF_MODE = modelGraph(OBSERVE_LOOKUP, "off", 2);
const MODELS: ReadonlyArray<ModelGraph> = [ENFORCE, NONE_ENFORCE, OBSERVE_MODE, OFF_MODE];

/** The enforce model with maxSteps 2: enough for the faulty variants below to show their fault, and small. */
const SMALL: GraphOptions = { input: runInput(OBSERVE_LOOKUP, { maxSteps: 2 }), events: runEvents };
const TOOL_KINDS = runInput(OBSERVE_LOOKUP).toolKinds;

interface RunContextView extends RunInput {
  readonly step: number;
  readonly receipts: ReadonlyArray<ExecutionReceipt>;
  readonly outcome: Outcome | null;
  readonly correctionTurns: number;
  readonly samplingPhase: SamplingPhase;
  readonly verdict: Verdict | null;
}
const DONE = "xstate.done.actor.";
const contextOf = (snapshot: AnyMachineSnapshot) => snapshot.context as RunContextView;
/** The child of `active` a snapshot is in, or undefined (finalizing, a final state). */
const activeChild = (snapshot: AnyMachineSnapshot): string | undefined =>
  typeof snapshot.value === "object" ? (snapshot.value as { active?: string }).active : undefined;
const outputOf = <T>(event: EventObject) => (event as EventObject & { output: T }).output;
const trailText = (events: ReadonlyArray<EventObject> | undefined) =>
  events ? events.map(describeEvent).join(" → ") : "(none)";

const graphs = new Map<ModelGraph, Graph>();
const graphOf = (model: ModelGraph) => graphs.get(model)!;

beforeAll(() => {
  for (const model of MODELS) graphs.set(model, buildGraph(runMachine, model.options));
});

/** The run machine with its one-correction limit removed: every verdict that does not complete the run corrects. */
const RECORRECTING = runMachine.provide({ guards: { correctionAllowed: () => true } });

describe("run machine: coverage", () => {
  it("takes every state node and every transition of the run machine on some edge", () => {
    const coverage = coverageOf(
      runMachine,
      MODELS.map((model) => graphOf(model)),
    );
    const describeGraph = (model: ModelGraph) => {
      const graph = graphOf(model);
      const own = coverageOf(runMachine, [graph]);
      const paths = endingPathCounts(graph, keyOf(model.options)).get(Object.keys(graph)[0]!) ?? 0;
      return `${model.name}: ${own.nodeCount} nodes, ${own.edgeCount} edges, ${paths} complete paths`;
    };
    console.log(
      `run: ${coverage.stateCount} states, ${coverage.transitionCount} transitions, ` +
        `${coverage.nodeCount} graph nodes, ${coverage.edgeCount} edges in all; ${MODELS.map(describeGraph).join("; ")}`,
    );
    expect({ states: coverage.uncoveredStates, transitions: coverage.uncoveredTransitions }).toEqual({
      states: [],
      transitions: [],
    });
  });

  it("models every ledger append the machine invokes", () => {
    const invoked = stateNodesOf(runMachine)
      .flatMap((node) => node.invoke)
      .filter((invoke) => invoke.src === "appendLedger")
      .map((invoke) => invoke.id)
      .sort();
    expect(invoked).toEqual([...APPEND_LEDGER_IDS].sort());
  });
});

describe("run machine: endings", () => {
  it("ends every path in exactly one final state, and the output's terminalState names it", () => {
    // A path ends in a node of the graph that is no longer active; checking every such node checks
    // the end of every ended path (endingPathCounts counts them without listing them).
    const wrong: string[] = [];
    let endedPaths = 0;
    for (const model of MODELS) {
      const graph = graphOf(model);
      const key = keyOf(model.options);
      endedPaths += endingPathCounts(graph, key).get(Object.keys(graph)[0]!) ?? 0;
      for (const snapshot of graphNodes(graph).filter((node) => node.status !== "active")) {
        const finals = finalNodes(snapshot);
        if (
          snapshot.status !== "done" ||
          finals.length !== 1 ||
          typeof snapshot.value !== "string" ||
          finals[0] !== `run.${snapshot.value}` ||
          (snapshot.output as { terminalState?: string } | undefined)?.terminalState !== snapshot.value
        ) {
          const example = shortestTrail(graph, key, (_, __, next) => key(next) === key(snapshot));
          wrong.push(`${model.name}: ${trailText(example)} ends in ${JSON.stringify(snapshot.value)}`);
        }
      }
    }
    console.log(`run: ${endedPaths} ended paths over the ${MODELS.length} graphs`);
    expect(endedPaths).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });

  it("emits exactly one done event on every path, on the step that enters the final state", () => {
    // Per edge: `done` is emitted iff the edge enters a final state. Every path into a final
    // state therefore emits exactly one, on its last step (and a path never leaves a final state).
    const wrong: string[] = [];
    for (const edge of graphEdges(graphOf(ENFORCE))) {
      const emitted = emittedBy(runMachine, edge.state, edge.event);
      const done = emitted.filter((event) => event.type === "done") as Array<EventObject & { terminalState: string }>;
      const finals = emitted.filter((event) => event.type === "final");
      const ends = edge.nextState.status === "done";
      const expected = ends ? 1 : 0;
      if (done.length !== expected || finals.length !== expected) {
        wrong.push(`${JSON.stringify(edge.state.value)} + ${describeEvent(edge.event)}: ${done.length} done`);
      } else if (ends && done[0]!.terminalState !== edge.nextState.value) {
        wrong.push(`${describeEvent(edge.event)}: done names ${done[0]!.terminalState} in ${edge.nextState.value}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it.each(MODELS.map((model) => [model.name, model] as const))(
    "leaves no state stuck (%s): every reachable state can still reach a final state",
    (_, model) => {
      const key = keyOf(model.options);
      const graph = graphOf(model);
      const counts = endingPathCounts(graph, key);
      const stuck = graphNodes(graph)
        .filter((snapshot) => snapshot.status === "active" && counts.get(key(snapshot)) === 0)
        .map((snapshot) => JSON.stringify(snapshot.value));
      expect(stuck).toEqual([]);
    },
  );

  it("never samples the model more than maxSteps times", () => {
    const over = MODELS.flatMap((model) => graphNodes(graphOf(model))).filter(
      (snapshot) => contextOf(snapshot).step > contextOf(snapshot).maxSteps,
    );
    expect(over.length).toBe(0);
  });
});

describe("run machine: completion needs evidence", () => {
  it("reaches completed only when the observe contract's receipts are there", () => {
    const completed = graphNodes(graphOf(ENFORCE)).filter((snapshot) => snapshot.value === "completed");
    const unsupported = completed.filter(
      (snapshot) => !evidenceGap(OBSERVE_LOOKUP, contextOf(snapshot).receipts, TOOL_KINDS).satisfied,
    );
    console.log(`run: ${completed.length} completed nodes under the observe contract (enforce)`);
    expect(completed.length).toBeGreaterThan(0);
    expect(unsupported.length).toBe(0);
  });

  it("ends unverified when the verifier says completed but the receipts are missing", () => {
    const overruled = graphEdges(graphOf(ENFORCE)).filter(
      (edge) =>
        edge.event.type === `${DONE}verifyAnswer` &&
        outputOf<Verdict>(edge.event).verdict === "completed" &&
        !evidenceGap(OBSERVE_LOOKUP, contextOf(edge.state).receipts, TOOL_KINDS).satisfied,
    );
    expect(overruled.length).toBeGreaterThan(0);
    expect(new Set(overruled.map((edge) => contextOf(edge.nextState).outcome?.state))).toEqual(new Set(["unverified"]));
  });

  it("reaches completed without any receipt under the none contract", () => {
    const completed = graphNodes(graphOf(NONE_ENFORCE)).filter(
      (snapshot) => snapshot.value === "completed" && contextOf(snapshot).receipts.length === 0,
    );
    expect(completed.length).toBeGreaterThan(0);
  });

  it("catches a machine whose completion guard trusts the verifier", () => {
    const trusting = runMachine.provide({
      guards: { verdictCompleted: (_, params: { verdict: Verdict }) => params.verdict.verdict === "completed" },
    });
    const graph = buildGraph(trusting, SMALL);
    const unsupported = graphNodes(graph).filter(
      (snapshot) =>
        snapshot.value === "completed" &&
        !evidenceGap(OBSERVE_LOOKUP, contextOf(snapshot).receipts, TOOL_KINDS).satisfied,
    );
    expect(unsupported.length).toBeGreaterThan(0);
  });
});

/** Nodes and ended paths with more correction turns than the machine allows. */
function correctionOverruns(graph: Graph, options: GraphOptions): string[] {
  const key = keyOf(options);
  const overrun = (turns: number | undefined) => (turns ?? 0) > MAX_CORRECTION_TURNS;
  const nodes = graphNodes(graph)
    .filter((snapshot) => overrun(contextOf(snapshot).correctionTurns))
    .map(
      (snapshot) => `node ${JSON.stringify(snapshot.value)}: correctionTurns ${contextOf(snapshot).correctionTurns}`,
    );
  const paths = completePaths(graph, key, () => true)
    .filter((path) => overrun((path.state.output as AgentRunResult | undefined)?.correctionTurns))
    .map(
      (path) =>
        `path ${path.steps.map((step) => describeEvent(step.event)).join(" → ")}: output.correctionTurns ` +
        `${(path.state.output as AgentRunResult).correctionTurns}`,
    );
  return [...nodes, ...paths];
}

/** Edges into `correcting` from a node that has already used its correction turn. */
const secondCorrections = (graph: Graph) =>
  graphEdges(graph).filter(
    (edge) =>
      activeChild(edge.nextState) === "correcting" &&
      activeChild(edge.state) !== "correcting" &&
      contextOf(edge.state).correctionTurns >= MAX_CORRECTION_TURNS,
  );

describe("run machine: at most one correction turn", () => {
  it.each(MODELS.map((model) => [model.name, model] as const))(
    "never reaches correctionTurns > 1 (%s): in no node of the graph, in no ended path's output",
    (_, model) => {
      expect(correctionOverruns(graphOf(model), model.options)).toEqual([]);
    },
  );

  it("does take its one correction turn under enforce", () => {
    const corrected = graphNodes(graphOf(ENFORCE)).filter((snapshot) => contextOf(snapshot).correctionTurns === 1);
    const endings = new Set(
      corrected.filter((snapshot) => snapshot.status === "done").map((snapshot) => String(snapshot.value)),
    );
    console.log(`run: ${corrected.length} nodes after a correction turn, ending ${[...endings].sort().join(", ")}`);
    expect(corrected.length).toBeGreaterThan(0);
    // A corrected answer can still be completed (the model called the tool after the correction).
    expect(endings.has("completed")).toBe(true);
  });

  it("never enters correcting from a node whose correctionTurns is already 1", () => {
    for (const model of MODELS) {
      const graph = graphOf(model);
      const entries = graphEdges(graph).filter(
        (edge) => activeChild(edge.nextState) === "correcting" && activeChild(edge.state) !== "correcting",
      );
      // Only enforce corrects: observe and off report the answer as off would.
      if (model.mode === "enforce") expect(entries.length).toBeGreaterThan(0);
      else expect(entries.length).toBe(0);
      expect(secondCorrections(graph).map((edge) => describeEvent(edge.event))).toEqual([]);
    }
  });

  it("catches a machine that allows a second correction turn", () => {
    // The same checks against a machine whose guard always allows a correction: bounded by
    // maxSteps (each correction turn is a sampling step), it reaches correctionTurns 2.
    const graph = buildGraph(RECORRECTING, SMALL);
    const key = keyOf(SMALL);
    const overruns = correctionOverruns(graph, SMALL);
    const second = secondCorrections(graph);
    const example = shortestTrail(
      graph,
      key,
      (state, _, next) =>
        activeChild(next) === "correcting" &&
        activeChild(state) !== "correcting" &&
        contextOf(state).correctionTurns >= MAX_CORRECTION_TURNS,
    );
    console.log(
      `run (correctionAllowed always true): ${graphNodes(graph).length} nodes, ${overruns.length} overruns, ` +
        `${second.length} second corrections; shortest: ${trailText(example)}`,
    );
    expect(overruns.some((overrun) => overrun.startsWith("node") && overrun.endsWith("correctionTurns 2"))).toBe(true);
    expect(overruns.some((overrun) => overrun.startsWith("path") && overrun.endsWith("correctionTurns 2"))).toBe(true);
    expect(second.length).toBeGreaterThan(0);
  });
});

/** The tool choice a sampling step must get: the contract's one tool on the first step and after a correction. */
function expectedToolChoice(contract: CompletionContract, phase: SamplingPhase): ToolChoice {
  if (contract.evidenceMode === "none" || phase === "continue") return { mode: "auto" };
  return { mode: "specific", toolName: TOOL };
}

/** How each state that enters `sampling` must set the phase. */
const PHASE_AFTER: Readonly<Record<string, SamplingPhase>> = {
  opening: "first",
  correcting: "correction",
  repairingProtocol: "continue",
  recordingResults: "continue",
};

describe("run machine: sampling phases", () => {
  it("samples after a correction in phase correction, forcing the contract's tool", () => {
    const wrong: string[] = [];
    let afterCorrection = 0;
    for (const model of [ENFORCE, NONE_ENFORCE]) {
      for (const edge of graphEdges(graphOf(model))) {
        if (activeChild(edge.nextState) !== "sampling" || activeChild(edge.state) === "sampling") continue;
        const from = activeChild(edge.state) ?? String(edge.state.value);
        const phase = contextOf(edge.nextState).samplingPhase;
        // What the sampling invoke was started with: the child actor's input.
        const input = invokeInput<SampleInput>(edge.nextState, "sampleModel");
        const expected = expectedToolChoice(model.contract, PHASE_AFTER[from] ?? "continue");
        if (from === "correcting") afterCorrection += 1;
        if (
          phase !== PHASE_AFTER[from] ||
          input?.step !== contextOf(edge.nextState).step ||
          canonicalJson(input.toolChoice) !== canonicalJson(expected)
        ) {
          wrong.push(
            `${model.name}: ${from} + ${describeEvent(edge.event)} → phase ${phase}, ` +
              `toolChoice ${canonicalJson(input?.toolChoice)} (expected ${canonicalJson(expected)})`,
          );
        }
      }
    }
    expect(afterCorrection).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });
});

describe("run machine: the receiptVerification rollout switch", () => {
  const completedWithoutReceipts = (model: ModelGraph) =>
    graphNodes(graphOf(model)).filter(
      (snapshot) =>
        snapshot.value === "completed" &&
        !evidenceGap(model.contract, contextOf(snapshot).receipts, contextOf(snapshot).toolKinds).satisfied,
    );

  it("reaches completed without the contract's receipts under observe and off, never under enforce", () => {
    const counts = Object.fromEntries(
      [ENFORCE, OBSERVE_MODE, OFF_MODE].map((model) => [model.mode, completedWithoutReceipts(model).length]),
    );
    console.log(`run: completed nodes without the observe contract's receipts: ${JSON.stringify(counts)}`);
    expect(counts.enforce).toBe(0);
    expect(counts.observe).toBeGreaterThan(0);
    expect(counts.off).toBeGreaterThan(0);
    // Without receipts the report is the old loop's: the answer, completed.
    const reasons = new Set(completedWithoutReceipts(OBSERVE_MODE).map((node) => contextOf(node).outcome?.reason));
    expect(reasons.has("answered")).toBe(true);
  });

  it("reports under observe exactly as under off: the same graph, up to the mode", () => {
    // The mode is only in the context; with it blanked, both graphs must have the same nodes
    // (value and context) and the same number of edges — the runs, endings and outputs are equal.
    const normalized = (model: ModelGraph) =>
      graphNodes(graphOf(model))
        .map((snapshot) =>
          JSON.stringify({ value: snapshot.value, context: { ...contextOf(snapshot), receiptVerification: null } }),
        )
        .sort();
    const observe = normalized(OBSERVE_MODE);
    const off = normalized(OFF_MODE);
    expect(observe.length).toBe(off.length);
    expect(observe.filter((node, index) => node !== off[index]).length).toBe(0);
    expect(graphEdges(graphOf(OBSERVE_MODE)).length).toBe(graphEdges(graphOf(OFF_MODE)).length);
  });

  it.each([OBSERVE_MODE, ENFORCE].map((model) => [model.name, model] as const))(
    "hands finishRun the recorded verdict whenever the verifier ran (%s)",
    (_, model) => {
      // Propagates, in topological order, which verdict the verifier last returned on the paths into
      // each node (none before the first); every finishRun input must carry exactly that verdict.
      // (Under off the machine records no verdict; the brief of issue D leaves that to the machine.)
      const graph = graphOf(model);
      const key = keyOf(model.options);
      const NO_VERDICT = "(no verdict)";
      const recorded = (verdict: Verdict) =>
        canonicalJson({ mode: model.mode, verdict: verdict.verdict, reason: verdict.reason, missing: verdict.missing });
      const last = new Map<string, Set<string>>([[Object.keys(graph)[0]!, new Set([NO_VERDICT])]]);
      const wrong: string[] = [];
      let afterVerdict = 0;
      for (const node of topologicalKeys(graph, key)) {
        const value = nodeAt(graph, node);
        const verdicts = last.get(node) ?? new Set<string>();
        const finish = invokeInput<FinishRunInput>(value.state, "finishRun");
        if (finish) {
          const carried = finish.terminal.verification ? canonicalJson(finish.terminal.verification) : NO_VERDICT;
          if (carried !== NO_VERDICT) afterVerdict += 1;
          for (const verdict of verdicts) {
            if (verdict !== carried) wrong.push(`${JSON.stringify(value.state.value)}: ${carried} after ${verdict}`);
          }
        }
        for (const next of Object.values(value.transitions)) {
          const nextKey = key(next.state);
          if (nextKey === node) continue;
          const incoming =
            next.event.type === `${DONE}verifyAnswer` ? new Set([recorded(outputOf<Verdict>(next.event))]) : verdicts;
          const known = last.get(nextKey) ?? new Set<string>();
          for (const verdict of incoming) known.add(verdict);
          last.set(nextKey, known);
        }
      }
      expect(afterVerdict).toBeGreaterThan(0);
      expect(wrong.slice(0, 5)).toEqual([]);
    },
  );
});

describe("run machine: the ledger it writes", () => {
  it.each(MODELS.map((model) => [model.name, model] as const))(
    "makes only ledger writes the ledger accepts, and leaves every closed run with a well-formed ledger (%s)",
    (_, model) => {
      // Walks every complete path, replaying the writes each actor makes from the input the machine
      // gives it (as runActors.ts does) against a model of the ledger's triggers. A failed write
      // (error.actor.<writer>) writes nothing. A failed openRun writes nothing either (the run row
      // and its user_input row are one transaction). A
      // terminal write after a ledger failure uses runActors' fallback when the ledger refuses it.
      // A closed run's output receipts must be exactly the receipts the ledger holds.
      const graph = graphOf(model);
      const key = keyOf(model.options);
      const refusals = new Map<string, string[]>();
      const malformed = new Map<string, string[]>();
      const note = (map: Map<string, string[]>, kind: string, path: string[]) => {
        const known = map.get(kind);
        if (!known || known.length > path.length) map.set(kind, path);
      };
      let complete = 0;
      const walk = (node: string, ledger: ModelLedger, trail: string[]) => {
        const value = nodeAt(graph, node);
        for (const next of Object.values(value.transitions)) {
          const nextKey = key(next.state);
          if (nextKey === node) continue;
          const event = next.event;
          const path = [...trail, describeEvent(event)];
          let nextLedger = ledger;
          if (event.type.startsWith(DONE)) {
            const writer = event.type.slice(DONE.length);
            const written = ledgerWrite(value.state, writer, ledger);
            if (written?.refused !== undefined) {
              note(refusals, `${writer}: ${written.refused.replace(/ \([^)]*\)/g, "")}`, path);
              continue;
            }
            if (written) nextLedger = written.ledger;
          }
          if (next.state.status !== "active") {
            complete += 1;
            if (event.type === `${DONE}finishRun`) {
              for (const violation of closedLedgerViolations(nextLedger.rows, nextLedger.receipts)) {
                note(malformed, violation, path);
              }
              const output = (next.state.output as AgentRunResult).receipts.map((receipt) => receipt.callId);
              if (canonicalJson([...output].sort()) !== canonicalJson([...nextLedger.receipts].sort())) {
                note(malformed, "the output's receipts are not the ledger's", path);
              }
            }
            continue;
          }
          walk(nextKey, nextLedger, path);
        }
      };
      walk(Object.keys(graph)[0]!, { rows: [], receipts: [] }, []);
      console.log(`run (${model.name}): ${complete} complete paths replayed against the ledger model`);
      const report = (map: Map<string, string[]>) =>
        [...map].map(([kind, path]) => `${kind} — shortest example: ${path.join(" → ")}`);
      expect({ refused: report(refusals), malformed: report(malformed) }).toEqual({ refused: [], malformed: [] });
    },
  );
});
