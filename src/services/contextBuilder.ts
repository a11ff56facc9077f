import type { ContextMessage, SkillManifest } from "../domain/index.js";
import { messageTokens, type TokenCounter } from "./tokens.js";

/**
 * Fits a conversation into a token budget without ever splitting an assistant tool-call message
 * from its results (seed §4 Phase 5, §6.2; OpenClaw's compaction bug, §10.2): messages are
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
    out.push({ ...message, toolCalls: calls });
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

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** One factual line per message of the compacted groups: what the user asked, which tools ran and with what result. */
export function summarizeGroups(groups: ReadonlyArray<MessageGroup>): ContextMessage {
  const lines: string[] = [];
  let answers = 0;
  for (const message of groups.flat()) {
    if (message.role === "user") lines.push(`- user: ${clip(message.content, 200)}`);
    else if (message.role === "tool")
      lines.push(
        `- tool ${message.toolName} (call ${message.callId}): ${message.facts ?? (message.isError ? "failed" : "ok")}`,
      );
    else if (message.role === "assistant" && message.toolCalls.length === 0) {
      answers += 1;
      // A non-completed run's replay states its terminal state; keep that fact, drop other narration.
      const ended = /^\[run ended [^\]]+\]/.exec(message.content)?.[0];
      lines.push(ended ? `- assistant: ${ended}` : "- assistant answered (text omitted from this summary)");
    }
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
  /** Runtime-owned system prompt (issue H builds it); placed first, never trimmed. */
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

export function buildContext(input: ContextBuildInput): BuiltContext {
  const count = (messages: ReadonlyArray<ContextMessage>) =>
    messages.reduce((sum, message) => sum + messageTokens(message, input.counter), 0);
  const systemText = [input.system ?? "", skillCatalog(input.skills ?? [])].filter((part) => part.trim()).join("\n\n");
  const head: ContextMessage[] = systemText ? [{ role: "system", content: systemText }] : [];
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
  const reserve = input.compaction === false ? 0 : Math.min(Math.floor(budget / 4), 2_000);
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
  const fits = (count: number) =>
    messageTokens(summarizeGroups(groups.slice(keepFrom - count, keepFrom)), input.counter) + kept <= budget;
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
  return finish([summarizeGroups(groups.slice(from, keepFrom)), ...recent], good, from, false);
}
