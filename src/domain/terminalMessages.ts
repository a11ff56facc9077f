import type { ReceiptStatus } from "./receipt.js";
import type { ReasonCode, TerminalState } from "./terminal.js";

export const Locale = ["en", "zh"] as const;
export type Locale = (typeof Locale)[number];

/** Runtime-owned wording for runs that did not complete. Only `completed` may sound done. */
const TEMPLATES: Record<Locale, Record<Exclude<TerminalState, "completed">, string>> = {
  en: {
    unverified: "This was not verified: the requested action has no matching tool result, so it may not have happened.",
    incomplete: "This is not finished: the run stopped before it produced a verifiable result.",
    failed: "This did not complete: the run failed.",
    cancelled: "This was cancelled before it completed.",
  },
  zh: {
    unverified: "未经验证：所声称的操作没有对应的工具执行结果，可能并未发生。",
    incomplete: "尚未完成：运行在得到可验证结果之前停止了。",
    failed: "未完成：本次运行失败。",
    cancelled: "已取消：本次运行在完成前被取消。",
  },
};

const CONTEXT_LABEL: Record<Locale, string> = {
  en: "Model's reply (unverified context)",
  zh: "模型回复（未经验证，仅供参考）",
};

/**
 * The text a user sees for a finished run: the answer when `completed`, otherwise an honest
 * statement of the state, the model's text only as clearly marked context, and an admin reference.
 */
export function finalMessage(input: {
  readonly terminalState: TerminalState;
  readonly reason: ReasonCode;
  readonly modelText: string;
  readonly traceId: string;
  readonly locale?: Locale;
}): string {
  if (input.terminalState === "completed") return input.modelText;
  const locale = input.locale ?? "en";
  const lines = [`${TEMPLATES[locale][input.terminalState]} (${input.reason})`];
  if (input.modelText.trim().length > 0) lines.push("", `${CONTEXT_LABEL[locale]}:`, input.modelText);
  lines.push("", `ref: ${input.traceId}`);
  return lines.join("\n");
}

/** The template sentence for a state that is not `completed` (what `finalMessage` opens with). */
export function terminalTemplate(state: Exclude<TerminalState, "completed">, locale: Locale): string {
  return TEMPLATES[locale][state];
}

// --- Channel progress --------------------------------------------------

/**
 * Every progress message a channel shows opens with this marker: progress is rendered in an
 * explicit "in progress" style and is never phrased or flagged as the answer.
 */
export const PROGRESS_MARKER: Record<Locale, string> = {
  en: "In progress:",
  zh: "进行中：",
};

const TOOL_STATUS: Record<
  Locale,
  { readonly started: (tool: string) => string; readonly result: Record<ReceiptStatus, (tool: string) => string> }
> = {
  en: {
    started: (tool) => `calling tool ${tool}`,
    result: {
      ok: (tool) => `tool ${tool} returned a result`,
      error: (tool) => `tool ${tool} returned an error`,
      timed_out: (tool) => `tool ${tool} timed out`,
      cancelled: (tool) => `tool ${tool} was cancelled`,
      denied: (tool) => `tool ${tool} was not run: approval denied`,
      expired: (tool) => `tool ${tool} was not run: approval expired`,
    },
  },
  zh: {
    started: (tool) => `正在调用工具 ${tool}`,
    result: {
      ok: (tool) => `工具 ${tool} 已返回结果`,
      error: (tool) => `工具 ${tool} 返回了错误`,
      timed_out: (tool) => `工具 ${tool} 超时`,
      cancelled: (tool) => `工具 ${tool} 已被取消`,
      denied: (tool) => `工具 ${tool} 未执行：审批被拒绝`,
      expired: (tool) => `工具 ${tool} 未执行：审批已超时`,
    },
  },
};

export type ProgressInput =
  | { readonly source: "commentary"; readonly text: string }
  | { readonly source: "tool_started"; readonly toolName: string }
  | { readonly source: "tool_result"; readonly toolName: string; readonly status: ReceiptStatus };

/** The text of one progress message: the localised in-progress marker, then the update. */
export function progressMessage(input: ProgressInput, locale: Locale = "en"): string {
  const body =
    input.source === "commentary"
      ? input.text.trim()
      : input.source === "tool_started"
        ? TOOL_STATUS[locale].started(input.toolName)
        : TOOL_STATUS[locale].result[input.status](input.toolName);
  return `${PROGRESS_MARKER[locale]} ${body}`;
}

/** Whether `text` is in the in-progress style of `locale`. */
export const isProgressText = (text: string, locale: Locale): boolean => text.startsWith(PROGRESS_MARKER[locale]);
