import type { ClaimKind } from "./kinds.js";
import {
  CHINESE_VERBS,
  ZH_BLOCKERS,
  ZH_DONE_AFTER,
  ZH_DONE_BEFORE,
  ZH_FAILED_AFTER,
  ZH_FIRST_PERSON,
  ZH_OTHER_SUBJECTS,
  ZH_OUTSIDE_TASK,
} from "./lexicon.zh.js";

/**
 * Chinese: a clause claims an action when a verb of the table is marked completed — by a marker
 * before it (已/已经/刚/都 …, with 把/将/被 + object in between) or a complement after it
 * (了/过/好/完/掉/完毕/成功/出去 …), or by a clause-final 了 after 把/将 — and nothing in its
 * clause before the verb negates it, puts it in the future or a condition, or names someone else
 * as its subject. A verb followed by 的 is attributive (已发布的版本), not a statement.
 */

export interface ChineseMatch {
  readonly kind: ClaimKind;
  readonly verb: string;
}

const wordSegmenter = new Intl.Segmenter("zh", { granularity: "word" });

/** Verbs longest first, so 提交到本地 wins over 提交 and 发送 over 发. */
const VERBS: ReadonlyArray<readonly [verb: string, kind: ClaimKind]> = (["observe", "mutate", "deliver"] as const)
  .flatMap((kind) => CHINESE_VERBS[kind].map((verb) => [verb, kind] as const))
  .sort((a, b) => b[0].length - a[0].length);

const CLAUSE_BREAK = /^[，,；;：:。！!、…]+$|^(?:但|但是|不过|然后|并且|而且|同时|接着|另外|所以|因此|而|可是|只是)$/;
/** A verb inside a longer word counts only when the rest of the word is its complement (改了, 推上). */
const COMPLEMENT_START = /^(?:了|过|好|完|掉|上|出|到|下|去|成|给|进|回|齐)/;
/** Common surnames: "张三已经回复了" has someone else as its subject. */
const SURNAME =
  /^(?:小|老)?[张王李赵刘陈杨黄周吴徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦方白邹孟熊秦邱江尹薛段雷侯龙史陶黎贺顾毛郝龚邵万钱严武戴莫孔向汤][\u4e00-\u9fff]{1,2}$/;

function clausesOf(plain: string): string[][] {
  const clauses: string[][] = [[]];
  for (const { segment } of wordSegmenter.segment(plain)) {
    const word = segment.trim();
    if (word === "") continue;
    if (CLAUSE_BREAK.test(word)) {
      if (clauses.at(-1)!.length > 0) clauses.push([]);
      continue;
    }
    clauses.at(-1)!.push(word);
  }
  return clauses.filter((clause) => clause.length > 0);
}

/** The verb that starts at segment `at`, with the text after it in the clause. */
function verbAt(
  clause: ReadonlyArray<string>,
  at: number,
): { verb: string; kind: ClaimKind; after: string } | undefined {
  const segment = clause[at]!;
  const rest = clause.slice(at).join("");
  for (const [verb, kind] of VERBS) {
    if (!rest.startsWith(verb)) continue;
    if (segment.length > verb.length && !COMPLEMENT_START.test(segment.slice(verb.length))) continue;
    return { verb, kind, after: rest.slice(verb.length) };
  }
  return undefined;
}

function someoneElse(clause: ReadonlyArray<string>, before: number): boolean {
  const subject = clause[0]!;
  if (ZH_FIRST_PERSON.has(subject)) return false;
  if (ZH_OTHER_SUBJECTS.has(subject) || (SURNAME.test(subject) && before > 0)) return true;
  return false;
}

function clauseClaim(clause: ReadonlyArray<string>, marked: boolean): ChineseMatch | undefined {
  let doneBefore = false;
  for (let at = 0; at < clause.length; at++) {
    const word = clause[at]!;
    if (ZH_DONE_BEFORE.has(word)) {
      doneBefore = true;
      continue;
    }
    // 将 is the future (我将发送) unless a completion marker comes first (已将邮件发送).
    if (ZH_BLOCKERS.has(word) || (word === "将" && !doneBefore)) return undefined;
    const found = verbAt(clause, at);
    if (!found) continue;
    const { verb, kind, after } = found;
    if (after.startsWith("的") || ZH_FAILED_AFTER.test(after)) continue;
    const complement = ZH_DONE_AFTER.exec(after);
    if (complement && after.slice(complement[0].length).startsWith("的")) continue;
    const disposal = clause.slice(0, at).some((w) => w === "把" || w === "将" || w === "被");
    const finalLe = clause.at(-1) === "了" || clause.at(-1)!.endsWith("了");
    if (!(doneBefore || complement || (disposal && finalLe) || marked)) continue;
    if (someoneElse(clause, at)) return undefined;
    return { kind, verb };
  }
  return undefined;
}

/** The action a Chinese sentence claims, if any. */
export function chineseClaim(plain: string, marked: boolean): ChineseMatch | undefined {
  if (/[?？]\s*$|吗\s*[。.]?\s*$/.test(plain) || ZH_OUTSIDE_TASK.test(plain)) return undefined;
  for (const clause of clausesOf(plain)) {
    const found = clauseClaim(clause, marked);
    if (found) return found;
  }
  return undefined;
}
