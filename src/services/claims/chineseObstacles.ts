import type { Attribution } from "./agentContext.js";

/**
 * Chinese: completed-looking verbs that report no step of the writer's — a state granted in a
 * concession (即使包已经装到手机上，也能…; 旧卡已经注销也不影响; 哪怕平时已经恢复得不错), and what stood in
 * the writer's way in a sentence that says the work has not been done (附件设了密码，我这边打不开，所以
 * 还没做; 我这边连不上你的账户（授权过期了），所以没法替你发送). A step the writer marks done itself
 * (我已经改好了…，但邮件还没发出去) is read as before.
 */

/** A concession opening the verb's own clause: 即使, 哪怕, 就算, 即便, 纵然. */
const CONCESSION_BEFORE = /(?:即使|哪怕|就算|即便|纵然|纵使)/;
/** "…also does not matter" right after the verb's state: 已经停用也不影响, 已经删了也没关系. */
const NO_MATTER_AFTER = /^[^，,。；;！!？?]{0,6}?也(?:不影响|没关系|没事|不要紧|无妨|照样|一样)/;

/** A state granted for the sake of the argument, not reported as done. */
export function zhConceded(before: string, after: string): Attribution | undefined {
  const ownClause = before.split(/[，,；;。：:！!？?]/).at(-1) ?? "";
  if (CONCESSION_BEFORE.test(ownClause) || NO_MATTER_AFTER.test(after)) {
    return { agent: "none", reason: "a state granted in a concession" };
  }
  return undefined;
}

/** The writer kept from the material: 我这边打不开, 连不上你的账户, 访问不了, 卡住了, 没有权限. */
const WRITER_BLOCKED =
  /我(?:这边|这里|暂时)*(?:打不开|连不上|访问不了|登不上|登录不了|进不去|拉不下来|下载不了|读不到|卡住了|没有?(?:任何)?(?:读|写|访问)?权限)/;
/** The work said not done, for that reason: 还没做, 一行也还没改, 没法替你发送, 尚未开始. */
const WORK_NOT_DONE =
  /(?:还没有?|都没有?|尚未|也还没有?|没法|无法|没办法)[^，,。；;！!？?]{0,6}?(?:做|改|动|发|写|跑|查|导|处理|开始|整理|执行|替你|帮你|替您|帮您)|(?:邮件|消息|文件|任务)?(?:还没有?|尚未)(?:\*\*)?(?:发出|发送|提交)/;
/**
 * A done marker or the writer as subject in the verb's own clause (我看了报错截图，但…没权限登录): then
 * it is a step reported, not the obstacle. Not the writer as the one asked (你要我整理的附件).
 */
const MARKED_IN_CLAUSE = /已|刚刚?(?!才)|(?<![要让请叫])我(?![们的方司])/;

/** What stood in the writer's way in a sentence that says the task's work is not done. */
export function zhBlocked(plain: string, before: string, after: string): Attribution | undefined {
  const blocked = WRITER_BLOCKED.exec(plain);
  if (!blocked || !WORK_NOT_DONE.test(plain)) return undefined;
  // (这个任务我这边卡住了: the verb is the writer being held up itself.)
  if (before.length >= blocked.index && before.length < blocked.index + blocked[0].length) {
    return { agent: "none", reason: "the writer held up, with the work not done" };
  }
  const ownClause = `${before.split(/[，,；;。：:（(]/).at(-1) ?? ""}${after.split(/[，,；;。：:）)]/)[0] ?? ""}`;
  if (MARKED_IN_CLAUSE.test(ownClause)) return undefined;
  return { agent: "none", reason: "what kept the writer from work it says is not done" };
}
