/**
 * An answer that is itself a piece written for the user — a letter, a public announcement, copy
 * followed by a remark about that copy — speaks in the voice of whoever will send it: its "we",
 * "our" and its terse lines ("Fixed a crash…", "Made in Portugal", 🚀 "ferrite 2.0 is out!") are
 * the user's company talking, not the assistant reporting. Only the writer's own "I" (or 我) is
 * still read as the assistant's, so a report of its own work, or a lead-in that says what the
 * assistant did with the draft, is never silenced by the framing.
 */

/** A letter that opens the answer: "Dear Nurse Okafor,", "To whom it may concern". */
const LETTER_FIRST =
  /^(?:\*\*)?(?:dear\s+\S[^,:\n]{0,60}[,:]|to whom it may concern\b|尊敬的[^，,：:\n]{1,30}[，,：:])/i;

/**
 * A public announcement: its first line titles what is new or names itself a notice (安全公告：,
 * "Security advisory:"), or it thanks its readers or contributors.
 */
const ANNOUNCEMENT_TITLE =
  /^(?:#{1,6}\s+|\*\*)?(?:what['’]s new (?:in|for)\b|release notes\b|(?:security )?(?:advisory|announcement|press release|public notice)\s*[:：]|更新内容|版本更新|新版本上线|(?:安全|停服|维护|升级|致歉|澄清)?(?:公告|声明|通告)[:：])/i;
/**
 * A Chinese notice that titles itself in 【】 (📢【闭馆通知】, 【版本更新】), or a letter to a named
 * person whose writer introduces themselves (李老师您好！我是…): both are in their sender's voice.
 */
const ZH_NOTICE_TITLE =
  /^(?:\p{Extended_Pictographic}\uFE0F?\s*)*【[^】\n]{0,10}(?:通知|公告|通告|声明|更新|上新|招聘|提醒)[^】\n]{0,4}】/u;
// (王阿姨您好，我是 502 的租户小陈: a landlady or an elder addressed by a kinship word writes so too.)
const ZH_LETTER_TO_PERSON =
  /^[\u4e00-\u9fff]{1,6}(?:老师|教授|经理|主任|医生|律师|女士|先生|总|阿姨|叔叔|大爷|大姐|姐|哥|师傅|房东)\s*(?:您好|你好)[！!，,]\s*我是/;
/**
 * A notice in an organisation's voice: titled 关于…的通知 (**关于做好…汇算的通知**), or addressed to
 * its readers before a colon (各位乐迷：, 全体员工：) — not one reader greeted (亲爱的玩家您好：), whom a
 * support reply answers in its own voice.
 */
const ZH_NOTICE_OPENING =
  /^(?:#{1,6}\s*)?(?:\*\*)?关于[^。！？!?\n]{2,60}的(?:通知|公告|通告|通报|决定)(?:\*\*)?\s*$|^(?:各位|全体)[^，,：:。！!\n]{1,12}(?<!您好|你好)[：:]/;
/**
 * An opening that hands over copy to post (下面是新专辑上线的微博文案，给你两个版本：) with no step of
 * its own: with a rule below it, the text between is the piece, in its sender's voice.
 */
const ZH_COPY_HANDED =
  /^(?![^\n]*(?:[我咱已]|(?<![给])了))(?:下面|以下|这)是[^。\n]{0,30}(?:文案|推文|微博|朋友圈|海报|公告|通知|短信|帖子|函|信|申请书|请示|倡议书)[^。\n]{0,20}[：:]\s*$/;
/**
 * A speech or a toast that greets its audience and whose speaker introduces themselves (各位亲朋好友，
 * 大家好！我是新郎的大学室友…): the one who stands up to speak is the user or someone they write for.
 */
const ZH_SPEECH_TO_AUDIENCE =
  /^(?:各位|亲爱的|尊敬的)[^。！!？?\n]{0,16}?[，,、]?\s*(?:大家|各位)?(?:好|晚上好|上午好|下午好)[！!，,。]\s*我是/;
/**
 * An audience greeted as a crowd, more than one kind of guest named (各位同事、各位来宾，晚上好！): a
 * host's speech, whose "we" is the host's company — never how the assistant opens a reply to one user.
 */
const ZH_CROWD_GREETED =
  /^(?:尊敬的)?各位[^。！!？?\n，,]{1,8}、(?:尊敬的)?各位[^。！!？?\n，,]{1,8}[，,]\s*(?:大家)?(?:晚上好|上午好|下午好|大家好|好)[！!]/;
/**
 * A message to a superior or a client's boss, greeted by surname and title (王总您好，…; 李经理您好，…),
 * that serves nobody as 您 (为您/帮您): the user's report to them, in the user's company's voice. A
 * support reply names the reader as the one served (已为您退款) and is read as the writer's.
 */
const ZH_TO_SUPERIOR =
  /^[\u4e00-\u9fff]{1,3}(?:总|经理|总监|主任|院长|处长|局长|董事长|主管)\s*(?:您好|你好)[！!，,：:]/;
const SERVES_READER = /(?:为|帮|替)(?:您|你)/;
/**
 * The writer asking a superior for leave or for approval right after the greeting (王经理您好，我因发烧需请假…):
 * the user's own request, in the user's voice — an assistant asks no one for a day off.
 */
// (王经理您好，我今天发烧到 38.5℃，…想请一天病假: the request may come a few clauses after the 我.)
const ZH_ASKS_SUPERIOR =
  /^[^。\n]{0,12}?(?:您好|你好)[！!，,：:]\s*我(?:(?:因|由于|想|需要?|申请|请假|特此)[^。\n]{0,20}?(?:请假|休假|调休|申请|批准)|[^。\n]{0,30}?(?:请[^。\n，,]{0,4}假|休假|调休))/;
/**
 * A customer writing to the business it bought from (您好，我于5月12日在贵店购买的…): a complaint or a
 * request drafted for the user, whose 我 is the buyer.
 */
const ZH_CUSTOMER_TO_SELLER = /我[^。\n]{0,24}?在贵(?:店|司|公司|平台|商城|酒店)(?:购买|下单|订购|预订|办理)/;
/**
 * A title that names the readers a piece is addressed to (**致远道而来的你**, ## 致全体志愿者): a letter or
 * a welcome written for the user to hand out — an assistant's reply is titled by its topic, not by
 * whom it greets. Not 致谢, 致歉, 致命 and the like, where 致 opens a word of its own.
 */
const ZH_ADDRESSED_TITLE =
  /^(?:#{1,6}\s*)?(?:\*\*)?致(?!谢|歉|辞|命|使|力|以|电|函|信)[\u4e00-\u9fff][^。！？!?\n，,：:]{0,16}(?:\*\*)?\s*$/;
/** Copy that opens on its slogan in corner quotes and a dash (「一张票，走遍江南」——…): an ad to publish. */
const ZH_SLOGAN_FIRST = /^「[^」\n]{2,30}」\s*(?:——|—)/;
/** A label of copy before the text itself: 推荐语：, 广告语：, 宣传语：. */
const ZH_COPY_LABEL = /^(?:\*\*)?(?:推荐语|广告语|宣传语|标语|口号|腰封文案|封底文案)(?:\*\*)?\s*[:：]/;
/**
 * A letter applying for a post (…看到…的招聘信息，特此申请): its 我 is the applicant's, whose work
 * it lists.
 */
const ZH_APPLICATION = /招聘(?:信息|启事|公告)|特此申请|应聘|求职/;

const THANKS_AUDIENCE =
  /\b(?:thanks|thank you) (?:for all (?:the|your) (?:feedback|support|reports)|to (?:all|every|the \d+|our) [\w\s]{0,20}?(?:contributors|users|testers|backers|supporters|community))\b|\bhuge thanks to\b|\bkeep (?:it|them) coming\b|感谢(?:各位|所有|大家)[^。！!]{0,12}(?:用户|贡献者|支持|反馈)/i;

/** Hashtags that close the text (not a channel after "in", nor an issue number). */
const HASHTAGS_LAST =
  /(?<!\b(?:in|to|on|at|channel)\s*|(?:频道|群)\s*)(?:^|\s)#[\p{L}][\p{L}\p{N}_]*(?:\s+#[\p{L}][\p{L}\p{N}_]*)*\s*$/u;

/** A call to the readers and a link that close a post: "Download free → tally.app/ios", "Sign up: example.com/beta". */
const CALL_TO_ACTION_LAST =
  /(?:^|[.!]\s+)(?:download|get it|try it|sign up|register|join us|learn more|read more|shop now|order now|book now|grab yours|立即下载|立即体验|点击下载|扫码下载)\b[^.!?\n]{0,24}?(?:→|->|👉|:|：)\s*(?:https?:\/\/)?[\w-]+(?:\.[\w-]+)+(?:\/\S*)?\s*$/iu;

/** A horizontal rule, and a short remark after it about the text above (its wording, a version of it). */
const RULE = /^\s*(?:-{3,}|\*{3,}|_{3,})\s*$/;
const REMARK_ON_TEXT =
  /\b(?:version|wording|phrasing|tone|copy|draft|bullet points|shorter|longer|word count|characters|i (?:avoided|kept|left out|didn['’]t (?:use|include|mention))|feel free to (?:tweak|edit|adjust))\b|语气|措辞|版本|字数|文案|改短|改长/i;

/**
 * Whether the whole answer is a piece written for the user: it opens as a letter, announces
 * something new to its readers, or is copy that a short remark after a rule comments on.
 */
export function composedAnswer(answer: string): boolean {
  const lines = answer.replace(/\r\n?/g, "\n").split("\n");
  const first = lines.find((line) => line.trim() !== "")?.trim() ?? "";
  if (LETTER_FIRST.test(first) || ANNOUNCEMENT_TITLE.test(first)) return true;
  if (
    ZH_NOTICE_TITLE.test(first) ||
    ZH_LETTER_TO_PERSON.test(first) ||
    ZH_SPEECH_TO_AUDIENCE.test(first) ||
    ZH_CROWD_GREETED.test(first)
  )
    return true;
  if (ZH_NOTICE_OPENING.test(first) || ZH_COPY_LABEL.test(first)) return true;
  if (ZH_ADDRESSED_TITLE.test(first) || ZH_SLOGAN_FIRST.test(first)) return true;
  if (ZH_CUSTOMER_TO_SELLER.test(answer.slice(0, 200)) && !SERVES_READER.test(answer)) return true;
  // (——这条短信已经按你说的发给张主管了: a remark to the user, as 你, after the message is the writer's.)
  if (ZH_TO_SUPERIOR.test(first) && !SERVES_READER.test(answer) && !/你(?!好|们)/.test(answer)) return true;
  if (ZH_COPY_HANDED.test(first) && lines.some((line) => RULE.test(line))) return true;
  if (THANKS_AUDIENCE.test(answer.slice(0, 4000))) return true;
  // (A post that ends on its hashtags — "…tell us what you think 👇 #productupdate" — is copy to publish.)
  if (HASHTAGS_LAST.test(lines.findLast((line) => line.trim() !== "")?.trim() ?? "")) return true;
  // ("…never do restaurant maths again. Download free → tally.app/ios": copy that closes on a call to
  // its readers and a link is a post or an ad to publish.)
  if (
    CALL_TO_ACTION_LAST.test(
      lines
        .findLast((line) => line.trim() !== "")
        ?.trim()
        .slice(-160) ?? "",
    )
  )
    return true;
  if (structuredAbstract(lines)) return true;
  const rule = lines.findLastIndex((line) => RULE.test(line));
  if (rule <= 0) return false;
  const remark = lines.slice(rule + 1).filter((line) => line.trim() !== "");
  // (Only a short closing remark, and only copy above it: a lead-in above the copy would be read anyway.)
  return remark.length > 0 && remark.length <= 3 && REMARK_ON_TEXT.test(remark.join(" "));
}

/** The labels of a structured abstract's sections (Background:, Methods:, Results:, 方法：). */
const ABSTRACT_LABEL =
  /^\s*(?:#{1,6}\s+)?(?:\*\*)?(background|objectives?|aims?|methods|results|conclusions?|背景|目的|方法|结果|结论)(?:\*\*)?\s*[:：]/i;

/**
 * A structured abstract (Background, Methods, Results, Conclusions): a paper's summary drafted for
 * the user, whose "we ran a trial" is the authors' voice. It needs a methods and a results label
 * and a third one, so a report with a "Results:" line alone is still read.
 */
function structuredAbstract(lines: ReadonlyArray<string>): boolean {
  const labels = new Set<string>();
  for (const line of lines) {
    const label = ABSTRACT_LABEL.exec(line)?.[1]?.toLowerCase();
    if (label) labels.add(label.replace(/s$/, "").replace("方法", "method").replace("结果", "result"));
  }
  return labels.has("method") && labels.has("result") && labels.size >= 3;
}

/** A sign-off, then a person's bare name, closing the text: "Kind regards,\nSam Patel", "… Best, Leah Novak". */
const SIGNED_BY_PERSON =
  /(?:^|[\s.!])(?:best|best regards|kind regards|warm regards|regards|sincerely|yours sincerely|yours faithfully|yours truly|many thanks|thanks|cheers)[,!.]?\s+(?!(?:[A-Z][\w'’-]*\s*){0,3}\b(?:Team|Support|Relations|Service|Services|Desk|Office|Department|Officer|Manager|Reception|Care|Operations|Group)\b)[A-Z][a-z'’-]+(?:\s+[A-Z]\.)?(?:\s+[A-Z][a-z'’-]+){1,2}\s*$/i;

/**
 * Whether the whole answer is a letter that a person signs with their bare name — no role, team or
 * company under it: a letter written for the user to send, whose "I" is the signer's. (A letter
 * signed for a desk, "Inês, Guest Relations", is the assistant answering for that desk.)
 */
export function signedLetter(answer: string): boolean {
  const text = answer.trim();
  const first = text.split("\n", 1)[0]?.trim() ?? "";
  return LETTER_FIRST.test(first) && SIGNED_BY_PERSON.test(text.slice(-120));
}

/**
 * Whether the answer is a speech whose speaker greets the audience and says who they are (各位亲朋好友，
 * 大家好！我是新郎的大学室友…): its "I" is that speaker's, as a signed letter's is its signer's.
 */
export function introducedSpeech(answer: string): boolean {
  const first = answer.trim().split("\n", 1)[0]?.trim() ?? "";
  // (王阿姨您好，我是 502 的租户小陈。…我今天已经转到您的卡上了: a letter whose writer says who they
  // are is in that writer's voice, as a speech is.)
  if (/^尊敬的/.test(first) && LETTER_FIRST.test(first) && ZH_APPLICATION.test(answer.slice(0, 300))) return true;
  if (ZH_TO_SUPERIOR.test(first) && ZH_ASKS_SUPERIOR.test(first) && !SERVES_READER.test(answer)) return true;
  if (ZH_CUSTOMER_TO_SELLER.test(answer.slice(0, 200)) && !SERVES_READER.test(answer)) return true;
  return ZH_SPEECH_TO_AUDIENCE.test(first) || ZH_CROWD_GREETED.test(first) || ZH_LETTER_TO_PERSON.test(first);
}

/** The writer's own "I" (not the company's "we"): a report in it stands inside any framing. */
// (我父亲, 我的: a 我 that owns someone or something is the signer's family or things, not an act;
// 我司, 我方 is the sending company's "we".)
const OWN_I = {
  en: /\b(?:I|I['’](?:ve|d|m))\b/,
  zh: /我(?!们|的|司|方|家|父|母|爸|妈|爷|奶|儿|女|哥|姐|弟|妹|丈夫|妻子|老公|老婆|孩子)/,
} as const;

/** Whether an assistant's action in a composed answer is the piece's voice rather than a report. */
export function composedVoice(language: "en" | "zh", plain: string, checked: boolean): boolean {
  return !checked && !OWN_I[language].test(plain);
}
