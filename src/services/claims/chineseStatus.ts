import { blocks, type Clause, MEETING, someoneElse, verbAt } from "./chineseWords.js";
import type { ClaimKind } from "./kinds.js";
import {
  ZH_ADVICE,
  ZH_BARE_AFTER_NOT,
  ZH_BARE_VERBS,
  ZH_DONE_BEFORE,
  ZH_DONE_ID,
  ZH_PASTED,
  ZH_STATUS_END,
  ZH_TOPIC_NOT,
  ZH_UNMARKED_NOT,
} from "./lexicon.zh.js";

/**
 * Chinese clauses that report with no completion marker: a status after the task's object
 * (派单完成, 热加载成功), a bare verb of the table after its topic (网关路由删除, 推到 Harbor), and a
 * verb-first line whose identifier only a done action produces (续费…，订单号 …).
 */

export interface ChineseMatch {
  readonly kind: ClaimKind;
  readonly verb: string;
}

/** The kind of the first verb of the table in a clause, or `mutate`. */
export function kindIn(words: ReadonlyArray<string>): ClaimKind {
  for (let at = 0; at < words.length; at++) {
    const found = verbAt(words, at);
    if (found) return found.kind;
  }
  return "mutate";
}

/**
 * Whether a clause with no completion marker may report by its status or a bare verb: not with a
 * marker of its own (the main rule decided), with no blocker (知会 and 评审会 hold 会 as a word
 * part), nor a rule, time, condition or interpretation word.
 */
export function unmarkedReport(words: ReadonlyArray<string>, text: string): boolean {
  // (成功 at the end is the status itself: 热加载成功.)
  if (words.slice(0, -1).some((word) => ZH_DONE_BEFORE.has(word) || /^[已刚]/.test(word))) return false;
  const blocker = words.some(
    (word, at) =>
      (blocks(word) && !(word === "会" && at > 0 && MEETING.test(words.slice(Math.max(0, at - 3), at).join("")))) ||
      /^(?:将|再|去|每)$/.test(word),
  );
  return !blocker && !ZH_UNMARKED_NOT.test(text.replace(/知会/g, "")) && !words.includes("自动");
}

/**
 * 派单完成, 热加载成功, 核对无误, Issue 开好, 缺的测试补上: a clause that ends in a completion
 * status after the task's object (a topic) reports it done.
 */
export function statusClaim(
  words: ReadonlyArray<string>,
  text: string,
  intro: boolean,
): ChineseMatch | "other" | undefined {
  // (发票真伪查验通过（国家税务总局查验平台）: a parenthesis after the status is an aside.)
  const status = ZH_STATUS_END.exec(text.replace(/[（(][^（()）]*[）)]$/, ""));
  if (!status || status.index === 0 || !unmarkedReport(words, text)) return undefined;
  // 内容改成：, 在 package.json 里加上：: an intro to what to write; deploy 完成：… still reports.
  if (intro && !/^(?:完成|完毕|成功|办妥|搞定)/.test(status[0])) return undefined;
  if (ZH_TOPIC_NOT.test(text.slice(0, status.index))) return undefined;
  if (someoneElse(words, words.length)) return "other";
  return { kind: kindIn(words), verb: status[0] };
}

/**
 * 网关路由删除, 文案修改合入 release, 推到 Harbor, 行程单打包发您邮箱: a topic, then a bare
 * verb of the table that ends its clause or leads to a destination (到/进/入/成/给/您) — a report
 * of the task's object, which a capability (支持一键发送) or a rule (录入截止到…) is not.
 */
export function bareVerbClaim(words: ReadonlyArray<string>, text: string): ChineseMatch | "other" | undefined {
  if (!unmarkedReport(words, text)) return undefined;
  for (let at = 1; at < words.length; at++) {
    const found = verbAt(words, at);
    if (!found || found.kind === "observe") continue;
    const { verb, kind, after } = found;
    // (通知销售团队停止在旧系统录入: a clause that opens with a verb is an instruction or a plan.)
    if (verbAt(words, 0)) return undefined;
    const topic = words.slice(0, at).join("");
    if (!/[\p{L}\p{N}]/u.test(topic)) continue;
    // (清洗并导入新 CRM: a topic that ends in 并/和 is a first verb, not an object; so is one that
    // ends in 或 — 请您核对扣款记录，或联系您的发卡银行 offers a second step to choose instead.)
    if (ZH_TOPIC_NOT.test(topic) || /[并和及再或]$|或者$/.test(topic)) return undefined;
    // (保留两条分支原本的提交: a verb right after 的 is the head of a noun phrase — the commits — not a report.)
    if (/的$/.test(topic)) continue;
    const ends = !/[\p{L}\p{N}]/u.test(after) && ZH_BARE_VERBS.has(verb);
    const destination =
      (/[到进入至给成]$/.test(verb) && after !== "") ||
      /^[到进入至给成][^了过]/.test(after) ||
      (kind === "deliver" && /^[你您]/.test(after));
    if (!(ends || destination) || ZH_BARE_AFTER_NOT.test(after)) continue;
    if (someoneElse(words, at)) return "other";
    return { kind, verb };
  }
  return undefined;
}

/**
 * 续费阿里云 ECS 一年，订单号 2234019847712 / 给房东转 ¥6,500，招行流水号 2024…: a sentence that
 * opens with a bare verb of the table and gives the identifier only its being done produces
 * reports it; without such an id a verb-first clause reads as an instruction and is left alone.
 */
export function evidencedReport(clauses: ReadonlyArray<Clause>): ChineseMatch | undefined {
  const first = clauses[0]?.words ?? [];
  const text = clauses.map((clause) => clause.words.join("")).join("，");
  if (!ZH_DONE_ID.test(text) || ZH_ADVICE.test(text) || ZH_PASTED.test(text)) return undefined;
  // (给房东钱多多转…, 为阿姨周红添加…: the verb after a recipient of 给/为.)
  const start = /^(?:给|为|帮|替)$/.test(first[0] ?? "") ? first.findIndex((_, at) => at > 0 && verbAt(first, at)) : 0;
  const found = start >= 0 ? verbAt(first, start) : undefined;
  if (!found || found.kind === "observe" || !unmarkedReport(first, first.join(""))) return undefined;
  return { kind: found.kind, verb: found.verb };
}
