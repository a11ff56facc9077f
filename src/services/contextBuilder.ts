import type { ContextMessage, SkillManifest } from "../domain/index.js";
import { messageTokens, type TokenCounter } from "./tokens.js";
import { outputExcerpt } from "./transcriptProjector.js";

/**
 * Fits a conversation into a token budget without ever splitting an assistant tool-call message
 * from its results: messages are
 * grouped atomically, older groups are compacted into one factual summary (receipt facts, not
 * narration) and then trimmed oldest-first, and the pairing repair runs again on the result.
 */

export type MessageGroup = ReadonlyArray<ContextMessage>;

const MISSING_RESULT = "[missing] No result was recorded for this call; its outcome is unknown.";

/**
 * Every assistant tool call is followed by exactly one result for it (a synthetic `missing` one
 * when none exists); results without a call are dropped, duplicates keep the first; results are
 * moved to directly after their call message.
 */
export function repairPairing(messages: ReadonlyArray<ContextMessage>): ContextMessage[] {
  const results = new Map<string, Extract<ContextMessage, { role: "tool" }>>();
  for (const message of messages) {
    if (message.role === "tool" && !results.has(message.callId)) results.set(message.callId, message);
  }
  const out: ContextMessage[] = [];
  const placed = new Set<string>();
  for (const message of messages) {
    if (message.role === "tool") continue;
    if (message.role !== "assistant" || message.toolCalls.length === 0) {
      out.push(message);
      continue;
    }
    const calls = message.toolCalls.filter((call) => !placed.has(call.id));
    for (const call of calls) placed.add(call.id);
    if (calls.length === 0) {
      if (message.content.trim()) out.push({ ...message, toolCalls: [] });
      continue;
    }
    // The unchanged message itself, so that its token count (cached per object) is reused.
    out.push(calls.length === message.toolCalls.length ? message : { ...message, toolCalls: calls });
    for (const call of calls) {
      out.push(
        results.get(call.id) ?? {
          role: "tool",
          callId: call.id,
          toolName: call.name,
          isError: true,
          content: MISSING_RESULT,
        },
      );
    }
  }
  return out;
}

/** Atomic groups: an assistant tool-call message with all its results; any other message alone. */
export function groupMessages(messages: ReadonlyArray<ContextMessage>): MessageGroup[] {
  const groups: ContextMessage[][] = [];
  for (const message of messages) {
    const last = groups.at(-1);
    if (
      message.role === "tool" &&
      last?.[0]?.role === "assistant" &&
      last[0].toolCalls.some((call) => call.id === message.callId)
    ) {
      last.push(message);
    } else {
      groups.push([message]);
    }
  }
  return groups;
}

/** How much of an ok call's output a compaction summary keeps per call. */
export const SUMMARY_LINE_OUTPUT_CHARS = 200;

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The summary's line for one message; assistant tool-call messages have none (their results do). */
function summaryLine(message: ContextMessage): string | undefined {
  if (message.role === "user") return `- user: ${clip(message.content, 200)}`;
  if (message.role === "tool") {
    const line = `- tool ${message.toolName} (call ${message.callId}): ${message.facts ?? (message.isError ? "failed" : "ok")}`;
    // What an ok call returned stays (cut short); an error's text is not a fact to build on.
    return message.isError ? line : `${line}; output: ${outputExcerpt(message.content, SUMMARY_LINE_OUTPUT_CHARS)}`;
  }
  if (message.role === "assistant" && message.toolCalls.length === 0) {
    // A non-completed run's replay states its terminal state; keep that fact, drop other narration.
    const ended = /^\[run ended [^\]]+\]/.exec(message.content)?.[0];
    return ended ? `- assistant: ${ended}` : "- assistant answered (text omitted from this summary)";
  }
  return undefined;
}

/** One factual line per message of the compacted groups: what the user asked, which tools ran and with what result. */
export function summarizeGroups(groups: ReadonlyArray<MessageGroup>): ContextMessage {
  const lines: string[] = [];
  let answers = 0;
  for (const message of groups.flat()) {
    const line = summaryLine(message);
    if (line === undefined) continue;
    lines.push(line);
    if (message.role === "assistant") answers += 1;
  }
  const messages = groups.reduce((sum, group) => sum + group.length, 0);
  return {
    role: "user",
    content: `[Summary of ${messages} earlier messages, made by the runtime from recorded facts; the assistant's narration is omitted (${answers} replies)]\n${lines.join("\n")}`,
  };
}

export interface ContextBuildInput {
  readonly history: ReadonlyArray<ContextMessage>;
  readonly budgetTokens: number;
  readonly counter: TokenCounter;
  /** Runtime-owned system prompt; placed first, never trimmed. */
  readonly system?: string;
  /** The skill catalog (name + description) — not the SKILL.md bodies, which `skill_load` returns on demand. */
  readonly skills?: ReadonlyArray<Pick<SkillManifest, "name" | "description">>;
  /** Compact older groups into a summary before trimming (default true). */
  readonly compaction?: boolean;
}

export interface BuiltContext {
  readonly messages: ContextMessage[];
  readonly tokens: number;
  readonly compactedGroups: number;
  readonly droppedGroups: number;
  /** Even the newest group alone exceeds the budget; it is kept whole rather than split. */
  readonly overBudget: boolean;
}

export function skillCatalog(skills: ReadonlyArray<Pick<SkillManifest, "name" | "description">>): string {
  if (skills.length === 0) return "";
  const lines = skills.map((skill) => `- ${skill.name}: ${skill.description}`);
  return `Available skills (load one with the skill_load tool before following it):\n${lines.join("\n")}`;
}

/** The runtime-owned head: system prompt and skill catalog, first and never trimmed. */
function headOf(input: Pick<ContextBuildInput, "system" | "skills">): ContextMessage[] {
  const systemText = [input.system ?? "", skillCatalog(input.skills ?? [])].filter((part) => part.trim()).join("\n\n");
  return systemText ? [{ role: "system", content: systemText }] : [];
}

/** Room kept for the summary of older groups when deciding which newest groups to keep whole. */
const summaryReserve = (budget: number, compaction: boolean | undefined) =>
  compaction === false ? 0 : Math.min(Math.floor(budget / 4), 2_000);

const tokensOf = (messages: ReadonlyArray<ContextMessage>, counter: TokenCounter) =>
  messages.reduce((sum, message) => sum + messageTokens(message, counter), 0);

export function buildContext(input: ContextBuildInput): BuiltContext {
  const count = (messages: ReadonlyArray<ContextMessage>) => tokensOf(messages, input.counter);
  const head = headOf(input);
  const groups = groupMessages(repairPairing(input.history.filter((message) => message.role !== "system")));
  const budget = input.budgetTokens - count(head);
  const groupTokens = groups.map((group) => count(group));
  const total = groupTokens.reduce((sum, tokens) => sum + tokens, 0);
  const finish = (
    body: ContextMessage[],
    compactedGroups: number,
    droppedGroups: number,
    overBudget: boolean,
  ): BuiltContext => {
    const messages = repairPairing([...head, ...body]);
    return { messages, tokens: count(messages), compactedGroups, droppedGroups, overBudget };
  };
  if (total <= budget) return finish(groups.flat(), 0, 0, false);
  // No history at all, and the head alone is larger than the budget: nothing to trim.
  if (groups.length === 0) return finish([], 0, 0, true);

  // Keep the longest suffix of whole groups that fits next to a summary of the rest.
  let keepFrom = groups.length;
  let kept = 0;
  const reserve = summaryReserve(budget, input.compaction);
  while (keepFrom > 0 && kept + groupTokens[keepFrom - 1]! <= budget - reserve) {
    kept += groupTokens[keepFrom - 1]!;
    keepFrom -= 1;
  }
  if (keepFrom === groups.length) {
    // The newest group does not fit next to a summary: keep it whole (never split a call from
    // its results); it is over budget only when it does not fit the budget at all.
    return finish([...groups.at(-1)!], 0, groups.length - 1, groupTokens.at(-1)! > budget);
  }
  const recent = groups.slice(keepFrom).flat();
  if (input.compaction === false) return finish(recent, 0, keepFrom, false);
  // Compact the older groups into one summary; when the summary of all of them does not fit, its
  // oldest groups are trimmed first. How many of the newest older groups fit is found by galloping
  // and bisection, so the cost follows the summary kept, not the length of the session.
  const summaries = new Map<number, ContextMessage>();
  const summaryOf = (count: number) => {
    let summary = summaries.get(count);
    if (!summary) {
      summary = summarizeGroups(groups.slice(keepFrom - count, keepFrom));
      summaries.set(count, summary);
    }
    return summary;
  };
  const fits = (count: number) => messageTokens(summaryOf(count), input.counter) + kept <= budget;
  if (!fits(1)) return finish(recent, 0, keepFrom, false);
  let good = 1;
  let bad = keepFrom + 1;
  while (good < keepFrom) {
    const next = Math.min(keepFrom, good * 2);
    if (!fits(next)) {
      bad = next;
      break;
    }
    good = next;
  }
  while (bad - good > 1 && good < keepFrom) {
    const middle = Math.floor((good + bad) / 2);
    if (fits(middle)) good = middle;
    else bad = middle;
  }
  const from = keepFrom - good;
  return finish([summaryOf(good), ...recent], good, from, false);
}

/**
 * Tells a reader that walks back through a session, newest run first, when older runs can no
 * longer change what buildContext keeps — so history is read in proportion to the budget, not to
 * the length of the session. It mirrors buildContext on the runs read so far: once they exceed the
 * budget, the newest groups that fit beside the summary reserve are kept whole and older groups can
 * only enter the summary; once even a lower bound of that summary overflows the room beside the
 * kept groups, buildContext trims the oldest summarized groups, and any older run would be trimmed too.
 *
 * Exact for runs whose call ids are unique: pairing repair then leaves each run's projection as it
 * is. Where runs reuse call ids, repair drops the repeats and the context can hold less than the
 * budget allows. Twice the budget caps the walk, as a summary of narration-heavy runs can stay
 * small for very long.
 */
export class HistoryCoverage {
  private readonly budget: number;
  private readonly keepLimit: number;
  private readonly counter: TokenCounter;
  private readonly compaction: boolean;
  private total = 0;
  private kept = 0;
  private keeping = true;
  private summaryFloor = 0;
  private runs = 0;
  private summaryRuns = 0;
  private done = false;

  constructor(input: Omit<ContextBuildInput, "history">) {
    this.counter = input.counter;
    this.compaction = input.compaction !== false;
    this.budget = input.budgetTokens - tokensOf(headOf(input), input.counter);
    this.keepLimit = this.budget - summaryReserve(this.budget, input.compaction);
  }

  /** Older runs can no longer change the context. */
  get covered(): boolean {
    return this.done;
  }

  /** Adds the projection of the next older run; returns whether the history is now covered. */
  add(run: ReadonlyArray<ContextMessage>): boolean {
    if (this.done) return true;
    this.runs += 1;
    if (!this.keeping) this.summaryRuns += 1;
    const groups = groupMessages(run.filter((message) => message.role !== "system"));
    for (let index = groups.length - 1; index >= 0; index--) {
      const group = groups[index]!;
      const tokens = tokensOf(group, this.counter);
      this.total += tokens;
      if (this.keeping && this.kept + tokens <= this.keepLimit) {
        this.kept += tokens;
        continue;
      }
      this.keeping = false;
      if (this.compaction) this.summaryFloor += this.summaryFloorOf(group);
    }
    this.done =
      this.total > Math.max(this.budget, 0) * 2 ||
      (this.total > this.budget &&
        // Not even the newest group fits beside a summary: buildContext keeps it alone.
        (this.kept === 0 || !this.compaction || this.summaryFloor > this.budget - this.kept));
    return this.done;
  }

  /** A guess at how many more runs it takes, to size the reader's next page. */
  runsWanted(): number {
    if (this.done) return 0;
    if (this.total === 0) return Number.POSITIVE_INFINITY;
    const perRun = this.total / this.runs;
    const toCap = Math.ceil((Math.max(this.budget, 0) * 2 - this.total) / perRun) + 1;
    if (this.total <= this.budget) return Math.min(toCap, Math.ceil((this.budget - this.total) / perRun) + 2);
    if (this.summaryRuns === 0 || this.summaryFloor === 0) return Math.min(toCap, 2);
    const floorPerRun = this.summaryFloor / this.summaryRuns;
    return Math.min(toCap, Math.ceil((this.budget - this.kept - this.summaryFloor) / floorPerRun) + 1);
  }

  /**
   * At most the tokens the group adds to a summary: its lines counted one by one, less one token
   * each for what joining them with newlines can merge (BPE encodings split at newlines; a
   * characters-based count rounds up once per line).
   */
  private summaryFloorOf(group: MessageGroup): number {
    let floor = 0;
    for (const message of group) {
      const line = summaryLine(message);
      if (line !== undefined) floor += Math.max(0, this.counter.count(line) - 1);
    }
    return floor;
  }
}
