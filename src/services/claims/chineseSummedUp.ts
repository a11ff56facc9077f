import type { Attribution } from "./agentContext.js";

/**
 * Chinese: answers that sum up material the user handed over — a report, a weekly status, a
 * budget sheet, a thread of emails, a handover log (你贴的这份结题报告，要点如下：, 这串邮件一共 14
 * 封，…梳理如下：) — or relay what someone said at a meeting (审计经理马女士主要讲了这几件事：). The
 * rows and lines of such an answer say what the document or the speaker says was done (| 录播系统部署 |
 * 已完成 |, 第 5 项已修订报销制度): the document's people did it, not the writer. Only the writer's
 * own 我, a step done for the user (帮你/为您) or this very summary sent on (已发到群里) stay the writer's.
 */

/**
 * What the user handed over: 你贴的, 你转过来的, 您发来的, 你上传的 — or what another party sent in
 * (装修公司发来的, 供应商寄来的), which the user passes on.
 */
const HANDED_OVER =
  /(?:你|您)(?:刚才|刚刚|之前|上面)?(?:贴|粘贴|转|转过来|贴过来|转发|发过来|发来|发|上传|给)的|(?<![我咱])(?:发来|发过来|寄来|转来|传来)的/;
/** This document, named at the opening: 这份…周报, 这串邮件, 这篇论文. */
const THIS_DOCUMENT = /^(?:这份|这篇|这串|这封|这组|这几封|这批|该)/;
/** A kind of document whose content is summed up. */
const DOCUMENT =
  /报告|周报|月报|日报|纪要|复盘|邮件|记录|问卷|答复|回复|结果|预算表?|表格?|合同|合约|协议|建议书|说明书|文件|论文|材料|清单|简报|通报|函|日志|交接|方案|diff|PR|MR|改动|提交/;
/** Words that say the opening sums it up or lays it out. */
const SUMMED_UP =
  /要点|概括|梳理|归纳|压缩成|提炼|总结如下|情况如下|整体情况|如下[:：]|讲的是|讲了|(?:核心|主要)内容(?:是|有)|主要有(?:[一二三四五六七八九十两几\d]+)(?:部分|点|处|项|块)|(?:进度|进展|内容)是这样的|一共(?:提了|有|\s*\d|[一二三四五六七八九十])|(?:变动|变化|情况|经过)是这样的|以下(?:内容|信息)?(?:来自|摘自)/;
/**
 * The writer's own step at the opening: 我, a step marked done (已发到群里，要点如下) or completed
 * with 了 (按你给的清单执行了…，结果如下) — the document's 讲了, 提了, 列了 say what it holds.
 */
const OWN_STEP = /[我咱](?!的(?:意见|看法|建议|理解|判断|点评))|已|(?<![讲提说列写谈])了|(?:帮|替|为)(?:你|您)/;
/** Reading what the user handed over is no step of the task: 看了你贴过来的预算表，…. */
const READ_GIVEN = /^(?:我)?(?:仔细)?(?:看|读|过)了(?:一下|一遍)?(?=(?:你|您))/;
/**
 * The summing up itself, offered in the present (我帮你压缩成一页：, 帮你归纳一下：): no step of the
 * writer's taken before, taken out before OWN_STEP is read — 我帮你整理了 keeps its 了.
 */
const SUMMING_NOW =
  /(?:[我咱]们?)?(?:来|先)?(?:帮|给|替|为)(?:你|您)(?=(?:压缩|概括|归纳|梳理|整理|总结|提炼|归)(?!了))/g;
/**
 * The writer laying out the material right here, by a scheme of its own, then the colon (我按“结果—
 * 进度—风险”整理如下：, 我按风险高低归纳了一下：): the answer itself, no step taken before it.
 */
const LAID_OUT_HERE =
  /[我咱]们?(?:先|来)?(?:按|按照|根据|照)[^，,。：:]{1,20}?(?:整理|归纳|梳理|概括|总结|汇总|分类|归类|排)(?:了一下|一下|如下)\s*(?=[:：]\s*$)/;
/**
 * What colleagues or teams reported, gathered (根据各位同事在群里的更新整理, 帮你归纳一下各组的说法：):
 * their updates are theirs.
 */
const COLLEAGUES_GATHERED =
  /(?:根据|按照?)[^，,。：:]{0,12}(?:同事|同学|各组|各部门|大家|成员|组员)[^，,。：:]{0,10}(?:更新|汇报|反馈|说法|发言|进展)|(?:归纳|梳理|整理|汇总|概括)(?:一下)?[^，,。：:]{0,6}(?:各组|各位|大家|同事|各部门|团队)的(?:说法|发言|更新|汇报|进展)\s*[:：]/;
/**
 * A named colleague's finished work opening the answer, then the writer sorting it for the user
 * (老陈昨晚把你的 PR review 完了，留了 6 条评论，我帮你归一下类：): what follows is that work.
 */
const COLLEAGUE_WORK_SORTED =
  /^(?:[小老][\u4e00-\u9fff]|[\u4e00-\u9fff]{1,2}(?:姐|哥|工|总|经理|老师))[^，,。我咱]{0,30}[了过][^。我咱]{0,20}[，,]\s*[我咱](?:来|先)?(?:帮|给|替)(?:你|您)(?:归一下类|归类|梳理|整理|概括|归纳|汇总)(?:一下)?\s*[:：]$/;
/** A meeting's speaker relayed: 沟通会上，审计经理马女士主要讲了这几件事：. */
const SPEAKER_RELAYED =
  /(?:会上|会里|会议上|电话里|通话中)[，,]\s*[^，,。我咱你您]{1,24}?(?:主要)?(?:讲|说|提|谈|交代)了(?:这|以下)?(?:几|[一二三四五六七八九十\d]+)\s*(?:件事|点|个问题|项)\s*[:：]/;

/**
 * A heading that names a document in 《》 and says it sums it up, nothing else on it: ## 《…报告》要点.
 */
const TITLED_SUMMARY =
  /^(?:《[^》\n]{2,40}》|QUOTEREF)\s*(?:的)?(?:要点|摘要|概要|重点|内容梳理|内容概括|主要内容)\s*$/;
/**
 * A body's statement at a meeting, relayed (安全部今天下午在全员会上对…做了说明，主要内容如下：): what it
 * says was done is that body's.
 */
const STATEMENT_RELAYED =
  /^[^，,。我咱你您]{1,24}?在[^，,。我咱你您]{1,16}?会上[^，,。我咱你您]{0,30}?(?:做了|作了)(?:说明|通报|介绍|汇报|讲话|发言)[，,]\s*(?:主要)?内容(?:如下|是)\s*[:：]/;
/**
 * Another party's account relayed, said so at the opening (供应商那边的答复汇总如下：, 裁定出来了，转述如下：,
 * 运维组刚在群里同步了昨晚的情况，要点转给你：, 周经理的说法可以归纳为几点：): what it says was done is theirs.
 */
const ACCOUNT_RELAYED =
  /转述如下|转述一下|要点转给(?:你|您)|(?:的|那边的?)(?:答复|回复|说法|反馈|回应|通报|解释)(?:可以)?(?:汇总|整理|归纳|概括|总结)(?:一下)?(?:如下|为|成)/;

/** Words in quotation marks: a document's own headings cited (按“已完成 / 进行中”归纳), no step. */
const QUOTED = /“[^”\n]{0,30}”|"[^"\n]{0,30}"|「[^」\n]{0,30}」/g;

/** Whether one of the answer's first two sentences opens a summary of material the user handed over. */
export function summedUpSource(sentences: ReadonlyArray<{ readonly language: string; readonly plain: string }>) {
  return sentences.slice(0, 2).some((sentence) => {
    if (sentence.language !== "zh") return false;
    const raw = sentence.plain.replace(/^\s*#{1,6}\s*/, "").trim();
    if (COLLEAGUE_WORK_SORTED.test(raw) || TITLED_SUMMARY.test(raw) || STATEMENT_RELAYED.test(raw)) return true;
    // (Not when the writer names itself in the opening: 我刚把…同步了，要点转给你 is its own step.)
    const head = raw.replace(/([:：]).*$/, "$1");
    if (ACCOUNT_RELAYED.test(head) && !/[我咱]|(?:帮|替|为)(?:你|您)/.test(head)) return true;
    // (你贴的这份周报，一句话概括就是：**…已经收尾**: what follows the colon is the summary itself.)
    const opening = raw
      .replace(/([:：]).*$/, "$1")
      .replace(READ_GIVEN, "")
      .replace(SUMMING_NOW, "")
      .replace(QUOTED, "“”")
      .replace(LAID_OUT_HERE, "整理如下");
    if (OWN_STEP.test(opening)) return false;
    if (COLLEAGUES_GATHERED.test(opening)) return true;
    if (SPEAKER_RELAYED.test(opening)) return true;
    const source = HANDED_OVER.test(opening) || THIS_DOCUMENT.test(opening);
    // (你贴的《…季度进度报告》要点如下: a title in 《》 names a document as its kind does.)
    return source && (DOCUMENT.test(opening) || /《|QUOTEREF/.test(opening)) && SUMMED_UP.test(opening);
  });
}

/** The writer's own 我 (not 我们, which in a pasted report is its authors', nor 我司). */
const OWN_I = /我(?![们司方国省市])/;
/** This summary sent or shared on: 要点已发到项目群, 已转给财务. */
const SENT_ON = /^(?:发|发送|分享|上传|同步|推送|转发|转|贴|共享|抄送)/;

/** A line of such an answer that reports something done, read as the document's. */
export function summedUpLine(plain: string, verb: string): Attribution | undefined {
  if (OWN_I.test(plain) || /(?:帮|替|为)(?:你|您)/.test(plain)) return undefined;
  if (SENT_ON.test(verb) && sentByWriter(plain, verb)) return undefined;
  return { agent: "third party", reason: "a line of the material the user handed over, summed up" };
}

/** A body or a team named as a clause's subject: 客服部已向…发送了, 法务组已…, 运维组刚在群里同步了. */
const BODY_SUBJECT =
  /^[^，,。；;我咱你您]{0,10}(?:部|组|中心|团队|公司|处|科|室|方)(?:已经?|也|都|随即|当天|刚刚?|刚才|在)/;

/**
 * Whether a verb of sending is the writer's own step on this summary — marked done on itself (已发到群里,
 * 发到了…) and not done by a body the clause names (客服部已向会员发送了), nor a noun (终止…的数据共享).
 */
function sentByWriter(plain: string, verb: string): boolean {
  const at = plain.indexOf(verb);
  const clause = (
    plain
      .slice(0, at)
      .split(/[，,；;：:。]/)
      .at(-1) ?? ""
  ).trim();
  if (BODY_SUBJECT.test(clause)) return false;
  return /(?:已经?|刚)\s*$/.test(clause) || /^(?:了|到|给|至)/.test(plain.slice(at + verb.length));
}
