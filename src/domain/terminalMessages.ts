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
