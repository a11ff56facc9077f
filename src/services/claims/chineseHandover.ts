/**
 * Chinese: where a piece written for the user (a notice, minutes, a plan, a letter, a quoted draft)
 * ends and the writer speaks again, and where a line opens someone else's words. A piece with no
 * closing rule runs to the end of the answer, so the writer's own line after it — 纪要已经发到群里,
 * 已经帮你发到频道了, 这份初稿我已经发到群里了 — would be read as part of the piece; and a plan's
 * body may hold the writer's own report (我已经在共享表格里新建了…). A relayed account (跟我转述了
 * 今天现场的情况：, 值班主任的说法，转述如下：) opens words that are its speakers', not the writer's.
 */

/** A done marker with the writer, or a step served to the user: the writer's own line after a quoted draft. */
export const ZH_WRITER_AFTER_PIECE = /我(?![们的国])|(?:帮|替|给)你(?!们)|按(?:你|您)的?(?:要求|说的|意思)/;

/** The piece itself, named or pointed at: 这份通知, 以上摘要, 纪要, 数据收集表. */
const PIECE =
  /(?:这份|这封|这条|这篇|这段|这版|以上|上面的?|上述)[^，,。！？]{0,8}|[\u4e00-\u9fffA-Za-z]{0,8}(?:纪要|摘要|通知|公告|邮件|初稿|方案|文案|表|说明|清单|议程|邀请)/;
/** The piece handed on: sent to a group, a channel, a mailbox; synced, uploaded, posted. */
const HANDED_ON =
  /(?:已经|已)(?:按(?:你|您)的?(?:要求|说的|意思))?(?:帮|替)?(?:你|您)?[^。！？，,]{0,4}?(?:发到|发给|发在|发进|同步到|同步给|同步发到|转发到|转发给|上传到|贴到|贴进|提交给|发布到|推送到|抄送|存到|保存到|存进)/;
/** The user's request named first: 按你的要求，…. */
const AS_ASKED = /^(?:按(?:你|您)的?(?:要求|说的|意思)|按照(?:你|您)的?要求)[，,]\s*/;

/**
 * Whether a line after a piece reports the piece handed on: 纪要已经发到"…"群里, 已经帮你发到
 * #ops-announce 频道了, 按你的要求，这份公告已经同步发到…, 这份初稿我已经发到…群里了.
 */
export function pieceHandedOn(line: string): boolean {
  const text = line
    .replace(/\*\*|__/g, "")
    .trim()
    .replace(AS_ASKED, "");
  const handed = HANDED_ON.exec(text);
  if (!handed) return false;
  const lead = text.slice(0, handed.index).replace(/我\s*$/, "");
  return lead === "" || new RegExp(`^(?:${PIECE.source})$`).test(lead);
}

/** An intro that opens a plan or minutes: its body is the writer's plan, in which the writer may report. */
const PLAN_INTRO = /方案|计划|安排|思路|纪要|待办|步骤|下一步|接下来|初稿/;
export const zhPlanIntro = (line: string) => /[\u4e00-\u9fff]/.test(line) && PLAN_INTRO.test(line);

/** The writer's own step, marked done, inside a plan: 我已经在共享表格里新建了…, 这份初稿我已经发到…. */
const WRITER_DONE = /我(?![们的国])[^。！？]{0,16}?(?:已经|已(?![知有])|刚刚?)/;

/**
 * Where the writer breaks into a Chinese piece: a line that hands the piece on ends it; the writer's
 * own step marked done inside a plan, or after others' words (各组的说法我已经发到项目群了) unless a
 * speaker's label heads it, is read once and the piece goes on.
 */
export function zhWriterBreaksPiece(
  line: string,
  piece: { readonly plan: boolean; readonly others: boolean },
): "ends" | "read once" | undefined {
  if (!/[\u4e00-\u9fff]/.test(line)) return undefined;
  if (pieceHandedOn(line)) return "ends";
  const ownLine = piece.plan || (piece.others && !/^[^：:]{1,16}[：:]/.test(line));
  return ownLine && WRITER_DONE.test(line) ? "read once" : undefined;
}

/**
 * An intro that opens someone else's account, relayed (小林跟我转述了今天现场的情况：, 值班主任在电话里
 * 的说法，转述如下：, 各人汇报的情况如下：, 各方的意见大致是这样的：): the lines under it are theirs.
 */
const RELAY_INTRO =
  /(?:跟|和|向|给|对)我(?:们)?(?:转述|复述|说|讲|描述|介绍|汇报|反馈)了?[^：:。]{0,20}[:：]\s*$|(?:说法|原话|回复|答复|解释)[^：:。]{0,4}[，,]?\s*(?:转述|复述|摘录)如下\s*[:：]\s*$|(?:各人|各位|大家|各组|各方|各部门|各自)[^：:。]{0,6}(?:汇报|反馈|意见|说法|发言)[^：:。]{0,10}[:：]\s*$/;
export const zhRelayIntro = (line: string) => RELAY_INTRO.test(line.replace(/\*\*|__/g, "").trim());

/** Intros of a piece to be spoken or posted by the user: 发布会开场主持词（约2分钟）：, 小红书笔记：. */
const SPOKEN_OR_POSTED =
  /(?:主持词|开场白|串词|讲稿|发言稿|演讲稿|致辞稿|祝酒词|台词|笔记|朋友圈文案|帖子)[^：:。]{0,12}[:：]\s*$/;
export const zhPieceIntro = (line: string) => SPOKEN_OR_POSTED.test(line.replace(/\*\*|__/g, "").trim());

/**
 * A numbered heading that names a step in the complete form with no marker (### 1. 建好表头,
 * ## 2. 处理好差评): the title of a how-to's step, not a report.
 */
const STEP_TITLE =
  /^(?:#{1,6}\s*|\*\*)\s*(?:第?[一二三四五六七八九十\d]+\s*[.、)）:：步]\s*)?[\u4e00-\u9fff]{1,2}好(?![了啦过])[\u4e00-\u9fffA-Za-z][^。！？]{0,20}?(?:\*\*)?\s*$/;
export const zhStepTitle = (raw: string) => STEP_TITLE.test(raw.trim()) && !/已|了/.test(raw);

/**
 * A heading that names what the writer can or will do (### 我可以做的, **我这边会负责的部分**): the
 * list under it is offered, not done.
 */
const OFFER_TITLE =
  /^(?:#{1,6}\s*|\*\*)\s*(?:我|我这边|咱们?)(?:可以|能|会|将|打算|准备|建议)(?:帮你|为你|替你)?(?:做|负责|处理|承担|协助|跟进)的(?:事|事情|部分|工作|内容)?\s*(?:\*\*)?\s*[:：]?\s*$/;
export const zhOfferTitle = (raw: string) => OFFER_TITLE.test(raw.trim());
