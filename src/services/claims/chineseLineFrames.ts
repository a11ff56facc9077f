import type { Attribution } from "./agentContext.js";

/**
 * Chinese: frames inside one line that make a completed-looking verb someone else's, or no report
 * at all, after the general attribution read it as the writer's — a speaker's name heading the
 * line, the writer only as listener (跟我转述了) or beneficiary (帮我改了), an action named as the
 * topic of a modal (扩容需要审批), the premise of an explanation (…，是因为…), a state from long ago
 * (早已被撤市), a trend (普遍已经下调), what a work narrates (这一章主要写…), a colleague or a team
 * as the subject, the user's situation restated (我理解你的处境——牛已经装车), a schedule's or a
 * how-to's step (周二：搭好本地环境). A line that names the writer acting (我已经…) stays the writer's.
 */

/** The writer acting: 我 not as a listener, a beneficiary or an owner (我们项目用的, 我的). */
const WRITER_ACTS =
  /(?<!(?:跟|和|向|给|对|帮|替|为|陪|联系|找|告诉|通知|提醒|问|叫|让))我(?![的国司方省市校院行]|们(?:项目|组|这边的|的|代码))/;

/** A person named as a speaker: 小孟, 老钱, 阿杰, 刘站长, 陈工, 后端组（陈立）. */
const SPEAKER_LABEL =
  /^(?:[小老阿][\u4e00-\u9fff]|[\u4e00-\u9fff]{1,3}(?:站长|经理|主任|组长|总监|老师|主管|局长|处长|科长|书记|队长|工|总)|[\u4e00-\u9fffA-Za-z]{1,10}[（(][\u4e00-\u9fffA-Za-z ]{2,12}[)）])$/;
/** Labels of the writer's own report that look like a short name: 小结, 小计, 老问题. */
const NOT_A_SPEAKER = /^(?:小结|小计|小记|小贴士|小提示|小提醒|小技巧|小样|小票|小区|小组|小时|老版|老问题|阿里)$/;
/** What a speaker's line says of itself: a third person, or a verb of saying or proposing. */
const SPOKEN = /[他她]|说|提出|表示|认为|建议|反映|汇报|提到|强调|同意|要求/;

/** The writer as the one told: 跟我转述了, 向我反馈了, 和我说过. */
const TOLD_TO_WRITER = /(?:跟|和|向|给|对)我(?:们)?(?:转述|复述|说|讲|描述|介绍|汇报|反馈|解释|透露|抱怨)/;

/** Words that stop a name before 同事 from being its subject: 转给同事, 通知同事. */
const COLLEAGUE_AS_OBJECT = /[给向让请把和跟]|通知|告诉|@了/;

/** The writer as the one served by someone else: 帮我改了三遍, 替我交了. */
const SERVED_WRITER = /(?:帮|替|为|给|陪)我(?!们)[\u4e00-\u9fff]{0,6}$/;

/** An action named, then what it can, must or will need: 扩容需要审批, 重启能释放, 升级会中断. */
// (升级规格需要停机审批: a short object may stand between.)
const MODAL_AFTER =
  /^\s*(?:(?:(?![了过])[\u4e00-\u9fffA-Za-z]){0,4}?(?:能|可以|会|需要|要|得|必须|可能|才能|就能|也能|还能|需)|前|之前|的话)/;

/** A later clause that explains why: …，是因为…, …，主要是由于…. */
const EXPLAINED = /[，,]\s*(?:这)?(?:主要)?是(?:因为|由于)/;
/** What is puzzling in the premise explained: not yet, still, but. */
const PUZZLE = /不会|不能|没有|还(?:是|能|在|会)|但|却|仍|依然|反而/;

/** A state reached long before this task: 早已被撤市, 早就停产了. */
const LONG_AGO = /(?:早已|早就|早在)[^，,。；;]{0,8}$/;
/** A trend across a field: 普遍已经下调, 纷纷上调. */
const TREND = /(?:普遍|纷纷|陆续|大多|大都|多数|大部分)(?:都)?(?:已经?)?[\u4e00-\u9fff]?\s*$/;
/** What a work narrates: 这一章主要写…, 这部小说讲的是…, 书中写到…. */
const WORK_NARRATES =
  /^(?:这|本|该)?(?:一)?(?:章|节|回|集|篇|本书|部小说|部电影|部剧|部作品|个故事|首诗)(?:里|中)?(?:主要)?(?:写|讲|讲述|描写|描述|叙述|说)|^(?:书中|文中|小说里|故事里|剧中|片中)(?:主要)?(?:写|讲|讲述|描写)/;

/** A colleague named, or an @handle, as the subject: 同事 @lin 昨天已经…, @wang 已经…. */
const COLLEAGUE_SUBJECT =
  /^([^，,。]{0,12}?)\s*(?:同事|队友|组员)\s*(?:@[\w.-]+\s*(?:昨天|今天|昨晚|今早|上午|下午|上周|刚刚?)?|[\u4e00-\u9fff]{1,3}\s*(?:昨天|今天|昨晚|今早|上午|下午|上周|刚刚?))\s*(?:已经?|也)?/;
/**
 * A team of people as the whole subject of the verb's clause: 平台组已经处理了, 平台组的 Marcus（都柏林）
 * 升级了 — not a thing called a group (安全组, 通讯组) nor a manner (按部门).
 */
const TEAM_SUBJECT =
  /^\s*(?:(?:平台|运维|测试|开发|后端|前端|客户端|服务端|移动端|网络|数据|支付|风控|基础设施|产品|设计|算法|财务|法务|技术|项目|市场|销售|客服|行政|人事|采购|品控|研发|架构|SRE|DBA|QA)(?:组|团队|部门?)|(?:(?![已向按给为把对跟和与在从帮替])[\u4e00-\u9fff]){2,6}(?:团队|部门))(?:的\s*[A-Za-z\u4e00-\u9fff]{1,12}(?:\s*[（(][^）)]{1,10}[)）])?)?\s*(?:已经?|也|都|刚刚?|昨晚|今天|昨天|今早|早上)?\s*$/;
/** A party to a deal named as the subject: 施工方已经…, 对方刚…. */
const PARTY_SUBJECT =
  /(?:施工方|甲方|乙方|对方|厂方|卖方|买方|校方|院方|警方|官方|资方|业主方|供应方|承包方|监理方|设计方|主办方|承办方|合作方|平台方|品牌方|客户方)(?:\s|已经?|也|都|刚刚?|昨天|今天|昨晚|上午|下午|当场|按[\u4e00-\u9fff]{1,4})*$/;
/** A research body or an institution as the whole subject: 美团研究院发布过…, 某大学曾…. */
const INSTITUTION_SUBJECT =
  /^\s*[\u4e00-\u9fffA-Za-z]{1,10}(?:研究院|研究所|研究中心|研究会|科学院|社科院|智库|协会|委员会|大学|学院|出版社|银行|集团|基金会|博物馆|统计局)\s*(?:已经?|也|曾经?|先后|此前|早前|每年|近年)?\s*$/;
/** Someone who spoke in a message: 房东刚回消息说, 客户回复说. */
const SPOKE_AFTER = /^(?:了)?\s*(?:消息|话|电话|信|邮件|微信)?\s*(?:说(?!明)|称(?!为)|讲(?!解))/;

/** The user's situation restated before it is answered: 我理解你的处境——…. */
const USERS_SITUATION = /理解(?:你|您)的?(?:处境|心情|情况|难处|感受|着急|焦虑|难|压力)[^。我]*?(?:——|—|:|：|，|,)/;

/** A schedule's label: 周二—周三：, 第 3 天：, 6 月 2 日：, Day 2：. */
const SCHEDULE_LABEL =
  /^(?:周[一二三四五六日天](?:\s*[—–~-]\s*周?[一二三四五六日天])?|第\s*[一二三四五六七八九十\d]+\s*(?:天|周|步|阶段)|\d{1,2}\s*月\s*\d{1,2}\s*日|day\s*\d+)\s*[：:]/i;
/** A step in the complete form with no marker: 搭好本地环境, 建好表头, 做好这几件事. */
const STEP_FORM = /^[\u4e00-\u9fff]{1,2}好(?![了啦过])/;

/** Who performed a verb the general attribution gave the writer, when a frame of its line says otherwise. */
export function chineseLineFrame(plain: string, before: string, after: string): Attribution | undefined {
  const label = /^([^：:，,。；;]{1,16})[：:]/.exec(plain);
  const labelText = label?.[1]?.trim() ?? "";
  if (
    label &&
    SPEAKER_LABEL.test(labelText) &&
    !NOT_A_SPEAKER.test(labelText) &&
    (SPOKEN.test(plain) || !/^[小老阿]/.test(labelText)) &&
    !WRITER_ACTS.test(plain.slice(label[0].length))
  ) {
    return { agent: "third party", reason: "a line under its speaker's name" };
  }
  // (A third party named in the verb's own clause stands, whatever 我 an earlier clause holds.)
  const clauseOf = before.split(/[，,；;。：:]/).at(-1) ?? "";
  const writerActs = WRITER_ACTS.test(clauseOf);
  const upToVerb = plain.slice(0, plain.length - after.length);
  if (TOLD_TO_WRITER.test(upToVerb + after.slice(0, 2)) && !WRITER_ACTS.test(before.replace(TOLD_TO_WRITER, ""))) {
    return { agent: "third party", reason: "the writer only as the one told" };
  }
  if (SERVED_WRITER.test(before) && !WRITER_ACTS.test(before)) {
    return { agent: "third party", reason: "the writer only as the one served" };
  }
  const clauseBefore = before.split(/[，,；;。：:]/).at(-1) ?? "";
  const bareVerb = !/[已了过刚]/.test(clauseBefore) && !/^[了过完好成到给进出掉回走]/.test(after);
  if (bareVerb && MODAL_AFTER.test(after)) return { agent: "none", reason: "an action named as the topic of a modal" };
  // (改了 DNS 之后不会马上生效: a step done, then what follows from it in general — a condition.)
  const once =
    /^[了过][^，,。；;：:]{0,16}(?:之后|以后|后)[，,]?\s*(?:不会|会|就|才|要|需要|可能|一般|通常|往往|还)/.test(after);
  if (!WRITER_ACTS.test(before) && !/[已刚]/.test(clauseBefore) && once)
    return { agent: "none", reason: "a condition: once it is done" };
  const subjectStated = clauseBefore.replace(/(?:已经?|刚刚?|都|也)\s*$/, "").trim().length >= 2;
  if (!writerActs && (subjectStated || once) && EXPLAINED.test(after) && PUZZLE.test(plain.split(EXPLAINED)[0] ?? "")) {
    return { agent: "none", reason: "the premise of an explanation" };
  }
  if (!writerActs && LONG_AGO.test(clauseBefore)) return { agent: "none", reason: "a state from long before" };
  if (!writerActs && TREND.test(clauseBefore)) return { agent: "none", reason: "a trend across a field" };
  if (WORK_NARRATES.test(plain)) return { agent: "none", reason: "what a work narrates" };
  const colleague = COLLEAGUE_SUBJECT.exec(clauseBefore);
  if (
    !writerActs &&
    ((colleague && !COLLEAGUE_AS_OBJECT.test(colleague[1] ?? "")) || TEAM_SUBJECT.test(clauseBefore))
  ) {
    return { agent: "third party", reason: "a colleague or a team as the subject" };
  }
  if (!writerActs && INSTITUTION_SUBJECT.test(clauseBefore) && /^[过了]/.test(after)) {
    return { agent: "third party", reason: "an institution as the subject" };
  }
  // (做好这几件事，成片质量会高很多: a step pointing to the advice that follows.)
  if (/^好(?:这|以下|下面|如下)/.test(after)) return { agent: "none", reason: "advice that points to what follows" };
  if (!writerActs && PARTY_SUBJECT.test(clauseBefore))
    return { agent: "third party", reason: "a party as the subject" };
  if (!writerActs && subjectStated && SPOKE_AFTER.test(after))
    return { agent: "third party", reason: "someone who spoke" };
  const situation = USERS_SITUATION.exec(before);
  const rest = before.slice(situation?.index ?? 0);
  if (situation && !WRITER_ACTS.test(rest.slice(situation[0].length)) && !/(?:帮|替|为)(?:你|您)/.test(rest)) {
    return { agent: "user", reason: "the user's situation restated" };
  }
  const step = plain.replace(SCHEDULE_LABEL, "");
  if (step !== plain && STEP_FORM.test(step.trim()) && !/[已了]/.test(step.split(/[，,；;。]/)[0] ?? "")) {
    return { agent: "none", reason: "a step of a schedule" };
  }
  return undefined;
}

/** The writer looking something up, then what it found after a colon: 我刚查了…公报：当年…. */
const LOOKED_UP_THEN = /^[^：:。]{0,6}我(?:刚刚?|已经)?(?:查|查询|检索|翻|核对|看)(?:了|过)[^：:。]*[：:]/;

/**
 * The part of a sentence whose words of another time (当年, 去年, 以前) would put it outside this task:
 * after the writer's own lookup and its colon they date what was found, not the lookup.
 */
export function outsideTaskScope(plain: string): string {
  return LOOKED_UP_THEN.exec(plain)?.[0] ?? plain;
}
