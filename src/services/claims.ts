import type { ExecutionReceipt, ToolKind } from "../domain/index.js";

/**
 * A conservative detector of action claims in a final answer (seed §2.2, §4 Phase 3): it only
 * ever downgrades a run to `unverified`; it never triggers a tool.
 *
 * The rule: a sentence claims an action when it says, in the first person or in a completed
 * passive, that an action of this task *has been done* — present perfect ("I have sent", "I've
 * checked"), a simple past with an object of this conversation ("I updated the file", "I ran the
 * tests"), a completed passive ("the file has been updated", "was sent"), or a success marker
 * ("Successfully sent"). It is not a claim when the sentence is negated, conditional or about the
 * future ("I could not read", "I will send", "I can check"), or when it places the action outside
 * this task in time ("I read that paper last year", "years ago"). Chinese follows the same rule
 * with 已/已经/…了 markers and 未/没有/尚未/将/会 as negation or future.
 */

export type ClaimKind = "observe" | "mutate" | "deliver";

interface VerbEntry {
  readonly kind: ClaimKind;
  readonly en: ReadonlyArray<string>;
  readonly zh: ReadonlyArray<string>;
}

/** The one data table of claim verbs. `en` lists past/participle forms. */
export const CLAIM_VERBS: ReadonlyArray<VerbEntry> = [
  {
    kind: "observe",
    en: [
      "read",
      "checked",
      "verified",
      "inspected",
      "looked up",
      "looked at",
      "reviewed",
      "searched",
      "fetched",
      "opened",
      "queried",
      "confirmed",
      "examined",
      "scanned",
      "loaded",
    ],
    zh: ["读取", "检查", "查看", "核实", "验证", "确认", "查询", "搜索", "阅读", "打开", "检索"],
  },
  {
    kind: "mutate",
    en: [
      "updated",
      "written",
      "wrote",
      "modified",
      "edited",
      "changed",
      "created",
      "deleted",
      "removed",
      "fixed",
      "saved",
      "renamed",
      "installed",
      "ran",
      "run",
      "executed",
      "tested",
      "deployed",
      "applied",
      "migrated",
      "configured",
      "restarted",
      "patched",
      "added",
    ],
    zh: [
      "修改",
      "更新",
      "写入",
      "创建",
      "删除",
      "修复",
      "保存",
      "运行",
      "执行",
      "测试",
      "部署",
      "安装",
      "重启",
      "配置",
      "添加",
    ],
  },
  {
    kind: "deliver",
    en: [
      "sent",
      "published",
      "posted",
      "committed",
      "pushed",
      "uploaded",
      "delivered",
      "emailed",
      "messaged",
      "notified",
      "submitted",
      "shared",
      "forwarded",
      "replied",
    ],
    zh: ["发送", "发布", "提交", "推送", "上传", "通知", "转发", "回复", "发出", "投递"],
  },
];

export interface Claim {
  readonly kind: ClaimKind;
  readonly verb: string;
  readonly sentence: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const EN_NEGATION_OR_FUTURE =
  /\b(?:not|never|n't|cannot|can|could|couldn't|unable|failed to|will|won't|would|shall|should|going to|plan to|about to|need to|needs to|let me|try to|trying to|if|whether|please|once i|after i|before i|when i)\b/i;
const EN_OUTSIDE_TASK =
  /\b(?:last (?:year|month|week|time)|yesterday|years? ago|months? ago|in (?:college|school|the past)|as a (?:child|kid|student)|once upon|back then|previously in my life)\b/i;
const ZH_NEGATION_OR_FUTURE =
  /(?:未|没有|没|尚未|还没|无法|不能|不会|将|会|准备|打算|稍后|正在|如果|是否|请|需要|可以)/;
const ZH_OUTSIDE_TASK = /(?:去年|昨天|以前|多年前|小时候|上学时)/;

/** Past forms that are also imperatives ("Read the file", "Run the tests"). */
const IMPERATIVE_LOOKALIKES: ReadonlySet<string> = new Set(["read", "run", "looked at", "opened"]);

function buildEnglish(): ReadonlyArray<readonly [RegExp, ClaimKind, string]> {
  return CLAIM_VERBS.flatMap((entry) =>
    entry.en.map((verb) => {
      const v = escapeRegExp(verb).replace(" ", "\\s+");
      const pattern = new RegExp(
        [
          // I have / I've / we have (just|already|successfully) sent
          `\\b(?:i|we)(?:\\s+have|'ve)\\s+(?:just\\s+|already\\s+|now\\s+|successfully\\s+|also\\s+)*${v}\\b`,
          // I sent the / I updated your / I ran it
          `\\b(?:i|we)\\s+(?:just\\s+|already\\s+|successfully\\s+|also\\s+)*${v}\\s+(?:the|your|it|this|that|these|those|all|a|an|to|#|\\S+\\.(?:md|ts|js|py|json|ya?ml|txt|toml))`,
          // it has been sent / is now updated (a simple past passive — "was fixed in 3.2" — is often history, so it is left out)
          `\\b(?:has|have)\\s+(?:now\\s+|already\\s+|successfully\\s+)*been\\s+(?:successfully\\s+)?${v}\\b`,
          `\\b(?:is|are)\\s+now\\s+${v}\\b`,
          // Successfully sent / Done: sent
          `^(?:successfully|done[:,]?|all done[:,]?)\\s+${v}\\b`,
          // Sent the report … (subjectless past; "read"/"run" are left out: they read as imperatives)
          ...(IMPERATIVE_LOOKALIKES.has(verb)
            ? []
            : [`^(?:just\\s+|already\\s+)?${v}\\s+(?:the|your|it|this|that|these|those|all|a|an|to|#)\\b`]),
        ].join("|"),
        "i",
      );
      return [pattern, entry.kind, verb] as const;
    }),
  );
}

function buildChinese(): ReadonlyArray<readonly [RegExp, ClaimKind, string]> {
  return CLAIM_VERBS.flatMap((entry) =>
    entry.zh.map((verb) => {
      const v = escapeRegExp(verb);
      const pattern = new RegExp(`(?:已经?|已成功)${v}|(?:我|我们)(?:刚刚?|成功)?${v}(?:了|完毕|完成)|${v}成功`);
      return [pattern, entry.kind, verb] as const;
    }),
  );
}

const ENGLISH = buildEnglish();
const CHINESE = buildChinese();

export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？；;])\s*|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

/** The action claims a text makes, one per sentence at most. */
export function detectClaims(text: string): Claim[] {
  const claims: Claim[] = [];
  for (const sentence of splitSentences(text)) {
    const chinese = /[\u4e00-\u9fff]/.test(sentence);
    const table = chinese ? CHINESE : ENGLISH;
    // A verb's pattern can only match where the verb occurs: most sentences skip most patterns.
    const words = sentence.toLowerCase().replace(/\s+/g, " ");
    const hit = table.find(([pattern, , verb]) => words.includes(verb) && pattern.test(sentence));
    if (!hit) continue;
    const [pattern, kind, verb] = hit;
    const before = sentence.slice(0, sentence.search(pattern));
    if (chinese) {
      if (ZH_NEGATION_OR_FUTURE.test(before) || ZH_OUTSIDE_TASK.test(sentence)) continue;
    } else if (EN_NEGATION_OR_FUTURE.test(before) || EN_OUTSIDE_TASK.test(sentence)) {
      continue;
    }
    claims.push({ kind, verb, sentence });
  }
  return claims;
}

/** Which tool kinds' successful receipts can back a claim of each kind. */
const BACKED_BY: Record<ClaimKind, ReadonlyArray<ToolKind>> = {
  observe: ["observe", "mutate", "deliver"],
  mutate: ["mutate"],
  deliver: ["deliver"],
};

/** Claims with no successful receipt of a kind that could back them. */
export function unbackedClaims(
  claims: ReadonlyArray<Claim>,
  receipts: ReadonlyArray<ExecutionReceipt>,
  toolKinds: Readonly<Record<string, ToolKind>>,
): Claim[] {
  const okKinds = new Set(
    receipts.filter((receipt) => receipt.status === "ok").map((receipt) => toolKinds[receipt.toolName]),
  );
  return claims.filter((claim) => !BACKED_BY[claim.kind].some((kind) => okKinds.has(kind)));
}
