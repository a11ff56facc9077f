import * as Effect from "effect/Effect";
import type { AgentRunResult, ContextMessage, Locale, MemoryItem, RunRecord, SkillManifest } from "../domain/index.js";
import { AgentRunStore } from "../persistence/AgentRunStore.js";
import { AGENTLOOP_TURN_SOURCE, MemoryTurnStore } from "../persistence/MemoryTurnStore.js";
import type { AgentRuntime, RunHandle } from "../runtime/AgentRuntime.js";
import {
  type BuiltContext,
  buildContext,
  type ContextBuildInput,
  HistoryCoverage,
} from "../services/contextBuilder.js";
import {
  applyMemoryConflictRule,
  type ContractSignals,
  type ContractTables,
  DEFAULT_CONTRACT_TABLES,
  resolveContract,
} from "../services/contracts.js";
import { recordHistoryLegacyFallback } from "../services/observability/metrics.js";
import type { Provider } from "../services/providers/Provider.js";
import { contextWindowFor, messageTokens, type TokenCounter, tokenCounterFor } from "../services/tokens.js";
import { allowedToolNames } from "../services/tools/allowlist.js";
import type { ApprovalPolicy } from "../services/tools/approvalPolicy.js";
import type { AnyToolDefinition } from "../services/tools/Tool.js";
import {
  distinctCallIdsAcrossRuns,
  projectLegacyTurns,
  projectRuns,
  type ReplayMode,
} from "../services/transcriptProjector.js";
import { BASE_PROMPT, resolveSystemPrompt, type SystemPrompt } from "../services/workspace/prompt.js";

/** The flags that gate the new history reader. */
export interface SessionFlags {
  /** Read history from the canonical ledger (false: the old visible turns only). */
  readonly canonicalLedgerEnabled: boolean;
  /** For history without a ledger: fall back to visible turns, or ignore them. */
  readonly legacyHistoryMode: "fallback" | "off";
}

export const DEFAULT_SESSION_FLAGS: SessionFlags = { canonicalLedgerEnabled: true, legacyHistoryMode: "fallback" };

export interface SessionRunnerOptions {
  readonly flags?: Partial<SessionFlags>;
  readonly contractTables?: ContractTables;
  /** Tokens kept free for the model's reply (default 8192). */
  readonly outputReserveTokens?: number;
  /** Overrides the model's context window (tests, small models). */
  readonly contextBudgetTokens?: number;
  /** Runs read per page at most while walking back through a long session. */
  readonly pageSize?: number;
  /** Overrides the model's tokenizer (tests, models without a known encoding). */
  readonly tokenCounter?: TokenCounter;
}

/** Tools a skill's `tools:` list cannot take away: its own authoritative source. */
export const ALWAYS_ALLOWED_TOOLS: ReadonlyArray<string> = ["skill_load"];

/** The system prompt a turn sends: `system` over the base prompt (see `SystemPrompt`). */
export function turnSystemPrompt(system: SystemPrompt | undefined): string | undefined {
  return resolveSystemPrompt(BASE_PROMPT, system);
}

/**
 * The names a turn may call: the caller's `allowedTools`, narrowed by the active
 * skill's manifest `tools:` list when it has one. `undefined` = every tool of the run.
 */
export function turnAllowedTools(
  options: Pick<TurnOptions, "tools" | "allowedTools" | "signals">,
): ReadonlyArray<string> | undefined {
  const skillTools = options.signals?.skill?.tools;
  if (!skillTools) return options.allowedTools;
  if (options.tools) {
    return allowedToolNames({
      tools: options.tools,
      ...(options.allowedTools ? { profile: { allow: options.allowedTools } } : {}),
      skillTools,
      alwaysAllowed: ALWAYS_ALLOWED_TOOLS,
    });
  }
  // The run uses the runtime's tools: names are enough, the runtime offers only the tools it has.
  const names = [...new Set([...skillTools, ...ALWAYS_ALLOWED_TOOLS])];
  return options.allowedTools ? names.filter((name) => options.allowedTools!.includes(name)) : names;
}

/** Fewer runs a page would cost more in queries than it saves in rows. */
const MIN_PAGE_SIZE = 8;

export interface TurnOptions {
  readonly sessionId: string;
  readonly input: string;
  readonly signals?: ContractSignals | undefined;
  readonly provider: Provider;
  readonly tools?: ReadonlyArray<AnyToolDefinition> | undefined;
  /** Names this turn may call; an active skill's manifest `tools:` list narrows it further. */
  readonly allowedTools?: ReadonlyArray<string> | undefined;
  /**
   * The system prompt. Default: the runtime's base prompt (`BASE_PROMPT`, the evidence rules), as
   * the CLI sends; a string replaces it, `{ append }` adds a section after it, a function rewrites
   * it, `false` sends none (a host that supplies those rules some other way).
   */
  readonly system?: SystemPrompt | undefined;
  readonly skills?: ReadonlyArray<Pick<SkillManifest, "name" | "description">> | undefined;
  readonly maxSteps?: number | undefined;
  readonly locale?: Locale | undefined;
  /** Active memory offered to this turn (for the conflict rule; the prompt section is in `system`). */
  readonly memory?: ReadonlyArray<MemoryItem> | undefined;
  /** Aborting it cancels the turn's run. */
  readonly signal?: AbortSignal | undefined;
  /** which calls of the turn wait for approval (see `StartRunOptions.approval`). */
  readonly approval?: ApprovalPolicy | undefined;
}

export interface SessionHistory {
  readonly context: BuiltContext;
  /** Visible turns without a ledger were used (counted in agent_history_legacy_fallback_total). */
  readonly legacyFallback: boolean;
  /** Ledger rows read to build it. */
  readonly rowsRead: number;
}

export interface TurnHandle extends RunHandle {
  readonly history: SessionHistory;
  /** Resolves after the visible turns are dual-written to memory_turns. */
  readonly settled: Promise<AgentRunResult>;
}

/**
 * Runs consecutive turns of a session: resolves the contract, builds the
 * context from the ledger (tool facts, not narration), starts the run actor, and dual-writes
 * the visible projection (user message + final text) to memory_turns. One turn of a session runs
 * at a time: a turn asked for while another of its session runs starts after that one has
 * settled (in the order they were asked for), so it sees that turn in its history; turns of
 * different sessions run side by side.
 */
export class SessionRunner {
  private readonly flags: SessionFlags;
  /** Per session, settles when its last turn asked for has settled. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly runtime: AgentRuntime,
    private readonly options: SessionRunnerOptions = {},
  ) {
    this.flags = { ...DEFAULT_SESSION_FLAGS, ...options.flags };
  }

  /** The context the next turn of `sessionId` would see with `provider`. */
  async history(sessionId: string, provider: Provider, input = "", extra: Pick<TurnOptions, "system" | "skills"> = {}) {
    const counter = this.options.tokenCounter ?? tokenCounterFor(provider.apiFamily, provider.model);
    const system = turnSystemPrompt(extra.system);
    const build = {
      budgetTokens:
        (this.options.contextBudgetTokens ??
          contextWindowFor(provider.model) - (this.options.outputReserveTokens ?? 8192)) -
        messageTokens({ role: "user", content: input }, counter),
      counter,
      ...(system ? { system } : {}),
      ...(extra.skills ? { skills: extra.skills } : {}),
    };
    const { messages, legacyFallback, rowsRead } = await this.replay(sessionId, provider, build);
    const context = buildContext({ ...build, history: messages });
    return { context, legacyFallback, rowsRead } satisfies SessionHistory;
  }

  private async replay(sessionId: string, provider: Provider, build: Omit<ContextBuildInput, "history">) {
    const pageSize = this.options.pageSize ?? 64;
    const modeFor = (run: RunRecord): ReplayMode =>
      provider.capabilities.toolCalling && run.providerId === provider.id ? "protocol" : "summary";
    return this.runtime.run(
      Effect.gen(this, function* () {
        const store = yield* AgentRunStore;
        const turns = yield* MemoryTurnStore;
        if (!this.flags.canonicalLedgerEnabled) {
          const visible = yield* turns.listSession(sessionId);
          return {
            messages: projectLegacyTurns(visible),
            legacyFallback: visible.length > 0,
            rowsRead: visible.length,
          };
        }
        // Walk back from the newest run until older runs can no longer change the context
        // (rows read follow the budget, not the length of the session).
        const coverage = new HistoryCoverage(build);
        const runs: RunRecord[] = [];
        // Each run's projection, newest first: projected and counted once, then reused as the history.
        const projected: ContextMessage[][] = [];
        let rowsRead = 0;
        let before: string | undefined;
        let limit = pageSize;
        let exhausted = false;
        const seen = new Set<string>();
        const distinct = distinctCallIdsAcrossRuns();
        while (!coverage.covered) {
          const page = yield* store.listRuns({
            sessionId,
            endedOnly: true,
            newestFirst: true,
            limit,
            ...(before ? { startedBefore: before } : {}),
          });
          const fresh = page.filter((run) => !seen.has(run.runId));
          if (fresh.length === 0) {
            exhausted = true;
            break;
          }
          for (const ledger of yield* store.loadRunLedgers(fresh)) {
            rowsRead += 1 + ledger.events.length + ledger.receipts.length;
            if (coverage.covered) continue;
            seen.add(ledger.run.runId);
            runs.push(ledger.run);
            const messages = distinct(projectRuns([ledger], modeFor));
            projected.push(messages);
            coverage.add(messages);
          }
          if (page.length < limit) {
            exhausted = !coverage.covered;
            break;
          }
          // Pages are sized by how many more runs the budget looks to need, so little is read in vain.
          const size = Math.min(pageSize, Math.max(MIN_PAGE_SIZE, coverage.runsWanted()));
          // Runs that started in the same millisecond as the page's last one may lie beyond the page:
          // the next page goes up to and including that millisecond, skipping the runs already read.
          const boundary = page.at(-1)!.startedAt;
          const afterBoundary = Date.parse(boundary) + 1;
          if (Number.isNaN(afterBoundary)) {
            before = boundary;
            limit = size;
          } else {
            before = new Date(afterBoundary).toISOString();
            limit = size + runs.filter((run) => run.startedAt === boundary).length;
          }
        }
        const messages = projected.reverse().flat();
        let legacyFallback = false;
        if (exhausted && this.flags.legacyHistoryMode === "fallback") {
          const firstRunAt = runs.at(-1)?.startedAt;
          const visible = (yield* turns.listSession(sessionId)).filter(
            (turn) => turn.source !== AGENTLOOP_TURN_SOURCE && (!firstRunAt || turn.createdAt < firstRunAt),
          );
          rowsRead += visible.length;
          if (visible.length > 0) {
            legacyFallback = true;
            return { messages: [...projectLegacyTurns(visible), ...messages], legacyFallback, rowsRead };
          }
        }
        return { messages, legacyFallback, rowsRead };
      }),
    );
  }

  /**
   * Starts a turn once the session's earlier turns have settled; resolves with its handle when
   * it has started.
   */
  async startTurn(options: TurnOptions): Promise<TurnHandle> {
    const { sessionId } = options;
    const earlier = this.queues.get(sessionId);
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const queue = (earlier ?? Promise.resolve()).then(() => done);
    this.queues.set(sessionId, queue);
    void queue.then(() => {
      if (this.queues.get(sessionId) === queue) this.queues.delete(sessionId);
    });
    try {
      await earlier;
      const handle = await this.openTurn(options);
      handle.settled.then(release, release);
      return handle;
    } catch (error) {
      release();
      throw error;
    }
  }

  private async openTurn(options: TurnOptions): Promise<TurnHandle> {
    const history = await this.history(options.sessionId, options.provider, options.input, options);
    if (history.legacyFallback) Effect.runSync(recordHistoryLegacyFallback());
    const skill = options.signals?.skill;
    const memory = options.memory ?? [];
    // The built-in `skill_load` names the skill it loaded in its receipt (`skillLoadedKind`).
    const contract = applyMemoryConflictRule(
      resolveContract(options.signals ?? {}, this.options.contractTables ?? DEFAULT_CONTRACT_TABLES),
      { ...(skill ? { skill } : {}), memory },
    );
    const allowedTools = turnAllowedTools(options);
    const handle = this.runtime.startRun({
      sessionId: options.sessionId,
      input: options.input,
      contract,
      provider: options.provider,
      // The built context starts with the turn's system prompt (and the skill catalog).
      system: false,
      history: history.context.messages as ReadonlyArray<ContextMessage>,
      ...(options.tools ? { tools: options.tools } : {}),
      ...(allowedTools ? { allowedTools } : {}),
      ...(options.maxSteps ? { maxSteps: options.maxSteps } : {}),
      ...(options.locale ? { locale: options.locale } : {}),
      ...(options.approval ? { approval: options.approval } : {}),
      signal: options.signal,
    });
    const settled = handle.result.then(async (result) => {
      await this.dualWrite(options, result);
      return result;
    });
    return { ...handle, history, settled };
  }

  /** The visible projection for existing session lists and search. */
  private dualWrite(options: TurnOptions, result: AgentRunResult) {
    const metadata = {
      runId: result.runId,
      traceId: result.traceId,
      terminalState: result.terminalState,
      reason: result.terminalReason,
    };
    return this.runtime.run(
      Effect.flatMap(MemoryTurnStore, (turns) =>
        turns.append([
          {
            sessionId: options.sessionId,
            role: "user",
            content: options.input,
            source: AGENTLOOP_TURN_SOURCE,
            metadata,
          },
          {
            sessionId: options.sessionId,
            role: "assistant",
            content: result.finalText,
            source: AGENTLOOP_TURN_SOURCE,
            metadata,
          },
        ]),
      ),
    );
  }
}
