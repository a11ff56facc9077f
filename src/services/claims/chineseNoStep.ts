import type { Attribution } from "./agentContext.js";

/**
 * Chinese: verbs that report no step taken by anyone in this task — what a new version of a standard
 * changed, compared with the old (和2010版相比，…新增了…), what is usually so (数据经常做了风控), a verb
 * inside a noun (促红细胞生成素), an instruction whose verb carries a result with no 了 (先关掉…重新开机,
 * 用保鲜盒装好，…), a count of what is there now (文件夹里现在有 1,400 多个文件), what was only
 * agreed or read in the conversation itself (刚才的会话里只确认了范围, 看了这个需求，我建议…), a step
 * turned down as it was tried (执行…时被拒绝了), and a step offered once the user answers (你告诉我…，我按时间排好). Read in `chineseAgent` after the
 * clause's own subjects (chineseClauseSubjects.ts).
 */

/** The verb's own clause, spaces taken out. */
const ownClauseOf = (before: string) => (before.split(/[，,；;：:。！!？?]/).at(-1) ?? "").replace(/\s+/g, "");
/** The writer anywhere in the text. */
const WRITER = /[我咱]/;

/**
 * A published edition set against the one before it, named by its year or as the old standard
 * (和2010版相比, 与旧标准相比) — 和上一版比 alone is as often the writer's own draft revised.
 */
const VERSION_COMPARED =
  /(?:和|与|跟|同)[^，,。；;]{0,12}(?:\d{4}\s*年?\s*(?:版|版本)|(?:旧|老|原)标准)(?:相比|比较|比)[，,]?[^。；;]*$/;
/** An adverb of habit right before the verb: what usually happens, no event. */
const HABIT = /(?:经常|通常|往往|常常|一般都?|总是|普遍|大多)\s*$/;
/**
 * A noun-making ending right after the verb: 生成素, 抑制剂, 转化酶. (Not 器: 触发器过了一遍 names a
 * thing the writer went through, and its verb is the one to read.)
 */
const NOUN_ENDING = /^(?:素|酶|剂)/;
/**
 * A step tried and turned down or failed at the moment of trying (执行 `…` 时被拒绝了, 提交时报错): the
 * step did not take place. (执行了…之后报错 is a step that did.)
 */
const FAILED_WHILE = /^[^了，,。；;]{0,40}?时\s*(?:被(?:拒绝|驳回|拦截|退回|拒)|报错|失败|出错|提示(?:没有|无)权限)/;
/** A result the verb carries, with no 了 after it in its clause. */
const RESULT = /^(?:掉|好|完|上|下来|起来)/;
/** An opener of a step laid out: 先, 再, 然后, 并用…: the step of an instruction. */
const STEP_OPENER = /^(?:先|再|然后|接着|最后)/;
/** Words of advice in the sentence: 避免, 保持, 记得, 最好. */
const ADVICE = /避免|以免|防止|保持|记得|注意|最好|不要|别|应该|应当|尽量|建议/;
/** The conversation itself as the place of the verb: 刚才的会话里, 对话中, 聊天里. */
const IN_CONVERSATION = /(?:会话|对话|聊天|沟通)(?:里|中|时)(?:只|就|先|也)?$/;
/** Verbs of agreeing in talk. */
const AGREED = /^(?:确认|明确|商量|讨论|约定|沟通|聊)$/;
/**
 * The user's own request read, as words of this conversation (看了这个需求，我建议…; 看了你描述的问题，…)
 * — not a document handed over (看了你的需求文档, 读了你发的方案).
 */
const REQUEST_READ =
  /^(?:了|过)(?:一下|一遍)?\s*(?:这个|你的|您的|你描述的|您描述的|你说的|你提的)?(?:需求|问题|描述|想法|要求)\s*(?:[，,]|后)/;

/** The user asked to tell or send the writer something first, then the writer's own clause: 你告诉我…，我. */
const USER_ANSWERS_FIRST =
  /(?:你|您)(?:先)?(?:告诉|发给|发|给|回复|确认给)我[^。！!？?；;]*[，,]\s*我[^，,。！!？?；;]*$/;

export function chineseNoStep(plain: string, verb: string, before: string, after: string): Attribution | undefined {
  const clause = ownClauseOf(before);
  const afterClause = after.split(/[，,；;。！!？?]/)[0] ?? "";
  if (VERSION_COMPARED.test(before) && !WRITER.test(plain)) {
    return { agent: "none", reason: "what a new version changed, set against the old" };
  }
  if (HABIT.test(before) && !WRITER.test(clause) && !/已|刚/.test(clause)) {
    return { agent: "none", reason: "what usually happens, with an adverb of habit" };
  }
  if (NOUN_ENDING.test(after) && !/[我咱](?:已经?|刚|把)/.test(plain))
    return { agent: "none", reason: "a verb inside a noun" };
  if (FAILED_WHILE.test(afterClause)) return { agent: "none", reason: "a step turned down or failed as it was tried" };
  // (先关掉打印机和收银机重新开机: a step laid out whose verb carries its result with no 了 — an
  // instruction; 先关掉了 reports it.)
  const carried = RESULT.test(afterClause) || /(?:好|完|掉)$/.test(verb);
  // (`money.ts`：先去掉…再解析: after a label and a colon, the line says what the code now does.)
  if (
    carried &&
    !/[了过]/.test(afterClause) &&
    STEP_OPENER.test(clause) &&
    !WRITER.test(clause) &&
    !/已/.test(clause) &&
    !/[：:]/.test(before)
  ) {
    return { agent: "none", reason: "a step of an instruction: a result with no 了" };
  }
  // (生肉放最下层并用保鲜盒装好，…避免汁水滴落: where the whole sentence carries no mark of a thing
  // done — no 了, 已, 过, 刚 or writer — and gives advice, a verb with its result is how to do it;
  // 配置改好，服务重启完 with no advice is a terse report.)
  if (
    carried &&
    !/[了已过刚]/.test(plain) &&
    !WRITER.test(plain) &&
    ADVICE.test(plain) &&
    /^\s*[，,；;。]/.test(after.replace(/^[掉好完]/, ""))
  ) {
    return { agent: "none", reason: "a tip whose verb carries its result, nothing marked done" };
  }
  // (你的下载文件夹里现在有 1,400 多个文件: a count of what the user's thing holds now, no change;
  // 文件里现在有 3 个 sheet, or one next to 我已经…, may be the state the writer left.)
  if (
    verb === "现在" &&
    /[你您]/.test(clause) &&
    !/[我咱]\s*(?:已|刚|把)/.test(plain) &&
    /^\s*(?:一共|共|总共)?有\s*[\d一二三四五六七八九十几百千万]/.test(after) &&
    !/了/.test(afterClause)
  ) {
    return { agent: "none", reason: "a count of what is there now" };
  }
  if (/^(?:看|读|听)$/.test(verb) && REQUEST_READ.test(after) && !/[已刚]/.test(clause)) {
    return { agent: "none", reason: "the user's own request read, words of this conversation" };
  }
  // (你告诉我关注哪几家，我按时间先后排好: what the writer will do once the user answers — with no 了
  // after the verb nor 已 before it, an offer; 我已经按时间排好了 reports it.)
  if (USER_ANSWERS_FIRST.test(before) && !/[了过]/.test(afterClause) && !/已|刚/.test(clause)) {
    return { agent: "none", reason: "a step offered once the user answers" };
  }
  if (AGREED.test(verb) && IN_CONVERSATION.test(clause) && !WRITER.test(clause)) {
    return { agent: "none", reason: "what was agreed in the conversation itself" };
  }
  return undefined;
}
