/**
 * Chinese: an answer whose opening sentence hands the whole account to someone else — a party who
 * replied and whose points follow (阿里云客户经理回复了…，要点转述如下：, 供应商对那张工单的答复，要点
 * 如下：), a colleague named as the one who did the work (昨晚的切换是运维组的老周做的，情况如下：), or
 * several people's progress laid out (今天早会大家的进展整理如下：). What the lines under it report
 * done, with no subject of their own, is that party's, as under 这份报告指出. The writer's own 我 in
 * the opening (我回复了客户，内容如下：, 是我做的) keeps it the writer's report.
 */

/** The writer, or a step marked done by nobody named, in the opening: then it is no hand-over. */
const WRITER_IN_OPENING = /我(?!们|方|司)|咱|(?:^|[，,])\s*(?:已经?|刚刚?)/;

/** What introduces the lines below as a list: 如下：, 是这样的：, 整理如下：. */
const INTRODUCES_BELOW = /(?:如下|是这样的?|大致是这样|分别是)\s*[:：]\s*$/;

/**
 * Another party answering us, as the subject or the owner of the reply: 客户经理今天上午回复了…,
 * 阿里云对…的回复, 物业的答复, 厂商回邮件说. At least two characters name the party before it.
 */
const PARTY_REPLIED =
  /[\u4e00-\u9fffA-Za-z）)]{2}[^，,。]{0,40}?(?:(?:回复|答复|回电话|回电|回邮件|回信|反馈)(?:了|的|说|是)|的(?:回复|答复|回信|反馈|说法)[，,])/;

/**
 * A cleft that names someone else as the one who did it: 是运维组的老周做的, 处理过程是值班同事老郑负责
 * 的, 是小刘昨天合并进 main 的 PR. The doer is a person or a team, not a thing (是因为…造成的 is a cause).
 */
const OTHERS_DID_IT =
  /是[^，,。是]{0,12}?(?:同事|同学|老师|师傅|经理|主管|组长|运维|开发|测试|前端|后端|组|部|团队|[小老][\u4e00-\u9fff])[^，,。是]{0,12}?(?:做|负责|处理|操作|执行|搞|弄|改|修|合并进?|提交|推送)[^，,。]{0,16}的/;

/** Several people's progress or reports, gathered: 大家的进展整理如下：, 各组的汇报如下：. */
const EVERYONE_REPORTED = /(?:大家|各位|各组|各人|各方|各部门)的?(?:进展|进度|汇报|情况|反馈)/;

/** The user as the one who reported (您反馈的问题，处理结果如下：): a support reply's own report follows. */
const USER_BEFORE = /[你您]/;

/** The writer's own step marked done anywhere in the answer (我已经…发到了她们的邮箱): the answer reports it. */
const WRITER_DONE = /我(?![们的方司])[^。！？]{0,16}?(?:已经|已(?![知有])|刚刚?)/;

/** Whether the answer's opening sentence hands its account over to someone else. */
export function zhOthersOpening(sentences: ReadonlyArray<string>): boolean {
  const text = (sentences[0] ?? "").replace(/\*\*|__/g, "").trim();
  if (WRITER_IN_OPENING.test(text) || sentences.some((sentence) => WRITER_DONE.test(sentence))) return false;
  if (OTHERS_DID_IT.test(text)) return true;
  if (!INTRODUCES_BELOW.test(text)) return false;
  const replied = PARTY_REPLIED.exec(text);
  if (replied && !USER_BEFORE.test(text.slice(0, replied.index + replied[0].length))) return true;
  return EVERYONE_REPORTED.test(text);
}
