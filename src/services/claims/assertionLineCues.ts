/**
 * The cues that tell which lines of an answer can carry an assertion (assertionLines.ts reads them):
 * fences, list markers, checkboxes and status emoji, done and not-done table cells, the openings
 * and titles of drafts, letters, samples and others' words, table columns that relay, define or
 * own their rows, and the headings that label a how-to's cases. Patterns and small tests only; the
 * order in which they keep or drop a line is `assertionLines`.
 */

export const FENCE = /^\s*(```|~~~)/;
export const DONE_EMOJI = /^(?:✅|✔️?|☑️?|🟢|🚀|🎉|👍)\s*/u;
/** "Done —", "All done:", "Done ✅" opening a line. */
export const DONE_OPENER = /^(?:done|all done|all set)\s*(?:[:—–]|✅|✔️?)\s*\S/iu;
/** Any other leading emoji is decoration (📬 Email sent…). */
export const OTHER_EMOJI = /^\p{Extended_Pictographic}\uFE0F?\s*/u;
export const NOT_DONE_EMOJI = /^(?:⏳|🔜|❌|⚠️?|🔴|🟡|⏸️?|🚧|📝|❓|🤔|💡|👉|➡️?)\s*/u;
export const CHECKED = /^\[[xX✓]\]\s*/;
export const UNCHECKED = /^\[\s\]\s*/;
export const LIST_MARKER = /^(?:[-*+•·]|\d+[.)、]|[a-z][.)])\s+/;
// (Chinese: the tail is punctuation or symbols only — 完成登录页改版 is a task that names 完成, not a
// done cell; English: a done word opens the cell — "Sent 10:14", "Done — issued to your card".)
export const DONE_CELL =
  /^(?:(?:done|completed?|finished|sent|shipped|deployed|merged|fixed|resolved|issued|approved|refunded|published|posted|submitted|booked|scheduled|cancell?ed|installed|uploaded|delivered|paid|closed|applied|renewed|rotated|restored|migrated|archived|removed|deleted)\b(?![- ](?:by|for|when|if|once|after)\b)(?! (?!this\b|was\b|has\b|his\b|as\b)[a-z]{2,}s\b)|(?:✅|✔️?|已完成|完成|已发送|已提交|已修复|已部署|已上线|搞定)[\s\p{P}\p{S}]*$|已(?!被|经被|由|经?(?:过期|失效|满|超|到期|逾期|售罄|停产|下架))[\u4e00-\u9fff]{2}(?!的)|^[\u4e00-\u9fff]{0,6}(?<![未没不])(?:成功|完成|完毕|搞定|办妥)[\s\p{P}\p{S}]*$)/iu;

/** A status cell that says it has not happened, with an aside allowed ("Blocked (needs OTP)"). */
export const NOT_DONE_CELL =
  /^(?:not started|to ?do|pending|planned|open|in progress|blocked|waiting|tbd|n\/a|—|-|⏳|❌|未开始|待办|待处理|进行中|未完成|未发送|计划中|阻塞)[\s\p{P}\p{S}]*(?:[(（][^)）]*[)）][\s\p{P}]*)?$/iu;

/**
 * A line that introduces content written for the user (a draft, a template, a sample): what
 * follows it is the reply's content, not the assistant's report, up to the closing remark.
 */
// (按你给的要点整理了一版，你看看：: a version the writer put together is the text shown under it.)
export const CONTENT_INTRO =
  /(?:\b(?:draft|template|sample|example|suggested|suggestion|version|option [a-z1-9]|wording|poem|haiku|limerick|verse|story|joke|translation|translated|rewrite|rewritten|macro|canned|boilerplate|reusable|plan|next steps|to-?do|message you can|text you can|in your (?:voice|name)|reply you can|(?:you|they|he|she) (?:can|could|might|may) (?:post|send|paste|use|copy|adapt|forward|submit|file|sign|print|share|email|read out|say|give|hand in|reply with|respond with)|for you to (?:post|send|paste|use|copy|submit|sign|share)|something like|(?:a|one|the) (?:format|layout|structure|table|setup) like this)\b|\bhere(?:'s| is) (?:a|an|your|one)\s+(?:[\w-]+\s+){0,3}?(?:email|e-mail|message|letter|reply|response|complaint|note|post|announcement|memo|bio|script|speech|toast|caption|tweet|review|apology|invitation|notice|statement|introduction|pitch|agenda|appeal|cover letter|description|text)\b|草稿|稿|(?:整理|写|拟|改|排|做)(?:了|好了?|出)?(?:一|两|新)版|模板|示例|范文|范例|照着|(?<![按照依原])计划|待办|下一步|接下来|方案|思路|步骤|需要(?:更新|修改|调整|补充|处理)的(?:点|地方|内容|项)|纪要|起草|文案|话术|发布说明|更新日志|可以直接(?:贴|发|用|复制)|可以(?:这样|这么|如下)(?:写|回复|说|回)|(?:参考|参照)(?:下面|以下|这)|下面这(?:封|段|条|篇)|的[\u4e00-\u9fff]{0,6}(?:邮件|短信|通知|公告|信|致辞|声明)|供你|供您|给(?:你|您)(?:挑|选)|备选|候选|(?:搭|列|拟)了?(?:一)?个(?:框架|大纲|提纲)|诗|翻译|译文|(?:你|您)的口吻|以(?:你|您)的名义|你可以(?:直接)?(?:发|用|贴|复制|提交)|您可以(?:直接)?(?:发|用|贴|复制|提交))[^\n]*[:：]\s*$/i;

/**
 * A heading that titles what follows as a draft, a template or a sample ("## Release notes — 4.2
 * (draft)", "**Weekly update template**", "## 周报草稿"): the document under it is written for the
 * user, its "Fixed" and "Sent" are its own words, up to the closing remark.
 */
const DRAFT_HEADING = /^(?:#{1,6}\s+(.+)|\*\*([^*]+)\*\*\s*[:：]?)$/;
const DRAFT_TITLE =
  /[(（](?:draft|template|sample|example|草稿|初稿|模板|范文|示例)(?:\s+(?:for|of|to)\s[^()（）]{1,40})?[)）]|\b(?:draft|template|sample)(?:\s+v?\d+)?\s*$|^(?:draft|template|sample)\b(?!\s+(?:pr|pull|release|mode|status|order)\b)|草稿|初稿|模板|范文/i;

/**
 * A line that opens by offering a template, a sample or a draft ("Here's a weekly status update
 * template. The example bullets…", "Sure — here's a postmortem draft…"): what follows is that
 * sample, colon or not.
 */
export const SAMPLE_OPEN =
  /^(?:(?:sure|ok|okay|of course|absolutely|certainly|happy to help)\s*[!,.—–-]*\s*)?(?:here(?:'s| is) (?:a|an|one)\s+(?:[\w-]+\s+){0,4}?(?:template|sample|skeleton|boilerplate|draft)\b(?! (?:i|we) (?:sent|used|filed|posted|submitted))|(?:这是|下面是|以下是)(?:一份|一个|一套|一段)?[^，。！？]{0,12}(?:模板|样例|范例|范文)(?![^。！？]{0,8}(?:我|已)))/i;

/**
 * A letter inside an answer (not its first line) or an email that opens with its subject line: its
 * greeting opens content written for the user to send, whose "I" and "we" are the user's, up to
 * the sign-off and the name under it.
 */
// (A greeting to a placeholder, "Hi {first_name},", opens a template wherever it stands.)
// (A press release opens with its release line, and an announcement greets its readers — 亲爱的用户们：,
// 各位玩家： — never the one the assistant answers: what follows is the document, with its "we".)
export const LETTER_OPEN =
  /^for immediate release\b|^亲爱的[^。！!？?，,]{1,20}[:：，,]\s*$|^各位[^。！!？?，,]{0,12}[:：]\s*$|^dear\s[^!?]{1,60}[,:：]\s*$|^(?:hi|hello|hey|dear)\s+[{[<][^}\]>]{1,30}[}\]>][,:]?\s*$|^to whom it may concern[,:：]?\s*$|^尊敬的[^。！!？?]{1,30}[:：，,]\s*$|^(?:subject|邮件主题|主题)\s*[:：]\s*\S/i;
export const SIGN_OFF =
  /^(?:best|best regards|kind regards|warm regards|warmly|regards|sincerely|yours sincerely|yours faithfully|yours truly|many thanks|thanks|thank you|thanks again|cheers|respectfully|此致|敬礼|顺颂商祺|祝好|顺祝商祺|谢谢|感谢|多谢)[,，!.。！]?\s*$/i;

/**
 * A heading that sums up what was done (改动摘要：, 本次改动, Changes made:): the list under it
 * reports done items even without a marker, as a checked list does.
 */
export const DONE_SUMMARY =
  /^(?:本次|这次|主要)?(?:改动|变更|修改|已完成|完成|已做|处理)(?:摘要|内容|清单|情况|事项|如下|说明)?\s*[:：]?$|^(?:本次|这次)?(?:清理|处理|执行|操作|巡检|迁移|部署|排查|修复)结果\s*[:：]?$|^(?:changes made|what i (?:changed|did)|what i've done(?: so far)?|summary of changes|done so far|completed so far|what's done(?: so far)?)\s*:?$/i;

/**
 * A line that introduces someone else's actions — what a pasted commit or a relayed person did, a
 * source the user pasted (你贴的这个提交主要做了三件事：, 律师已经做了的事：, 以下都是老张处理的：, "History, from the
 * CHANGELOG you pasted") — so the list under it is theirs, not the assistant's report.
 */
// (A heading that asks what someone else did — PR #301 做了什么, 这次升级改了哪些 — titles their work.)
// (行政的王姐回复了会议室的事：: a party who replied hands the list under it to them too.)
// (他做了这几件事：, 他们说明的情况如下：: the steps a third person took, counted with 这 or 那, and
// what they told, are theirs.)
// (俱乐部今天中午发了官方声明，要点是：, 以下是值班同事在交接文档里记录的情况：: a line that names who
// sent a statement or kept a record hands the list under it to them.)
export const OTHERS_INTRO =
  /(?:做|改|干|动|变)了(?:些)?(?:什么|哪些)(?:内容|东西|地方)?\s*[?？]?\s*[:：]?\s*$|(?:你|您)(?:贴|转述|发来|转发)的[^：:]{0,40}(?:做了|改了|包括|内容)[^：:]{0,12}[:：]\s*$|(?:已经)?做了的事\s*[:：]\s*$|做了[一二三四五六七八九十两几\d]+件事\s*[:：]\s*$|(?:他|她|他们|她们|对方)(?:说明|介绍|反馈|描述|提供|讲|说|写)的(?:情况|内容|经过|信息|过程)(?:如下)?\s*[:：]\s*$|(?:他|她|他们|她们|对方)(?:还|也|先后|一共|总共)?做了(?:这|那)[一二三四五六七八九十两几\d]+件事(?:情)?\s*[:：]\s*$|以下(?:都是|是|均为|均由|都由|由)[^：:]{1,12}(?:处理|做|完成|操作|负责|办)的?\s*[:：]\s*$|\b(?:from|in|of) (?:the|your) [\w\s.-]{0,40}?you (?:pasted|shared|sent|forwarded|attached)\b|\bwitness statements?\b|\bwhat (?:he|she|they|the \w+) (?:did|has done|have done)\b|\bwhat (?:people|everyone|he|she|they|(?:the|your) [\w-]+(?: [\w-]+){0,3}?) (?:said|told you|told us|wrote|posted|reported)\b[^:]{0,80}:\s*$|^(?:根据|按照|据|从)[^：:。]{1,40}?(?:记录|文档|文件|报告|公告|通告|通报|纪要|页面|状态页|日志|邮件|群聊|聊天记录|复盘)(?:[^：:。已]{0,20})[:：]\s*$|(?:他们|她们|他|她|对方|厂商|官方|供应商|[\u4e00-\u9fff]{1,6}(?:那边|方面))(?:已经|已|这边|那边)?(?:做|处理|完成|采取)了?的(?:事情?|处理|工作|操作|措施)?\s*[:：]?\s*$|(?<![我咱你您])(?:发了|发布了|给了|出了|回了|发来了?|贴了)[^：:。我]{0,10}(?:声明|公告|通知|通告|回复|答复|说明|反馈|邮件|消息|通报)[^：:。我]{0,12}[:：]\s*$|(?<![我咱你您])(?:回复|答复|回应|反馈)了[^：:。我]{0,16}[:：]\s*$|以下(?:是|为)[^：:。我]{1,30}(?:记录|写|说|反馈|汇报|报告|提供|转达)的[^：:。我]{0,8}(?:[，,]\s*)?(?:[:：]\s*$|$)|\bas (?:[\w'-]+\s+){1,2}(?:relayed|reported|described|summari[sz]ed|recounted|told|explained|presented) (?:it|them|this)\s*:\s*$|\b(?:is|are|was|were) (?:usually|commonly|often|typically|generally|traditionally|normally) (?:told|described|recounted|presented|explained|summari[sz]ed)\s*:\s*$|\b(?:makes?|made|raises?|raised|sets? out|lists?|listed|outlines?|outlined) (?:the following|these|(?:two|three|four|five|six|several|a few) (?:main |key )?)\s*(?:points|claims|arguments|reasons|findings|observations|concerns)?\s*:\s*$/i;
/** 我帮你整理了一下：, 我摘了要点：: the writer putting others' words into this reply, at the intro's end. */
// (我把她的话整理一下：: the words arranged may be named, as someone's.)
export const ZH_ARRANGED_FOR_READER =
  /[，,]\s*我(?:帮你|帮您|给你|给您)?(?:把(?:他|她|他们|她们|对方)(?:的话|说的|的回复|的意思|的说法|的原话))?(?:整理|梳理|捋|理|摘|归纳|汇总)了?(?:一下|要点|重点)?\s*[:：]\s*$/;
export const NAMES_SELF = /我|咱|\b(?:I|we|my|our)\b/;
/** A label before a colon that names a template, a draft or a sample written on the same line. */
export const CONTENT_LABEL =
  /^(?:[^：:，,。\s]{0,10}(?:模板|草稿|范文|样例|示例|文案|话术)|(?:[A-Za-z-]+\s+){0,2}(?:template|sample))\s*[：:](?=\s*\S)/i;
/** A label before a colon that names a message in words (道歉短信：, 自我介绍：), on the same line. */
export const MESSAGE_LABEL =
  /^[^：:，,。\s]{0,10}(?:短信|消息|留言|私信|邮件|回复|开场白|致辞|自我介绍|道歉信|感谢信)(?:草稿|初稿)?\s*[：:](?=\s*\S)/;
/** A Chinese message that opens by addressing its reader (面试官您好，, 【小店】王女士您好，, 亲，, 尊敬的). */
export const ADDRESS_OPEN =
  /^\s*(?:【[^】\n]{1,20}】\s*)?(?:[^，,。：:！!\s]{0,8}(?:您好|你好|大家好)|亲[，,！!]|尊敬的|亲爱的|各位|[\u4e00-\u9fff]{1,3}(?:老师|先生|女士|阿姨|叔叔|经理)[，,！!])/;
/** The sender's name in 【】 that opens a Chinese text message: 【某某生鲜】. */
export const SENDER_TAG = /^\s*【[^】\n]{1,20}】/;
/** A sender in 【】, then a greeting to the readers: a notice or a text message itself. */
export const SENDER_NOTICE = /^\s*【[^】\n]{1,20}】\s*(?:亲爱的|尊敬的)/;

/** A participle, then a bare noun and at most one more word (and ", explained"): a topic's title. */
export const PARTICIPLE_TITLE =
  /^[A-Z][a-z]+(?:ed|en)\s+(?!(?:the|a|an|to|in|on|at|for|from|with|by|into|onto|and|or|all|it|them|this|that|these|those|our|your|my|his|her|their|its|up|out|off|down|back|over|as|successfully)\b)[a-z][\w-]*(?:\s+[a-z][\w-]*)?(?:,\s+[a-z]+)?$/;

/**
 * A column that defines or sets a condition (Done when, Guarantee, Meaning, 标准): a done word in its
 * cells says what a term means or when a step counts as done, not that anything was done.
 */
// (Purpose, Rating, 评价: so does one that says what a row is for or grades it — "Complete and dry",
// ✅ 主线，没问题 — where a done word or a tick is the verdict, not a report; and one that asks
// whether a row can or does something — 能否用索引, "Supported" — where a tick answers yes.)
// (Full name, 全称: a column of names holds what things are called — Delivered at Place — not what
// anyone did.)
export const DEFINING_COLUMN =
  /\b(?:when|criteria|criterion|guarantees?|definition|meaning|means|description|goal|target|expected|conditions?|rule|semantics|behaviou?r|purpose|used for|role|rating|verdict|assessment|evaluation|grade|score|can|whether|supported|compatible|(?:full |long )?names?|stands for|abbreviation|acronym|expansion|term)\b|全称|名称|标准|条件|含义|定义|目标|预期|用途|作用|评价|评估|评分|点评|打分|能否|可否|能不能|是否(?:支持|可用|生效|兼容|适用|命中|走索引|用到)/i;

/** An intro that gives the status of what it lists: "status so far:", "progress to date:", 目前进度：. */
export const STATUS_INTRO =
  /\b(?:status|progress)(?:\s+(?:so far|to date|update|as of))?\s*[:：]\s*$|\bso far\s*[:：]\s*$|(?:进度|进展)\s*[:：]\s*$/i;

/**
 * A column that gives someone else's account of each row ("Status per Marek", 厂商给的状态): its done
 * cells are theirs, not the writer's report.
 */
export const RELAYED_COLUMN =
  /\b(?:per|according to|(?:as )?reported by|from)\s+(?!me\b|us\b)\S|(?:据|根据)[^|]{1,12}|(?:他|她|他们|她们|对方|厂商|供应商|官方)(?:给|说|反馈|报)的/i;

/** A table's first column that names releases of a software, and a release's name in it (2.17.1, v3.0). */
export const RELEASE_COLUMN = /^(?:release|version|versions|release version|发布版本|版本号?)$/i;
export const RELEASE_NAME = /^v?\d+(?:\.\d+){1,3}(?:[-+.][\w.]+)?$/i;

/** A column that gives each row's status or result: its done cell reports the row's task done. */
export const STATUS_COLUMN = /\b(?:status|state|result|outcome|done|progress)\b|状态|结果|进度|进展|完成情况|处理情况/i;

/** A table column that names who owns each row (负责人, Owner): a row owned by someone else is theirs. */
export const OWNER_COLUMN =
  /^(?:负责人|执行人|经办人|处理人|操作人|完成人|成员|人员|姓名|同事|owner|assignee|member|person|who|by|done by|handled by|owned by|engineer|on-?call)$/i;
export const SELF_OWNER = /^(?:我|我们|本人|助手|AI|me|I|assistant)$/i;

/** An opening that shows a rewritten text in the reply: 润色后的版本：, "Here's the revised version:". */
export const REWRITE_INTRO =
  /^(?:(?:sure|ok|okay|好的|好)[\s,，!！.—–-]*)?(?:(?:here(?:'s| is)|below is) (?:the |a |your )?(?:revised|polished|edited|rewritten|reworded|tightened|shortened|cleaned-up|proofread) (?:version|draft|text|copy)|(?:(?:下面|以下|这)是)?[^。！？:：]{0,12}?(?:润色|修改|改写|优化|精简|校对|调整)(?:后|过)的(?:版本|稿子?|文本|内容|版|段落))\s*[:：]\s*$/i;

/** Closing remarks after a draft ("Let me know…", "Want me to…") are the assistant's again. */
export const CLOSING =
  /^(?:let me know|want me|should i|do you want|shall i|feel free|happy to|如需|需要的话|要不要|如果需要|有需要)/i;

export const HEADING = /^(?:#{1,6}\s+(.+?)|\*\*([^*]+?)\*\*)\s*[:：]?\s*$/;
/** The words that tell a done case from a not-done one (已经/还没/not yet/already…). */
const CASE_WORDS =
  /已经|已|了|还没有?|没有?|尚未|未|\b(?:already|not|yet|never|has|have|hasn't|haven't|been|if|you've|you)\b|[\s\p{P}]/giu;

/**
 * Headings that name the cases of a how-to (**还没 push** / **已经 push 了**, "Not pushed yet" /
 * "Already pushed"): two headings that differ only in done or not done label the reader's
 * situation, they report nothing.
 */
export function caseLabels(lines: ReadonlyArray<string>): Set<number> {
  const byCase = new Map<string, number[]>();
  for (const [index, raw] of lines.entries()) {
    const heading = HEADING.exec(raw.trim());
    const title = heading?.[1] ?? heading?.[2];
    if (!title || title.length > 40) continue;
    const key = title.replace(CASE_WORDS, "").toLowerCase();
    if (key === "" || key === title.replace(/[\s\p{P}]/gu, "").toLowerCase()) continue;
    byCase.set(key, [...(byCase.get(key) ?? []), index]);
  }
  const labels = new Set([...byCase.values()].filter((indices) => indices.length >= 2).flat());
  for (const index of chineseCaseHeadings(lines)) labels.add(index);
  return labels;
}

/** A Chinese heading that opens with a state, done or not yet, after a short topic (订单还没开票, 已经开出电子发票). */
const ZH_CASE_HEADING = /^[\u4e00-\u9fff]{0,6}?(?:(已经|已)|(还没有?|尚未|未))\s*\S/;
/** A heading about the work itself (已完成的工作, 未处理事项) sorts a report, it names no case. */
const ZH_WORK_TITLE = /我|咱|完成|完毕|处理|解决|搞定|修复|办|做|事项|工作|任务|进度|进展|情况/;

/**
 * Chinese headings that name the reader's cases in different words (**订单还没开票** / **已经开出电子发票**
 * / **已经开出纸质专票**): when one heading says the thing is not yet so and another that it already is,
 * each such heading labels a situation the advice under it is for.
 */
function chineseCaseHeadings(lines: ReadonlyArray<string>): number[] {
  const done: number[] = [];
  const notYet: number[] = [];
  for (const [index, raw] of lines.entries()) {
    const heading = HEADING.exec(raw.trim());
    const title = (heading?.[1] ?? heading?.[2])?.replace(/\*\*|__/g, "").trim();
    if (!title || title.length > 30 || ZH_WORK_TITLE.test(title)) continue;
    const state = ZH_CASE_HEADING.exec(title);
    if (state?.[1]) done.push(index);
    else if (state?.[2]) notYet.push(index);
  }
  return done.length > 0 && notYet.length > 0 ? [...done, ...notYet] : [];
}

/** A line with its code spans, addresses and host names taken out: their words are names, not the line's. */
export const withoutNames = (line: string) =>
  line.replace(/`[^`\n]*`|\b[\w-]+(?:\.[\w-]+)+(?:\/\S*)?|https?:\/\/\S+/g, " ");

export function draftTitle(line: string): boolean {
  if (line.length > 120) return false;
  const heading = DRAFT_HEADING.exec(line);
  const title = (heading?.[1] ?? heading?.[2])?.replace(/\*\*|__/g, "").trim();
  return title !== undefined && (DRAFT_TITLE.test(title) || CONDITIONS_TITLE.test(title));
}

/**
 * A heading that titles a list of conditions (### 办理条件, "## Eligibility", with an aside such as
 * （常见）): its items say what
 * must already be true of whoever applies (已实名登记), not what anyone did in this task.
 */
const CONDITIONS_TITLE =
  /^(?:[\u4e00-\u9fff]{0,4}(?:条件|资格|前提|要求)|(?:eligibility|requirements|prerequisites|who can apply|who qualifies)(?:\s+[\w-]+){0,2})\s*(?:[(（][^()（）]{1,12}[)）])?\s*[:：]?$/i;
