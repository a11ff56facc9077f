import type { Attribution } from "./agentContext.js";

/**
 * Chinese: completed-looking verbs that report no step of the writer's — a property of the thing the
 * user sent (你发来的表格设置了打开密码: the file did it, before it reached the writer), what a group
 * agreed in a chat being summed up (大家同意把…改到下周六), what the writer only leans towards (我倾向于
 * 回退到上一版: no step yet) and a mechanism explained (它通过干扰蛋白质合成起作用). Read in
 * `chineseAgent` after the other speakers (chineseOtherSpeakers.ts).
 */

/** The verb's own clause, spaces taken out. */
const ownClauseOf = (before: string) => (before.split(/[，,；;：:。！!？?]/).at(-1) ?? "").replace(/\s+/g, "");

/** The user's thing as the clause's subject: 你发来的《…》, 您上传的文件, 你给的链接. */
const USERS_THING = /^(?:你|您)(?:刚才|之前|昨天)?(?:发来|发过来|发|给|贴|贴过来|上传|传|转过来|转发)的/;
/** A group that agreed or decided, before the verb in its sentence: 大家同意, 双方商定, 与会人员一致决定. */
const GROUP_AGREED =
  /(?:大家|各方|双方|全体|与会(?:人员|者|代表)?|群里的人|其他人)(?:都|也|最后|最终)?(?:一致)?(?:同意|决定|商定|约定|议定|认为应该?)/;
/** Leaning towards a step, not taking it: 我倾向于, 更倾向. */
const LEANING = /倾向(?:于)?(?:先|直接)?[\u4e00-\u9fff]?$/;
/** A mechanism: 通过… before the verb and 起作用 / 发挥作用 after it in the same clause. */
const MECHANISM_AFTER = /^[^，,。；;]{0,12}?(?:起作用|发挥作用|起效|生效的)/;

export function chineseOthersDecided(plain: string, before: string, after: string): Attribution | undefined {
  const clause = ownClauseOf(before);
  // (你发来的合同我已经改好了, 您上传的照片已归档: a step on the user's thing that names the writer or is
  // marked done by 已 is the writer's, and stays.)
  if (USERS_THING.test(clause) && !/[我咱]|已|刚/.test(clause)) {
    return { agent: "user", reason: "a property of the thing the user sent" };
  }
  // (大家同意…，我已经把报名表发到群里了: only where the writer has no part in the sentence.)
  if (GROUP_AGREED.test(before) && !/[我咱]/.test(plain)) {
    return { agent: "third party", reason: "what a group agreed, summed up" };
  }
  if (LEANING.test(clause) && !/已|刚/.test(clause)) return { agent: "none", reason: "a step only leaned towards" };
  if (/通过/.test(clause) && MECHANISM_AFTER.test(after) && !/[我咱]/.test(clause)) {
    return { agent: "none", reason: "a mechanism explained" };
  }
  return undefined;
}
