import type { Attribution } from "./agentContext.js";

/**
 * Chinese: completed-looking verbs whose own clause names who acted, and it is not the writer — a
 * third-person pronoun opening the clause (他在你的分支上提交了…, which a 你的 later in the clause
 * would otherwise make this task's object), the user's thing that granted the writer something
 * (你的共享日历对我只开放了只读权限: 我 is who received it), others of a kind (其他顾客都看在眼里),
 * someone of the user's own team (你们安全组的林悦已经调研过) and a step of the writer's that another party turned down (推送到 main 被拒绝了: the push did not
 * happen). Read in `chineseAgent` right after the named doers (chineseNamedDoers.ts).
 */

/** The verb's own clause: what stands after the last mark that closes one, asides in brackets taken out. */
const ownClauseOf = (before: string) =>
  (
    before
      .replace(/[（(][^（()）]*[)）]/g, "")
      .split(/[，,；;：:。！!？?]/)
      .at(-1) ?? ""
  )
    .replace(/\s+/g, "")
    // (5. 他在…: a list's number is no part of the clause.)
    .replace(/^(?:\d{1,2}[.、)）]|[-*•])/, "");

/** Words of sequence that may open the clause before its subject: 然后他…, 随后她…. */
const SEQUENCE = "(?:然后|随后|后来|接着|之后|同时|另外|最后|当时)?";
/**
 * A third-person pronoun as the clause's subject — not a possessive (他的 PR) nor the object of a
 * marker that comes before it (让他, 给他们).
 */
const PRONOUN_SUBJECT = new RegExp(`^${SEQUENCE}(?:他|她)们?(?!的|们|(?:那|这)边的)`);
/** The writer, or the one who serves the user, anywhere in the clause: then it may be the writer's step. */
const WRITER = /[我咱]|(?:帮|替|为)(?:你|您)/;

/** The user's thing, or the user, that gave the writer something: 你的共享日历对我只. */
const GRANTED_TO_ME = /^(?:你|您)(?:的[^我咱]{1,12})?(?:对|给|向)我们?(?:只|都|也|还|暂时)?$/;

/**
 * People of a kind as the subject: 其他顾客都, 别的同事也. (其余四个对象都已经通知到了: with 已 they are
 * whom the writer told.)
 */
const OTHERS_OF_A_KIND =
  /^(?:其他|其余|别的|其它)(?:的)?(?:人|顾客|客户|用户|买家|卖家|读者|观众|家长|同事|同学|员工|玩家|网友|商家|朋友)(?:都|也|均)?(?:会|能)?$/;

/**
 * Someone of the user's own team named as the subject (你们安全组的林悦上个季度已经调研过): the user's
 * colleague did it, not the writer.
 */
const USERS_COLLEAGUE =
  /(?:你们|您们|贵)[\u4e00-\u9fff]{0,6}(?:组|部|团队|科|处|中心|办)的[\u4e00-\u9fff]{2,3}(?:[上这前去昨今本][^，,。；;我咱]{0,6})?(?:也|都)?(?:已经?|早就|之前)?$/;

/** A step the writer tried that another party turned down (推送到 main 被拒绝了, 申请被驳回了). */
const TURNED_DOWN = /^(?:拒绝|驳回|拦截|退回|打回|拒)$/;

export function chineseClauseSubject(verb: string, before: string, after: string): Attribution | undefined {
  const clause = ownClauseOf(before);
  if (PRONOUN_SUBJECT.test(clause) && !WRITER.test(clause)) {
    return { agent: "third party", reason: "a third-person pronoun opens the verb's own clause" };
  }
  if (GRANTED_TO_ME.test(clause)) {
    return { agent: "user", reason: "the user's thing granted the writer something" };
  }
  if (OTHERS_OF_A_KIND.test(clause)) return { agent: "third party", reason: "others of a kind as the subject" };
  if (USERS_COLLEAGUE.test(clause) && !WRITER.test(clause)) {
    return { agent: "third party", reason: "someone of the user's team as the subject" };
  }
  // (我这边推送到 `main` 被拒绝了: 被 with no agent after it, then a refusal — someone else refused, and
  // the writer's own step did not take place.)
  if (TURNED_DOWN.test(verb) && /被\s*$/.test(before) && /^了/.test(after)) {
    return { agent: "third party", reason: "a step of the writer's that another party turned down" };
  }
  return undefined;
}
