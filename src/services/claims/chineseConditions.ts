import type { Attribution } from "./agentContext.js";

/**
 * Chinese: the conditions a procedure needs, listed under a label that names them (确认前置条件,
 * 办理需要满足的条件：, and 准备工作 in a how-to). Each item states a state the reader must already be
 * in — 号码已实名登记, 已办理建设用地相关手续, 企业已在海关完成…备案 — which reads like a status line
 * but reports nobody's step in this task. Only the items up to the next label count, and the writer's
 * own voice (我已经确认了…, 帮你…) inside one stays a report.
 */

/** Words that name the conditions of a procedure. */
const CONDITIONS =
  /前置条件|前提条件|办理条件|申请条件|申报条件|需要?满足的?条件|应具备的?条件|条件如下|基本条件|必备条件/;
/** The preparation a how-to lists before its steps: only in an answer that tells the user what to do. */
const PREPARATION = /^(?:\d{1,2}[.、]\s*)?(?:准备工作|事前准备|前期准备)\s*[:：]?$/;
/** A label: a short line that closes no statement (确认前置条件, 操作步骤), or one that ends on a colon. */
const isLabel = (text: string) => /[:：]\s*$/.test(text) || (text.length <= 24 && !/[。；;！!？?，,]\s*$/.test(text));
/** The writer's own voice, or the reader served by the writer. */
const WRITER = /[我咱]|(?:帮|替|为)(?:你|您)/;

/** The indices of the sentences listed under a label of conditions. */
export function conditionItems(
  sentences: ReadonlyArray<{ readonly language: string; readonly text: string }>,
  instructions: boolean,
): ReadonlySet<number> {
  const items = new Set<number>();
  let open = false;
  sentences.forEach((sentence, index) => {
    const text = sentence.text.trim();
    if (isLabel(text)) {
      open =
        sentence.language === "zh" &&
        !WRITER.test(text) &&
        !/已|了/.test(text) &&
        (CONDITIONS.test(text) || (instructions && PREPARATION.test(text)));
      return;
    }
    if (open) items.add(index);
  });
  return items;
}

/** A line listed under a label of conditions, unless the writer speaks in it. */
export function conditionLine(plain: string): Attribution | undefined {
  if (WRITER.test(plain)) return undefined;
  return { agent: "none", reason: "a condition a procedure needs, stated as a state" };
}
