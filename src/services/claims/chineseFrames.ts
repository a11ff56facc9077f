import type { Attribution, Subject } from "./agentContext.js";

/**
 * Chinese: frames around a completed-looking verb that say nobody in this task did it — the reply
 * itself named as what was written, material the user sent being read, the step that follows what
 * the user is asked for, a plan under a label of time to come, when a rule takes effect, one of the
 * ways offered to the user, a step for the time it applies, and the symptom after the user's own
 * step. Read before the subject decides (agentChinese.ts), each only where no marker of the verb's
 * own says it is done.
 */

export interface ChineseFrame {
  readonly plain: string;
  readonly verb: string;
  readonly before: string;
  readonly after: string;
  readonly subject: Subject;
  readonly marked: boolean;
  /** 已/刚 before the verb in its clause, or a 了 of its own right after it. */
  readonly completed: boolean;
  /** The sentence's clauses before the verb's own. */
  readonly earlierClauses: ReadonlyArray<string>;
}

/** Verbs of composing or arranging a text. */
const COMPOSE = /^(?:整理|梳理|写|撰写|汇总|归纳|总结|起草|拟|列)$/;
/** This very text as the object: 这份说明, 本文, 这篇总结. */
const THIS_TEXT =
  /^(?:了|好了?|出了?)?(?:这份|这篇|这一份|这个|本)(?:说明|总结|摘要|梳理|回复|文档|材料|时间线|清单|报告|笔记|小结)\s*(?:[，,。；;！!]|$)/;
/** Verbs of reading or looking. */
const READ = /^(?:看|读|查看|阅读|细看|翻看|浏览)$/;
/** What the user sent in the conversation: 您发来的截图, 你贴的日志. */
// (Not an uploaded file — 您上传的 PDF takes a tool to open.)
// (你描述的需求, 您说的情况: what the user told in words is in the conversation as well.)
const USER_SENT =
  /^(?:了|过)?(?:一下|一遍)?(?:你|您)(?:刚才|刚刚|之前|上面)?(?:贴|粘贴|发来|发过来|转来|转过来|描述|说|讲|提到|提|反映|反馈)的/;
/** A request to the user: 麻烦提供一下, 请您发一下, 烦请补充. */
const REQUEST = /(?:麻烦|烦请|劳烦|请(?:您|你))[^，,。；;]{0,6}(?:提供|发|告诉|告知|确认|补充|上传|截图|填写)/;
/** A label of time to come before a plan: 下周安排, 明天的计划, 本周待办. */
const FUTURE_PLAN =
  /^(?:下周|下个?月|下季度|明天|明日|后天|明年|本周|这周|周末|下一阶段|接下来)(?:的)?(?:安排|计划|日程|待办|打算|任务)(?:是|为)?$/;
/** When a rule takes effect: 立即生效, 次月生效, 24 小时内生效. */
const TAKES_EFFECT_AFTER =
  /(?:立即|立刻|即时|马上|实时|当天|当日|次日|次月|隔天|\d+\s*(?:小时|分钟|天|个?工作日)(?:内|后))\s*$/;
/** A time frame a how-to sets for a step: 第一次接入时, 每次发布的时候. */
const STEP_TIME = /^(?:第一次|首次|初次|每次|下次|以后每次)[^，,。；;了已]{0,10}(?:时|的时候)/;
/** The symptom after the user's own step: 换了新卡后显示无服务, 升级了系统以后打不开. */
const SYMPTOM_AFTER =
  /^了[^，,。；;]{0,16}?(?:之后|以后|后)\s*(?:就|还|又|一直|总是|老是|仍然|依然)?(?:显示|出现|提示|弹出|报错|报|变成|无法|不能|没法|连不上|打不开|用不了)/;

export function chineseFrameAgent(frame: ChineseFrame): Attribution | undefined {
  const { plain, verb, before, after, subject, marked, completed, earlierClauses } = frame;
  // 我这边只是根据记录整理了这份说明: the text the writer says it put together is this reply.
  if (subject === "first person" && COMPOSE.test(verb) && THIS_TEXT.test(after)) {
    return { agent: "none", reason: "the reply itself, named as what was written" };
  }
  // 看了您发来的账单截图: reading what the user sent in the conversation is no action of the task
  // (unless the sentence goes on to one: 看了你发来的清单，也登上跳板机确认了).
  if (READ.test(verb) && USER_SENT.test(after) && !/了/.test(after.replace(USER_SENT, ""))) {
    return { agent: "none", reason: "reading what the user sent" };
  }
  if (marked) return undefined;
  // 换了新 SIM 卡后显示“无服务”: the user's own step, told as the time of what they now see — its
  // 了 is part of the frame.
  if (subject === "left out" && !/已|刚/.test(before) && SYMPTOM_AFTER.test(after)) {
    return { agent: "user", reason: "the user's step before the symptom they see" };
  }
  if (completed) return undefined;
  // 麻烦提供一下订单号，我们转给专员核实: after a request to the user, a verb with no marker of its
  // own is what will follow once the user answers.
  if (earlierClauses.some((clause) => REQUEST.test(clause))) {
    return { agent: "none", reason: "the step that follows what the user is asked for" };
  }
  if (subject === "first person") return undefined;
  // 下周安排：周一补齐…，周五跟安全组过一遍…: under a label of time to come, steps of a plan.
  if (earlierClauses.some((clause) => FUTURE_PLAN.test(clause.replace(/\s+/g, "")))) {
    return { agent: "none", reason: "a step of a plan under a time to come" };
  }
  // 口头挂失立即生效, 次月生效: when a rule takes effect, not a change anyone made.
  if (verb === "生效" && TAKES_EFFECT_AFTER.test(before)) {
    return { agent: "none", reason: "when a rule takes effect" };
  }
  // 编辑短信发到 10086，或者在 App 里直接退订: ways offered side by side are the user's to choose.
  if (/或者|或是/.test(plain) && !/[了过]/.test(plain)) {
    return { agent: "user", reason: "one of the ways offered to the user" };
  }
  // 第一次接入时跑一遍…，把存量问题修掉: a step for the time a how-to names.
  if (earlierClauses.some((clause) => STEP_TIME.test(clause.trim()))) {
    return { agent: "user", reason: "a step for the time it applies" };
  }
  return undefined;
}
