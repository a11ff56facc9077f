import type { Attribution } from "./agentContext.js";

/**
 * Chinese: an answer that is a message the user will send in their own voice — named by its
 * first line (短信可以这样写：, 请假消息：, 回复审稿人的意见：), signed with a dash under a greeting
 * (李老师：…——小雨妈妈), or asking its reader for leave (想跟您请半天假) — and a remark of the writer
 * on the wording of such a piece (语气上我尽量保持了客气). What the message says was done is its
 * sender's; the assistant was asked to write it, not to act. A line where the writer serves the
 * user (已经帮你发给李老师了) is read as the writer's wherever it stands.
 */

/** Kinds of message a user sends in their own voice, as a label's head: 请假消息, 道歉短信, 感谢信. */
const MESSAGE_KIND =
  /(?:请假|销假|调休|道歉|致歉|感谢|答谢|致谢|邀请|祝福|拜年|慰问|催款|催办|提醒|婉拒|拒绝|辞职|离职|跟进|回访|通知|告知)(?:的)?(?:消息|短信|微信|私信|留言|邮件|信|便条|条|话)/;
/** People a reply in the user's voice answers: 回复审稿人, 回复客户的投诉. */
const REPLY_TO_PERSON =
  /回复(?:给)?(?:审稿人|审稿专家|评审|编辑|导师|老师|家长|客户|买家|顾客|房东|租客|领导|面试官|HR|同事|对方|邻居|物业)/;
/** A label that says how the message may be written: 短信可以这样写, 回复可以这么说. */
const HOW_TO_WRITE = /(?:可以|不妨|建议)(?:这样|这么|参考如下|如下)(?:写|回|回复|说|发|措辞)/;

/**
 * The first line names the message written after its colon, on that line or below it. A bare
 * kind (短信：已重发) is a status line of a report and is not a label here.
 */
function labelsMessage(first: string): boolean {
  const labelled = /^(?:#{1,6}\s*)?(?:\*\*)?([^：:\n]{1,24}?)(?:\*\*)?\s*[:：]\s*(.*)$/.exec(first);
  const label = labelled?.[1];
  if (!label || /[我已了]/.test(label)) return false;
  // (道歉短信：已发送给 12 位顾客: a status after the label reports on the messages; it is not one.)
  if (/^(?:\*\*)?(?:已|均已|全部已|都已|未|没|尚未)/.test(labelled[2] ?? "")) return false;
  // (催办邮件的发送情况：: a label whose head is not the message itself titles a report on it.)
  const head = new RegExp(`(?:${MESSAGE_KIND.source})(?:草稿|初稿|模板|范文|示例)?$`);
  return (
    head.test(label.trim()) || new RegExp(`^${REPLY_TO_PERSON.source}`).test(label.trim()) || HOW_TO_WRITE.test(label)
  );
}

/** A greeting line of its own that names the reader: 李老师：, 王阿姨，, 亲爱的小周：. */
const GREETING_LINE =
  /^(?:亲爱的|尊敬的)?[\u4e00-\u9fff]{1,8}(?:老师|教授|经理|主任|医生|律师|女士|先生|总|阿姨|叔叔|姐|哥|师傅|同学|妈妈|爸爸)?\s*(?:您好|你好)?\s*[：:，,！!]\s*$/;
/**
 * A person's name after a dash closing the text: ——小雨妈妈, —— 李明 敬上. Not a desk (——小鹿家居客服),
 * whose reply the assistant writes as that desk.
 */
const DASH_SIGNATURE = /^(?:——|—|--)\s*[\u4e00-\u9fff·]{1,10}(?:\s*(?:敬上|谨上|拜上|上))?\s*$/;
/**
 * A closing line, then a person's bare name on the last line (谢谢！\n李雯, 此致\n敬礼\n王明): a
 * letter its sender signs — a desk or a team signs with its own name, caught by DESK.
 */
const CLOSING_LINE = /^(?:谢谢|感谢|多谢|此致|敬礼|祝好|顺祝|顺颂|盼复)[^。\n]{0,12}$/;
const BARE_NAME = /^(?!敬礼|谢谢|祝好|此致|感谢|多谢)[\u4e00-\u9fff·]{2,4}$/;
const DESK = /客服|团队|中心|部门?$|组$|官方|店|公司|平台|服务/;

/** The writer asking the reader for leave: 想跟您请半天假, 我明天想请一天事假 — no assistant asks for a day off. */
const ASKS_LEAVE =
  /我[^。！!？?\n]{0,30}?(?:想|需要|需|要|得|申请|希望)(?:跟|向|和)?(?:您|你)?[^。！!？?\n，,]{0,6}?(?:请[^。！!？?\n，,已了]{0,5}假|调休|休假)/;
const SERVES_USER = /(?:帮|替|为)(?:你|您)(?!们)/;
/**
 * The writer speaking to the user about the message, on a line of its own: ——这条短信已经按你说的发给
 * 张主管了, 已经通过企业微信发给王经理了. Then the answer reports a step and is no bare message.
 */
const WRITER_TO_USER = /(?:帮|替|给)你(?!们)|按你的?(?:要求|说的|意思)/;
const HANDED_ON_LINE =
  /^(?:——|—|-{2})?\s*(?:这(?:条|封|段|份|则)[^，,。]{0,8})?(?:我)?(?:已经|已)[^。！？]{0,12}?(?:发给|发到|发出|发送|转给|转发|提交|贴到|存到|存进)/;

/** How an answer written as the user's message reads: composed (its "we" is the sender's), or signed (its 我 too). */
export function zhUserMessage(answer: string): { readonly composed: boolean; readonly signed: boolean } {
  const lines = answer
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const first = lines[0] ?? "";
  const last = lines.at(-1) ?? "";
  const named =
    DASH_SIGNATURE.test(last) || (CLOSING_LINE.test(lines.at(-2) ?? "") && BARE_NAME.test(last) && lines.length >= 4);
  const signature = named && !DESK.test(last.replace(/^[—-]+\s*/, ""));
  const greetedAndSigned = GREETING_LINE.test(first) && signature;
  const labelled = labelsMessage(first);
  // (请假消息：\n王哥，我明天想请一天事假: under a label the message starts on the next line.)
  const opening = labelled && /[:：]\s*(?:\*\*)?$/.test(first) ? (lines[1] ?? "") : first;
  const asksLeave = ASKS_LEAVE.test(opening) && !SERVES_USER.test(opening);
  if (lines.some((line) => WRITER_TO_USER.test(line) || HANDED_ON_LINE.test(line))) {
    return { composed: false, signed: false };
  }
  return { composed: labelled || greetedAndSigned || asksLeave, signed: greetedAndSigned || asksLeave };
}

/** The wording of the piece as the topic right before the verb: 语气上我尽量保持了, 措辞方面我特意避开了. */
// (按你说的口吻写好了 names the wording as a manner of the writing, not as a topic: it stays a report.)
const WORDING_TOPIC =
  /(?:^|[，,；;。])\s*(?:整体|整个|另外|其中)?(?:的)?(?:语气|措辞|口吻|用词|语调|篇幅|字数|行文|称呼)(?:上|方面)[，,]?\s*(?:我)?(?:尽量|特意|刻意|有意|都|也|主要)?\s*$/;

/** A remark of the writer on how the piece is worded: no action in the world. */
export function wordingRemark(before: string): Attribution | undefined {
  if (!WORDING_TOPIC.test(before)) return undefined;
  return { agent: "none", reason: "a remark on the wording of the piece written" };
}
