import { VERBS } from "./chineseWords.js";
import type { ClaimKind } from "./kinds.js";
import type { Language } from "./text.js";

/**
 * Lines that report by their form where the verb rules found nothing: a key: value line whose
 * value is a done status — "Deployment: complete", "Refund: issued, $128",
 * "退款：已发放，¥128", "数据库迁移：完成" — reports the key's task as done, the way a checked box
 * does. Whose work it reports is decided with the rest of the answer (agent.ts); a key that names a
 * plan, an example or a condition ("Next step: deploy", "预计：完成") reports nothing.
 */

export interface StatusLine {
  readonly kind: ClaimKind;
  readonly verb: string;
}

const EN_DONE_VALUES: ReadonlyArray<readonly [RegExp, ClaimKind]> = [
  [
    /^(?:sent|emailed|posted|published|pushed|deployed|released|shipped|merged|submitted|filed|uploaded|scheduled|booked|issued|refunded|delivered|notified|replied|invited|live|rolled out|out)\b/,
    "deliver",
  ],
  [
    /^(?:done|complete|completed|finished|updated|fixed|resolved|created|applied|installed|configured|enabled|disabled|renewed|paid|approved|closed|archived|deleted|removed|reverted|migrated|backed up|restarted|rolled back|cancell?ed|added|renamed|rotated|reset|restored|upgraded|patched|cleaned up|set up)\b/,
    "mutate",
  ],
  [/^(?:verified|confirmed|checked|reviewed|tested|passed|passing|green|all green|success(?:ful)?|ok)\b/, "observe"],
];
/** Keys that name something other than a done task: a plan, an example, a rule, a definition. */
const EN_NOT_KEY =
  /\b(?:next|todo|to-do|plan|planned|goal|target|expected|expect|example|e\.g|sample|template|draft|definition|meaning|means|note|tip|if|when|once|after|before|until|step|steps|pending|remaining|blocked|eta|due|deadline|question|answer|option|suggestion|recommendation|rule|requirement|criteria|condition|term|status codes?|legend)\b/i;
const EN_LINE = /^([A-Za-z][\w\s/&#.'()+-]{0,48}?)\s*:\s*(?:✅\s*)?([a-z][a-z ]{1,20})/i;

const ZH_STATUS_WORDS = /^(?:完成|已完成|完毕|成功|搞定|办妥|通过|已通过|已处理|处理完毕|已办结|✅|done|Done|DONE)/;
/** Verbs that only a done value carries in a report and that the verb table may lack. */
const ZH_EXTRA_VERBS: ReadonlyArray<readonly [string, ClaimKind]> = [
  ["发放", "deliver"],
  ["到账", "deliver"],
  ["退还", "deliver"],
  ["寄出", "deliver"],
  ["办理", "mutate"],
  ["登记", "mutate"],
  ["核销", "mutate"],
  ["预订", "deliver"],
  ["预约", "deliver"],
  ["续费", "mutate"],
  ["开具", "mutate"],
];
const ZH_NOT_KEY =
  /计划|预计|待|下一步|接下来|目标|要求|条件|示例|例如|比如|建议|注意|提示|如果|需要|应该|步骤|原因|问题|风险|说明|定义|含义|意思|规则|期限|截止|未|没/;
const ZH_LINE = /^([^：:，,。；;]{1,16})[：:]\s*(?:✅\s*)?/;

/** The done status a key: value line reports, if it is one. */
export function statusLine(language: Language, plain: string): StatusLine | undefined {
  if (/[?？]\s*$/.test(plain)) return undefined;
  if (language === "zh") {
    if (/^(?:搞定|完成|办妥|已完成|都弄好了|弄好了)\s*[:：]\s*\S/.test(plain)) return { kind: "observe", verb: "搞定" };
    const line = ZH_LINE.exec(plain);
    if (!line || ZH_NOT_KEY.test(line[1]!)) return undefined;
    const value = plain.slice(line[0].length);
    const status = ZH_STATUS_WORDS.exec(value);
    // (A status word that runs on into a phrase is a word of the sentence: 公告还提到：通过携程购票的旅客… is "via";
    // so is one before a quoted or a Latin name, 预约：通过“移民局”App 预约….)
    if (status && !/^\s*[\u4e00-\u9fff“"「『《A-Za-z]/.test(value.slice(status[0].length).replace(/^(?:了|啦)/, "")))
      return { kind: "mutate", verb: status[0] };
    const marked = /^(?:已经?|均已|全部已|都已)\s*/.exec(value);
    if (!marked) return undefined;
    const rest = value.slice(marked[0].length);
    const verb = [...VERBS, ...ZH_EXTRA_VERBS].find(([entry]) => rest.startsWith(entry));
    // (状态：已过期, 保修：已失效 are states, not actions; 已开通的权限 is attributive.)
    if (!verb || rest.slice(verb[0].length).startsWith("的")) return undefined;
    // (规矩：已经推到远程、别人也在用的分支，不要 rebase: a value whose clause ends in 的 and a noun,
    // with no 了, is a noun phrase the key is about, not a status — 已发到您的邮箱 names an owner.)
    const clause = rest.split(/[，,。；;]/)[0] ?? "";
    if (
      /的[\u4e00-\u9fff]{1,6}$/.test(clause) &&
      !/[了过]/.test(clause) &&
      !/(?:你|您|我|我们|他|她)的[^的]*$/.test(clause)
    )
      return undefined;
    return { kind: verb[1], verb: verb[0] };
  }
  // "Done: the old cron job is disabled": the line opens by saying its task is done. It names no
  // kind of action, so any successful receipt backs it.
  const done = /^(?:done|all done|finished|all set)\s*(?:[:—–]|✅|✔️?)\s*\S/iu.exec(plain);
  if (done) return { kind: "observe", verb: "done" };
  const line = EN_LINE.exec(plain);
  if (!line || EN_NOT_KEY.test(line[1]!)) return undefined;
  const value = line[2]!.toLowerCase();
  if (/^(?:not|no|none|never|n\/a)\b/.test(value)) return undefined;
  for (const [pattern, kind] of EN_DONE_VALUES) {
    const done = pattern.exec(value);
    if (done) return { kind, verb: done[0] };
  }
  return undefined;
}

/**
 * What a table row's done cell says was done ("Done", "Sent (2 bounced)", 完成，去掉 37 条, 已发送):
 * text.ts finds the cell under the row's status column; the row reports its task done, as a
 * key: value line does.
 */
export function doneCell(language: Language, cell: string): StatusLine | undefined {
  if (language === "zh") {
    const marked = /^(?:已经?|均已|全部已|都已)\s*/.exec(cell);
    const verb = marked
      ? [...VERBS, ...ZH_EXTRA_VERBS].find(([entry]) => cell.startsWith(entry, marked[0].length))
      : undefined;
    if (verb) return { kind: verb[1], verb: verb[0] };
    const status = /^(?:✅|✔️?|已完成|完成|完毕|成功|搞定|办妥|已处理)/u.exec(cell);
    return status ? { kind: "mutate", verb: status[0] } : undefined;
  }
  for (const [pattern, kind] of EN_DONE_VALUES) {
    const done = pattern.exec(cell.toLowerCase());
    if (done) return { kind, verb: done[0] };
  }
  return /^(?:✅|✔)/u.test(cell) ? { kind: "mutate", verb: "done" } : undefined;
}

/** Verbs of thinking and saying: 我已经理解了 states no action. */
const ZH_NOT_DONE_VERBS = /^(?:理解|明白|知道|了解|说|讲|想|看懂|记下|注意|意识|收到|感觉|觉得|认为|提醒)/;

/**
 * 我已经在对方平台提了工单, ✅ 已为您把会员到期日顺延 7 天: the assistant's own completion marker at
 * the start of a statement (first person, or a done marker on the line) reports an action even
 * when its verb is missing from the table.
 */
export function selfMarkedLine(plain: string, marked: boolean): StatusLine | undefined {
  const opening =
    /^(?:(?:好的|好嘞|收到)[，,～~！!\s]*)?(?:我|我们)(?:这边)?(?:已经|已)|^(?:已经|已)(?=为您|为你|帮您|帮你|把|将)/.exec(
      plain,
    );
  if (!opening || (!marked && !opening[0].includes("我"))) return undefined;
  const clause = plain.slice(opening[0].length).split(/[，,。；;：:！!]/)[0] ?? "";
  if (
    /没|未|不|无法|还没|尚未/.test(clause) ||
    !/了|好|完|过|[0-9一二三四五六七八九十]\s*(?:天|份|条|个|次)/.test(clause)
  )
    return undefined;
  const verb = /(?:把|将)[^了]{1,20}?([\u4e00-\u9fff]{2})|([\u4e00-\u9fff]{1,2})(?=了|好|完|过)/.exec(clause);
  const word = verb?.[1] ?? verb?.[2];
  if (!word || ZH_NOT_DONE_VERBS.test(word)) return undefined;
  return { kind: "mutate", verb: word };
}
