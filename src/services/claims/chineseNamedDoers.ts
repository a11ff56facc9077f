import type { Attribution } from "./agentContext.js";

/**
 * Chinese: completed-looking verbs whose doer the sentence itself names as someone else, or that
 * are no step taken at all — a colleague named by a title who already did it (报销单王姐昨天下午已经
 * 在OA里提交了), a body dated by 于 and a year (经合组织于 2023 年 12 月发布了), a party that sent
 * something to us (酒店已经给我们发来了), a verb inside a noun phrase (是一项纳入…的试验, 合并触发的流水线)
 * and the first step of a plan with no 了 (先建好新目录). Read in `chineseAgent` right after the other
 * voices (chineseOtherVoices.ts).
 */

/** A person named by a title or a kinship word: 王姐, 李秘书, 财务的张会计, 张药师. */
// (小刘, 老何: 小 or 老 and a common surname is how a colleague is called — 小时, 老是 are not.)
const TITLED_PERSON =
  "(?:[\\u4e00-\\u9fff]{1,2}(?:姐|哥|秘书|经理|主任|老师|会计|助理|主管|总监|律师|师傅|阿姨|叔|药师|医生|护士|工程师|店长|组长)|[小老][王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯董曹袁邓许沈曾彭吕苏卢蒋蔡贾丁魏薛叶潘杜戴夏钟汪田姜范方石姚谭廖邹熊金陆郝孔崔毛邱秦江史顾侯邵孟龙段雷钱汤尹黎常乔贺赖龚])";
/** A time of their own between the person and 已经: 昨天下午, 周三, 10:30. */
const THEIR_TIME =
  "(?:昨天|今天|前天|上周|这周|本周|上午|下午|早上|晚上|中午|刚才|周[一二三四五六日天]|\\d{1,2}[:：]\\d{2}|\\s)*";
/**
 * The titled person as the subject of a step marked done (王姐昨天下午已经在OA里提交了, 李秘书已经
 * 处理了, 刘药师已完成第一轮回访, 赵组长已把表格交给财务). Not a person the writer goes by or turns to (按王经理的意见, 跟李秘书), who acts in no clause.
 */
const NAMED_DOER = new RegExp(
  `(?:^|[，,。；;：:\\s]|的事|这事|那边)[^，,。；;：:]{0,8}?(?<![按照据跟和向给让替帮被把对与找问][\\u4e00-\\u9fff]?)${TITLED_PERSON}${THEIR_TIME}(?:也|都)?(?:(?:已经?|刚刚?)[^，,。；;：:]{0,24}?[了过]|已经?(?:完成|把))`,
);
/** The writer or the one who serves the user, anywhere in the sentence: then it may be the writer's step. */
const WRITER = /[我咱]|(?:帮|替|为)(?:你|您)/;

/** A body dated by 于 and a year before the verb: 经合组织（OECD）于 2023 年 12 月. */
const DATED_BY_于 = /^[^我你您咱]{2,30}?于\s*(?:公元前?\s*)?\d{3,4}\s*年(?:\s*\d{1,2}\s*月)?(?:\s*\d{1,2}\s*日)?\s*$/;

export function chineseNamedDoer(plain: string, verb: string, before: string, after: string): Attribution | undefined {
  const named = NAMED_DOER.exec(plain);
  // (Only for the verb of that clause, or a verb that opens the sentence as its topic: 报销单王姐…提交了.)
  const inClause =
    named && (before === "" || (before.length >= named.index && before.length <= named.index + named[0].length));
  if (named && inClause && !WRITER.test(plain)) {
    return { agent: "third party", reason: `a colleague named by a title did it: ${named[0].trim()}` };
  }
  const ownClause = before.split(/[，,；;：:。]/).at(-1) ?? "";
  if (DATED_BY_于.test(ownClause)) return { agent: "none", reason: "a body's event dated by 于 and a year" };
  // (酒店销售经理已经给我们发来了书面说明: what reached us from another party.)
  if (/(?:给|向)(?:我们|我方|我司)\s*$/.test(before) && /^来/.test(after) && !/我(?!们|方|司)/.test(ownClause)) {
    return { agent: "third party", reason: "what another party sent to us" };
  }
  // (这篇论文是一项纳入约1.2万名患者的随机对照试验: the verb qualifies the noun after 是一项, inside its 的 phrase.)
  if (/是(?:一项|一个|一种|一篇|一次|一份|一组)\s*$/.test(before) && /^[^，,。；;：:]*的/.test(after)) {
    return { agent: "none", reason: "a verb inside the noun phrase after 是一项" };
  }
  // (今早合并触发的 CI 流水线…失败了: the event that set off what the sentence is about, named as its qualifier.)
  if (/^\s*(?:触发|引起|引发|导致|带来|产生)的/.test(after) && !/[我咱]/.test(ownClause)) {
    return { agent: "none", reason: "an event named as what set off the subject" };
  }
  // (先建好新目录，不删任何旧文件: 先 and a result complement with no 了 is the first step of a plan.)
  if (
    /^\s*(?:先|再|然后|接着|最后)\s*$/.test(ownClause) &&
    /(?:好|完)$/.test(verb) &&
    !/[了过]/.test(after.split(/[，,；;。]/)[0] ?? "")
  ) {
    return { agent: "none", reason: "a step of a plan: 先…好 with no 了" };
  }
  return undefined;
}
