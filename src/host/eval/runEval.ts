import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import * as Effect from "effect/Effect";
import {
  type AgentRunResult,
  type ApprovalRecord,
  type Cassette,
  type ExecutionReceipt,
  evidenceGap,
  type LedgerEvent,
  type MemoryItem,
  type ReceiptStatus,
  type TerminalState,
  type ToolKind,
} from "../../domain/index.js";
import { AgentRunStore } from "../../persistence/AgentRunStore.js";
import { listApprovals } from "../../persistence/approvals.js";
import { MemoryItemStore } from "../../persistence/MemoryItemStore.js";
import { AgentRuntime, type RunHandle } from "../../runtime/AgentRuntime.js";
import { MemoryService } from "../../services/memory/MemoryService.js";
import { renderMemorySection } from "../../services/memory/retrieval.js";
import { scriptedProvider } from "../../services/providers/scripted.js";
import { buildSystemPrompt } from "../../services/workspace/prompt.js";
import { discoverSkills } from "../../services/workspace/skills.js";
import { type RecordedPath, type RunPathRecorder, statePathOf } from "../charts/pathRecorder.js";
import { eventsByEntry, type RunPath, runPathOf } from "../charts/runPath.js";
import { SessionRunner } from "../sessionRunner.js";
import { type BuiltinToolFactory, caseSignals, caseTools, defaultBuiltinTool, prepareWorkspace } from "./caseSetup.js";
import { describeEvent } from "./describeEvent.js";
import { CassetteError, type LoadedCase } from "./loadCassettes.js";
import { firstApprovalRequest, scriptDecisions } from "./scriptedApprovals.js";

export { statePathOf };

export interface CaseResult {
  readonly name: string;
  readonly terminalState: TerminalState;
  readonly reason: string;
  /** The expected terminal state (the spec's `expected`); `expectedReason` when the case names one. */
  readonly expected: TerminalState;
  readonly expectedReason?: string;
  readonly pass: boolean;
  readonly runId: string;
  readonly traceId: string;
  readonly steps: number;
  readonly correctionTurns: number;
  readonly receipts: ReadonlyArray<{ toolName: string; status: ReceiptStatus }>;
}

export interface EvalSummary {
  readonly total: number;
  readonly passed: number;
  readonly failed: number;
  readonly byTerminalState: Record<TerminalState, number>;
  readonly claimsWithoutReceipt: number;
  readonly qaCompletionRate: number;
}

/** What the HTML report shows per case beyond the spec's JSON: the timeline and the statechart path. */
export interface CaseDetail {
  readonly name: string;
  readonly file: string;
  readonly input: string;
  readonly finalText: string;
  /** The run machine's states in the order the run visited them. */
  readonly statePath: ReadonlyArray<string>;
  /**
   * The same path for the charts: transitions as the machine declares them (with a recorder) or
   * between consecutive states (without), the terminal state, and with a recorder whose ledger
   * watermark is exact, the ledger events written in each state.
   */
  readonly path: RunPath;
  readonly events: ReadonlyArray<LedgerEvent>;
  readonly receipts: ReadonlyArray<ExecutionReceipt>;
  /** The approvals of the run's calls (request and decision), shown beside the calls they decided. */
  readonly approvals?: ReadonlyArray<ApprovalRecord>;
}

export interface EvalReport {
  readonly cases: ReadonlyArray<CaseResult>;
  readonly summary: EvalSummary;
  /** Not part of the `--json` output (cassette spec); used by the HTML report. */
  readonly details?: ReadonlyArray<CaseDetail>;
}

/** Built-in tools, by name, for a case's temporary workspace. */
export interface EvalOptions {
  readonly builtinTool?: BuiltinToolFactory;
  /**
   * The ledger file the runtime writes: cases with `restartWhileWaiting` open a second and a third
   * runtime on it (the first is disposed while the run waits, the next resumes it).
   */
  readonly database?: string | undefined;
  readonly onCaseStart?: (index: number, total: number, name: string) => void;
  readonly onCaseDone?: (index: number, total: number, result: CaseResult) => void;
  /**
   * The recorder given to the runtime as its `inspect` option: exact transitions and, with a
   * synchronous ledger watermark, the events written in each state. Without one, the path is the
   * sequence of states the run actor's subscription saw.
   */
  readonly paths?: RunPathRecorder;
}

function memoryMatches(expected: Cassette["expect"], items: ReadonlyArray<MemoryItem>): boolean {
  return (expected.memory ?? []).every((want) =>
    items.some(
      (item) =>
        item.content.includes(want.contains) &&
        item.verificationStatus === want.status &&
        (want.kind === undefined || item.kind === want.kind),
    ),
  );
}

function matches(result: AgentRunResult, expected: Cassette["expect"], receipts: CaseResult["receipts"]): boolean {
  if (result.terminalState !== expected.terminalState) return false;
  if (expected.reason !== undefined && result.terminalReason !== expected.reason) return false;
  if (expected.correctionTurns !== undefined && result.correctionTurns !== expected.correctionTurns) return false;
  if (expected.receipts !== undefined) {
    if (expected.receipts.length !== receipts.length) return false;
    return expected.receipts.every(
      (want, index) => receipts[index]?.toolName === want.toolName && receipts[index]?.status === want.status,
    );
  }
  return true;
}

/**
 * A plain question: no contract beyond `none`, no signals, no tools, no cancellation, and a model
 * that answers once in text. These must complete.
 */
function isPlainQuestion(cassette: Cassette): boolean {
  const [only, ...rest] = cassette.model;
  return (
    (cassette.contract?.evidenceMode ?? "none") === "none" &&
    !cassette.signals &&
    (cassette.tools ?? []).length === 0 &&
    cassette.cancelAfterMs == null &&
    rest.length === 0 &&
    only !== undefined &&
    !only.error &&
    !only.toolCalls?.length &&
    (only.text ?? "").trim().length > 0 &&
    (only.finishReason ?? "stop") === "stop"
  );
}

async function runCase(
  runtime: AgentRuntime,
  sessions: SessionRunner,
  invocation: string,
  loaded: LoadedCase,
  options: EvalOptions,
) {
  const { cassette } = loaded;
  const workspace = prepareWorkspace(cassette);
  try {
    const tools = caseTools(loaded, workspace, options.builtinTool ?? defaultBuiltinTool);
    const skills = discoverSkills(workspace).map((entry) => entry.manifest);
    // Unique per invocation: a ledger file reused by a later eval must not leak history into these cases.
    const sessionId = `eval:${invocation}:${cassette.session ?? cassette.name}`;
    const memory = await runtime.run(Effect.flatMap(MemoryService, (service) => service.activeMemory(sessionId)));
    const approval = cassette.approvalTimeoutMs ? { timeoutMs: cassette.approvalTimeoutMs } : undefined;
    const restart = cassette.restartWhileWaiting === true;
    if (restart && (!options.database || options.database === ":memory:")) {
      throw new CassetteError({
        reason: "unsatisfiable",
        message: `${loaded.file}: restartWhileWaiting needs a ledger file (--db FILE), not ${options.database ?? "none"}`,
      });
    }
    // A restart case starts on a runtime of its own, which it disposes while the run waits.
    // (Both of its runtimes report to the path recorder: the path spans the restart.)
    const restartConfig = { database: options.database!, ...(options.paths ? { inspect: options.paths.inspect } : {}) };
    const first = restart ? await AgentRuntime.make(restartConfig) : undefined;
    const provider = scriptedProvider(cassette.model, {
      ...(cassette.capabilities ? { capabilities: cassette.capabilities } : {}),
    });
    const handle = await (first ? new SessionRunner(first) : sessions).startTurn({
      sessionId,
      input: cassette.input,
      signals: caseSignals(loaded, workspace),
      system: buildSystemPrompt(workspace, { skills, memory: renderMemorySection(memory) }),
      memory,
      provider,
      tools,
      ...(cassette.maxSteps ? { maxSteps: cassette.maxSteps } : {}),
      ...(cassette.locale ? { locale: cassette.locale } : {}),
      ...(approval ? { approval } : {}),
    });
    const statePath: string[] = [statePathOf(handle.actor.getSnapshot().value)];
    const follow = (actor: RunHandle["actor"]) =>
      actor.subscribe((snapshot) => {
        const path = statePathOf(snapshot.value);
        if (statePath.at(-1) !== path) statePath.push(path);
      });
    const subscriptions = [follow(handle.actor)];
    const decisionFailures: string[] = [];
    let driving: RunHandle = handle;
    let second: AgentRuntime | undefined;
    const stopDecisions: Array<() => void> = [];
    // A run that ends without asking for approval has nothing to restart for.
    const asked = first
      ? await Promise.race([firstApprovalRequest(handle).then(() => true), handle.result.then(() => false)])
      : false;
    if (first && !asked) await first.dispose();
    if (first && asked) {
      await first.dispose();
      second = await AgentRuntime.make(restartConfig);
      driving = await second.resumeRun(handle.runId, {
        provider,
        tools,
        ...(cassette.maxSteps ? { maxSteps: cassette.maxSteps } : {}),
        ...(approval ? { approval } : {}),
      });
      subscriptions.push(follow(driving.actor));
    }
    stopDecisions.push(scriptDecisions(driving, cassette, decisionFailures));
    const cancelTimer =
      cassette.cancelAfterMs !== undefined && cassette.cancelAfterMs !== null
        ? setTimeout(() => driving.cancel(), cassette.cancelAfterMs)
        : undefined;
    const ended = first && asked ? driving.result : handle.settled;
    const result = await ended.finally(async () => {
      clearTimeout(cancelTimer);
      for (const stop of stopDecisions) stop();
      for (const subscription of subscriptions) subscription.unsubscribe();
      await second?.dispose();
    });
    const memoryItems = await runtime.run(
      Effect.gen(function* () {
        yield* Effect.flatMap(MemoryService, (service) =>
          service.consolidateRun(result.runId, sessionId, cassette.memoryGate ?? "enforce"),
        );
        return yield* Effect.flatMap(MemoryItemStore, (items) => items.list({ scope: sessionId }));
      }),
    );
    const ledger = await runtime.run(
      Effect.gen(function* () {
        const store = yield* AgentRunStore;
        return {
          run: yield* store.getRun(result.runId),
          receipts: yield* store.listReceipts(result.runId),
          events: yield* store.listRunEvents(result.runId),
          approvals: yield* listApprovals(result.runId),
        };
      }),
    );
    const receipts = ledger.receipts.map((receipt) => ({ toolName: receipt.toolName, status: receipt.status }));
    const toolKinds: Record<string, ToolKind> = Object.fromEntries(tools.map((tool) => [tool.name, tool.kind]));
    // Judged from the ledger, not from `expect`: a completed run whose stored contract is not met by stored receipts.
    const claimWithoutReceipt =
      ledger.run?.terminalState === "completed" &&
      !evidenceGap(ledger.run.contract, ledger.receipts, toolKinds).satisfied;
    const caseResult: CaseResult = {
      name: cassette.name,
      terminalState: result.terminalState,
      reason: result.terminalReason,
      expected: cassette.expect.terminalState,
      ...(cassette.expect.reason ? { expectedReason: cassette.expect.reason } : {}),
      pass:
        matches(result, cassette.expect, receipts) &&
        memoryMatches(cassette.expect, memoryItems) &&
        decisionFailures.length === 0,
      runId: result.runId,
      traceId: result.traceId,
      steps: result.steps,
      correctionTurns: result.correctionTurns,
      receipts,
    };
    const recorded = options.paths?.take(result.runId);
    const detail: CaseDetail = {
      name: cassette.name,
      file: loaded.file,
      input: cassette.input,
      finalText: result.finalText,
      statePath: recorded ? recorded.entries.map((entry) => entry.state) : statePath,
      path: casePath(recorded, statePath, ledger.events),
      events: ledger.events,
      receipts: ledger.receipts,
      approvals: ledger.approvals,
    };
    return { caseResult, claimWithoutReceipt, detail };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

function casePath(
  recorded: RecordedPath | undefined,
  statePath: ReadonlyArray<string>,
  events: ReadonlyArray<LedgerEvent>,
): RunPath {
  const states = recorded ? recorded.entries.map((entry) => entry.state) : statePath;
  const terminal = states.at(-1);
  return runPathOf(states, {
    ...(recorded ? { taken: recorded.taken } : {}),
    ...(terminal !== undefined ? { terminal } : {}),
    ...(recorded?.exact
      ? {
          eventsByState: eventsByEntry(
            recorded.entries,
            events.map((event) => ({ sequence: event.sequence, type: event.type, summary: describeEvent(event) })),
          ),
        }
      : {}),
  });
}

/** Runs cases in order (cases of one session are consecutive turns) through the real runtime. */
export async function runEval(runtime: AgentRuntime, cases: ReadonlyArray<LoadedCase>, options: EvalOptions = {}) {
  const results: CaseResult[] = [];
  const details: CaseDetail[] = [];
  let claimsWithoutReceipt = 0;
  let questions = 0;
  let questionsCompleted = 0;
  const sessions = new SessionRunner(runtime);
  const invocation = randomUUID().slice(0, 8);
  for (const [index, loaded] of cases.entries()) {
    options.onCaseStart?.(index, cases.length, loaded.cassette.name);
    const { caseResult, claimWithoutReceipt, detail } = await runCase(runtime, sessions, invocation, loaded, options);
    details.push(detail);
    if (claimWithoutReceipt) claimsWithoutReceipt += 1;
    if (isPlainQuestion(loaded.cassette)) {
      questions += 1;
      if (caseResult.terminalState === "completed") questionsCompleted += 1;
    }
    results.push(caseResult);
    options.onCaseDone?.(index, cases.length, caseResult);
  }
  const byTerminalState: Record<TerminalState, number> = {
    completed: 0,
    unverified: 0,
    incomplete: 0,
    failed: 0,
    cancelled: 0,
  };
  for (const result of results) byTerminalState[result.terminalState] += 1;
  const passed = results.filter((result) => result.pass).length;
  const report: EvalReport = {
    cases: results,
    summary: {
      total: results.length,
      passed,
      failed: results.length - passed,
      byTerminalState,
      claimsWithoutReceipt,
      qaCompletionRate: questions === 0 ? 1 : questionsCompleted / questions,
    },
    details,
  };
  return report;
}
