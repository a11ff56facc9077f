import type { Subject } from "./agentContext.js";
import { VERBS } from "./chineseWords.js";
import { ZH_LATIN_FOLLOWER, ZH_LATIN_ROLES, ZH_OTHER_SUBJECTS, ZH_PERSON, ZH_SURNAMES } from "./lexicon.zh.js";
import { CODE } from "./text.js";

/**
 * The cues Chinese attribution reads: who a clause names as its subject, the frames that relay,
 * draft, advise, condition or deny an action, and the small helpers that test them. Patterns only;
 * the order in which they decide an action's agent is `chineseAgent` (agentChinese.ts).
 */
/** (你本人, 用户本人: 本人 after someone is their "self".) */
// (我国, 我省, 我校: "our country", "our province" name a place or an institution, not the writer.)
export const ZH_FIRST = /我们|我(?![国省市县校])|咱们|(?<![你您他她户客方])本人|小助手/;
/** Clause breaks, but not the colon of a clock time (CI 在 14:03 跑完了). */
export const CLAUSE_SPLIT = /[，,；;：]|(?<!\d):|:(?!\d)|\p{Extended_Pictographic}/u;
/** 自动 before a verb: done by a system (自动执行了, 自动部署到了). */
export const ZH_AUTOMATIC =
  /自动(?:地)?(?:执行|完成|触发|部署|重启|运行|发送|发出|推送|同步|续期|更新|删除|清理|切换|生成|扣|重试|回滚|扩容|缩容|备份|归档|合并|关闭|开启)/;
/**
 * What may stand before the verb of a Chinese status line with no subject (已为您, 刚刚, 好嘞，都…).
 * (随后, 接着: a clause that goes on from an earlier one has no subject of its own either.)
 */
// (A time of this very session before it — 本次, 这次, 今天上午 9:30 — names no one either: 本次只做了检查.)
const ZH_SUBJECTLESS =
  /^(?:(?:本次|这次|此次|这一次|今天|今日|今早|今晚|刚才)(?:上午|下午|早上|晚上|中午)?(?:\d{1,2}(?::\d{2}|点(?:\d{1,2}分?|半)?))?)?(?:(?:好的|好嘞|好了|嗯|对了|另外|然后|随后|随即|接着|紧接着|之后|后来|并且|并|同时|顺便|也|都|又|还|先|均|全部|一并|分别|重新|马上|这边|所以|于是|因此|就|去|来|只是|仅仅|只|仅|而是|不过|本地|在本地|手动|顺手)\s*)*(?:(?:已经|已|刚刚|刚才|刚|已为|已帮|已给|已按|已根据).*|(?:帮|为|给|替|在|把|将|按|按照|根据|依照|用(?!户)|向|跟|和|对|从|通过|经过?|去|到)(?!.*(?:他|她|他们|她们|对方|客户|同事)(?:已|在|也|又|刚|都)).*)?$/;

/**
 * 我们的请求都到达了银联, 我的快递被退回了: a first person before 的 owns the thing after it, which is
 * the subject — not the first person (我们的同事, 我们的工程师 are people, who may act for the writer).
 */
const ZH_OWN_THING =
  /(?:我们|咱们|我)的(?!(?:团队|同事|工程师|技术|客服|人员?|运维|开发|律师|会计|顾问|专员|员工|伙伴))/g;
export const withoutOwnThings = (text: string) => text.replace(ZH_OWN_THING, "的");

export function chineseSubject(before: string): Subject {
  // (我把 UCI 的数据集（红葡萄酒，1,599 条）下载下来: a comma inside an aside breaks no clause.)
  const clause = (
    before
      .replace(/[（(][^（()）]*[)）]/g, "")
      .split(/[，,；;：。！!]|(?<!\d):|:(?!\d)/)
      .at(-1) ?? before
  ).replace(/\s+/g, "");
  if (ZH_FIRST.test(withoutOwnThings(clause))) return "first person";
  return ZH_SUBJECTLESS.test(clause) ? "left out" : "stated";
}

/** What weighs an action named before it: 等于, 意味着, 相当于; ，这个我不建议 / 这样不行. */
export const ZH_WEIGHED_TOPIC =
  /^[^，,。；;]{0,30}?(?:等于|就等于|意味着|相当于)|^[^。；;]{0,40}?[，,]\s*(?:这个|这样|这么做|这样做|这)(?:我|我们)?(?:不|并不|可不|没法|不太)(?:建议|推荐|行|可以|合适|能|妥)/;
/**
 * 前提是 `order_date` 已经转成 datetime, 免得被拆成两条: a premise a step needs, or what a step is
 * meant to avoid, states a condition — nobody reports it done.
 */
export const ZH_PREMISE_BEFORE = /(?:前提是|前提条件是|免得|以免|以防|省得)[^，,。；;]{0,24}$/;
/** A verb of checking, not done itself, whose object clause holds the marker right before the verb
 * (or before a place the verb's clause opens with 在: 确认已在成都形成参保记录). */
export const ZH_CHECK_COMPLEMENT =
  /(?<![已经我们])(?:确认|确保|检查|核实|验证|看看|观察|留意|保证)(?![了过函短单邮码信书项清结报页表])[^，,。；;了过我]{0,20}(?:已经?|都已|均已)(?:\s*在[^，,。；;了过我]{1,16})?\s*$/;
/** 被/由 + an agent and what it does, anywhere before the verb (备份任务由 cron 每天 02:00 触发，…). */
export const ZH_AGENT_EARLIER =
  /(?:由|被)(?!我|咱)[^，,。；;]{1,12}?(?:触发|执行|负责|处理|完成|自动|发起|调度|接手|推送|操作)/;
/** What a source says (供应商回复说…, 李老师在群里通知：…, 公告的意思是：…) is reported, not done. */
export const ZH_REPORTED =
  /(?:(?<![跟给和向对你您])(?:说|讲)(?![明下一的])|表示|反馈说|回复说|回复称|通知[:：]|称[:：，,]|(?<![名简俗号统对昵职全人堪著])称(?=[已刚将会其该正目]|自己|对方)|提到|写道|写着|显示[:：]|公告[:：]|告知|透露|指出|意思是|听说|转述|(?:结论|决定|诉求|要求|安排|原话|答复|回复|回应|意见|看法|说法|口径)是|(?:根据|据)[^，,。]{0,30}(?:日志|公告|通告|通报|文档|说明|报道|消息|通知|记录|新闻|官网|状态页|Dashboard)[，,]|据(?:[^，,。]{0,8})(?:说|称|消息|报道|反馈|介绍|回复|通知))[^。；;]*$/;
/** An earlier clause that relays a source (据快递员反馈，…; 客户说…): a subjectless clause after it is the source's. */
// (客服那边的说法是：, 工作人员的口径是这样的：: a noun of saying with 是 hands over to the source's words.)
export const ZH_RELAY_FRAME =
  /^(?:据|根据|听)[^，,。]{0,30}(?:说|称|反馈|介绍|回复|通知|通告|公告|通报|报道|消息)|(?<![跟给和向对你您])(?:说|表示|反馈|称|提到|回复)$|(?:说法|口径|原话|答复|回复|解释|回应|意思)(?:是|为)(?:这样的|这么说的|如下)?$/;
/** The register of a letter written for the user to send (贵司, 贵方): its "we" is the user's company. */
export const ZH_LETTER = /(?:我们|我司|本公司)[^。]*(?:贵司|贵公司|贵方|贵单位)|此致|敬礼/;
/** After the verb: a sequence or an instruction (改完…后需要重启, 执行完可以用…, 迁过去了再说). */
// (确认完我大概十几分钟能做好: a bare 完 or 好 and then a modal in the same clause — what will follow
// once it is done. 看完哪些是真正在用的，再决定退掉哪几个: a bare 完 or 好 whose next clause opens
// with 再 or 然后 — first this, then that, both still to come.)
export const ZH_SEQUENCE_AFTER =
  /^(?:[完好过掉]|[\u4e00-\u9fff]{0,2}[了]?)[^，,。；;]{0,24}?(?:后|之后|以后|再说|再|才|可以|需要|就能|就可以|即可)|^[完好](?![了过])[^，,。；;了已]{0,16}?(?:能|会)(?![力源量议员话计场])|^[完好](?![了过])[^，,。；;了已]{0,24}[，,]\s*(?:再|然后再?)(?!说)/;
/** Verbs of composing a text or a plan. */
export const ZH_COMPOSE = /^(?:排|拟|列|写|起草|草拟|整理|做|规划)$/;
/** What the verb composed is a draft or a plan that the colon right after it opens. */
export const ZH_REPLY_BELOW =
  /^(?:了|出|好了?)?(?:一|两)?(?:个|份|版|套|张)?[^，,。；;：:]{0,10}?(?:初稿|草稿|草案|行程|安排|计划|方案|清单|大纲|框架|时间表|日程)(?:如下)?\s*[：:]\s*$/;
/** The same, with a longer noun phrase and an aside before the colon (…的京都行程，节奏偏轻松：). */
export const ZH_REPLY_BELOW_ASIDE =
  /^(?:了|出|好了?)(?:一|两)?(?:个|份|版|套|张)?[^，,。；;：:]{0,24}?(?:初稿|草稿|草案|行程|安排|计划|方案|清单|大纲|框架|时间表|日程)[，,][^，,。；;：:]{1,16}[：:]\s*$/;
/** What the verb made is put above or below, in this reply (改好放在上面了, 整理好附在下面). */
// (我这边先整理成这样，你看看…: what the writer arranged "like this" is the text just shown.)
export const ZH_IN_THIS_REPLY =
  /^[好完了]?[^，,。；;]{0,6}?(?:放|贴|附|列|写)(?:在|到)(?:了)?(?:上面|下面|上方|下方|上边|下边|文末)|^(?:成|为)(?:了)?(?:上面|以上)?(?:这样|这个样子|如上)(?![^，,。；;]{0,6}(?:发|交|提交|上传|同步))/;
/** Verbs that compose or arrange a text (排, 拟, 写, 整理, 捋, 摘): done in a reply, they write the reply. */
export const ZH_REPLY_TEXT_VERB =
  /^(?:排|拟|列|写|起草|草拟|整理|梳理|规划|归纳|概括|捋顺?|理顺?|摘|摘录|汇总|总结|列出|写好)$/;
/** Right after the verb, its text is put in its place in this reply (写在上面了, 整理在下面). */
// (纪要整理好了，就在上面: a finished text the next clause says is right above or below is this reply.)
export const ZH_WRITTEN_HERE =
  /^(?:好|完)?(?:在|到)(?:了)?(?:上面|下面|上方|下方|上边|下边|文末|这里|如下)|^(?:好|完)了?\s*[，,]?\s*(?:就|都)(?:在|放在|附在|贴在|写在)(?:了)?(?:上面|下面|上方|下方|上边|下边|文末)/;
/** The writer serves the reader right before the verb (给你, 帮您). */
export const ZH_FOR_READER_BEFORE = /(?:给|帮|为|替)(?:你|您)\s*$/;
/** After the verb, a colon in the same sentence opens what was composed (了一个…版本：, 了一下…：). */
// (列了一遍：, 理了一遍：: going through the task's things one by one is a look at them, not a text.)
export const ZH_REPLY_OPENED = /^(?:了|出|好了?)?(?!一遍|一通)[^。；;！!？?：:了]{0,30}[：:]/;
/** A piece of writing made and counted right after the verb, opened by a colon (了一首小诗：, 了一份预算表的模板，…：). */
export const ZH_PIECE_OPENED =
  /^(?:了|好了)\s*(?:一|两|三|几)\s*(?:首|份|篇|段|版|个|张)[^，,。；;！!？?：:\n]{0,24}(?:诗|词|草案|草稿|初稿|模板|大纲|提纲|文案|清单|表|计划|方案)(?:[，,][^。；;！!？?：:\n]{0,40})?[：:]/;
/** Verbs that make a piece of writing (写, 做, 拟, 起草): with a counted piece as object. */
export const ZH_PIECE_VERB = /^(?:写|做|拟|起草|草拟|列|整理|排)$/;
/** The last clause before the verb leaves the writer as its subject (nothing, 我, 给你的…, 我先帮你). */
export const ZH_WRITER_CLAUSE =
  /^(?:我|我这边|我们)?(?:先|也|又|就)?(?:(?:给|帮|为|替)(?:你|您)[^，,。；;把]{0,24})?(?:已经?|先|也|又)?$/;
/** A clause that tells the reader what they can do with it (可以直接复制到 Excel): theirs, not the writer's. */
export const ZH_READER_OPTION_CLAUSE = /[，,]\s*(?:你|您)?(?:可以|可|能)[^，,]*/g;
/** Right after 做, the deed is arranging words (做了整理, 做了一下汇总): the writer's work on this reply. */
export const ZH_ARRANGING_DONE =
  /^(?:了)?(?:一下|一些|些|一点)?(?:简单的?|初步的?)?(?:整理|汇总|归纳|梳理|摘编|转述|排版)(?![^。；;！!？?\n]*(?:发给|发到|上传|提交|同步|存到|保存|放到|放进|推送))/;
/** Before that colon, a place outside the reply or a step beyond writing (系统, 表里, 发给, 存到). */
export const ZH_OUTSIDE_REPLY =
  /(?:系统|库|表格?里|文件|文档里|仓库|目录|服务器|SQL|sql|查询|群里|邮件|共享|云盘|网盘|飞书|钉钉|发给|发到|发送|提交|上传|同步|存到|保存|放到|放进|推送|脚本)/;
/** The verb and what follows: an error the system raised (报了 403, 报错了) or a redirect (跳转到了登录页). */
export const ZH_ERROR_RAISED =
  /^(?:报了?\s*(?:\d{3}|错|[A-Za-z]*(?:Error|Exception|异常))|报错|(?:跳)?转到了?[^，,。；;]{0,12}(?:登录页|登录界面|错误页|首页|\d{3}))/;
/** Leaving a place in a text blank (空着, 留空): only a text being written has such a place. */
export const ZH_LEFT_BLANK = /^(?:空着|留空|留白)$/;
/** Right after the verb, its object is a wording (用了定性表述, 换成了中性的说法). */
export const ZH_WORDING_AFTER = /^[了成为]{0,2}[^，,。；;：:]{0,8}?(?:表述|措辞|说法|写法|口吻|语气|字眼|占位符)/;
/** 适合, 值得, 不妨: right before the verb, it weighs the step rather than reporting it. */
export const ZH_SUITS_BEFORE = /(?:适合|适宜|值得|不妨)\s*$/;
/** 不用再, 不必, 无需: right before the verb, it says the step need not be taken. */
export const ZH_NO_NEED_BEFORE = /(?:不用|不必|无需|不需要|用不着|没必要)(?:再|重新|另外)?\s*$/;
/** 告诉我，我帮你…, 发给我，我来…: an earlier clause asks the user for what the writer's step needs. */
export const ZH_ONCE_GIVEN_BEFORE =
  /(?:告诉我|发给我|发我|给我|贴给我|贴过来|提供给我|确认一下)(?![了过])[，,]\s*(?:我|咱)(?:再|就|来|帮你|帮您|给你|给您|可以|马上)*[^，,。；;了已]{0,6}$/;
/** The sentence ends by offering a step (要不要我…？, 需要我…吗？). */
export const ZH_OFFER_QUESTION = /(?:要不要|需不需要|需要|要)(?:我|咱)[^。！!]*[？?]\s*$/;
/** An adverb of surprise right before the verb: 一下子, 突然, 居然, 莫名其妙地. */
export const ZH_SUDDEN_BEFORE = /(?:一下子|突然|忽然|居然|竟然|莫名其妙地?|无缘无故地?)(?:就|又|也|都)?$/;
/** A bare 完, its object, then a verb of the table in the same clause (盘完一个区域贴标签). */
export function bareThenVerb(after: string): boolean {
  const rest = /^完([^，,。；;：:]{1,16})/.exec(after)?.[1];
  if (!rest) return false;
  for (let at = 1; at < rest.length; at++) if (VERBS.some(([verb]) => rest.startsWith(verb, at))) return true;
  return false;
}
/** A bare 完 or 好, then 就 in the same clause: 改完这三处就比较稳了, 填好就能提交. */
export const ZH_ONCE_DONE = /^[完好](?![了过])[^，,。；;了已]{0,16}?就(?!是)/;
/** Advice or a reminder to the user before the verb (建议先…确认数据都迁过去了再说, 记得把…换掉). */
// (提醒 after a measure word or before a marker is the noun "reminder": 那条提醒已经挪到了周五.)
// (请 asks someone to do it — 请值班同学执行 — unless it only asks the reader to be at ease or to look.)
export const ZH_ADVICE_BEFORE =
  /(?:建议|记得|(?<![条个项的])提醒(?!已|都|均)|麻烦|务必|最好|别忘了|应该|需要|可以|(?<![申邀聘提])请(?!放心|稍等|稍候|知悉|查收|问|见|参考|看|留意|假|求|柬|客|教|示|款))[^。；;]*$/;
/** An inference from what the user showed (说明部署在 10:01 结束，…): analysis, not a report of work. */
// (大概率是某个长事务占着锁，把连接池耗尽了: a guess at the cause, hedged, names what probably happened.)
export const ZH_INFERENCE =
  /^(?:这)?(?:说明|可见|看来|由此可见|可以看出|看得出)|^(?:大概率|很可能|多半|八成|估计|应该|可能)是(?![我咱])/;
/** 我觉得还漏了一点: what the writer thinks, before a verb with no marker, is a judgment. */
// (我理解楼上漏水把你家天花板泡了: what the writer understands or knows has its own subject.)
export const ZH_OPINION_BEFORE =
  /(?:我|我们)(?:个人)?(?:能|很)?(?:觉得|认为|感觉|感到|怀疑|理解|明白|知道)[^，,。；;：:已]{0,12}$/;
/** 难以做到, 无法接入: a verb after a word of inability is what cannot be done. */
// (我目前没能找到可靠的来源: 没能 and 未能 say the step was tried and did not come off.)
export const ZH_UNABLE_BEFORE = /(?:难以|无法|很难|没法|不可能|没能|未能)\s*$/;
/** 目前都还没动代码, 还没有改任何文件: the sentence itself says nothing was touched yet. */
export const ZH_NOTHING_TOUCHED_YET =
  /(?:目前|现在|暂时|眼下)?(?:都|也)?还没(?:有)?(?:动|改|碰)(?:过)?(?:任何)?(?:代码|文件|东西|配置|数据|线上)/;
/**
 * 这篇文章主要讲三点：, 这份说明书简单说就是：: a source the answer sums up, named before the colon —
 * what follows in the sentence is what the source says.
 */
export const ZH_SOURCE_SAYS =
  /(?:这|该|本)(?:篇|份|本|段|个|封|条)?(?:文章|说明书|文档|报告|论文|合同|协议|邮件|公告|材料|视频|书|章节|条款|研究|招股书|简章|通知|产品|规定|办法)[^。：:我]{0,12}(?:讲|说|写|提到|介绍|总结|概括|大意|意思|内容|要点|核心|重点|就是)[^。：:我]{0,8}[：:]/;
/** 他初步估算…, 她说…: a third person opening an earlier clause is the subject the later ones go on with. */
export const ZH_THIRD_PERSON_FIRST = /^(?:他们|她们|他|她|对方)(?![的们])/;
/** 新版《…办法》也保留了…: a titled work that did something in an earlier clause goes on as the subject. */
// (Quoted titles reach the rules as a placeholder; a relative clause with 的 before it keeps it a
// work described, not a step of this task named.)
export const ZH_TITLED_SUBJECT =
  /^[^，,。；;《我]{1,24}的\s*(?:新版|旧版|最新版|修订版|现行)?\s*(?:《[^》]{1,40}》|QUOTEREF)\s*(?:也|还|都|又|同时|则)?[\u4e00-\u9fff]{1,3}了/;
/** Verbs of checking: completed with 过 they say someone looked (看过, 巡检过了, 验证过). */
export const ZH_CHECK_VERB =
  /^(?:看|查|检查|巡检|核对|核|验证|测|测试|试|跑|审|审核|读|对比|比对|确认|排查|复核|校验)$/;
/** A terse status after the task's object (数据清洗完成：, 轮换完成, 解封成功): a report's line. */
export const ZH_STATUS_AFTER = /^(?:完成|完毕|成功|办妥|搞定|好|妥)|^(?:结果)?[：:]\s*$/;
/** 有人, 有几位用户, 别人, 其他人 right before the verb (with its adverbs): someone, not the assistant. */
export const ZH_INDEFINITE_PERSON =
  /(?:有(?:[一几两三多不少很]{1,2}[个位名]?)?(?:人|用户|网友|同事|同学|开发者|读者|客户|朋友)|别人|他人|其他人|其他用户|旁人|某人)(?:已经?|也|都|曾经?|先|早就?|之前|以前|刚刚?|又)*$/;
/**
 * 很多地方已经开通…, 不少航空公司已经允许…, 各省陆续落地: a population of the world led by a word of
 * many (places, banks, airlines, people) as the subject is many others, not the assistant.
 */
export const ZH_MANY_OTHERS =
  /(?:(?:很多|许多|不少|大多数|多数|绝大多数|有些|有的|一些|大部分|越来越多的?)(?:地方|城市|省份?|省市|地区|国家|银行|医院|学校|高校|公司|企业|平台|机构|商家|单位|航空公司|航司|人|用户|网友|农户|厂商|厂家|品牌|运营商|浏览器|网站|App|应用)|各地|多地|各(?:省份?|省市|市|地区|区县|部门|单位|银行|平台|高校|学校|厂商|品牌)|各大[\u4e00-\u9fff]{1,4})(?:都|也|均|早就|早已|已经?|陆续|相继|纷纷|先后)*(?:实行|推行|开通|试行|实施|启用|支持|允许)?[^，,。；;]{0,4}$/;
/**
 * A thing named by a demonstrative or as the user's (这个桶, 该文件, 你们的 Rollout), nothing after
 * it — not a place (你的数据库里新增了一个属性 says what appeared there).
 */
export const ZH_THING_SUBJECT =
  /^(?:(?:这|那|该|此)(?:个|份|张|条|台|篇|些|类|种|套|款|项|家)?|(?:你|您)(?:们)?的)(?!.*(?:已|刚|把|将|被|由|我|你|您|他|她))[\u4e00-\u9fffA-Za-z0-9._-]{1,12}(?<![里中上内下])$/;
/** A subject, then (a marker and) 把/将 and its object: 版本已经把署名…. */
// (A version's dot belongs to the subject: TLS 1.3 把握手…)
// (值班的阿杰已经在 02:10 把网关回滚了: a time or a place may stand between the subject's 已 and 把.)
const ZH_DISPOSAL_SUBJECT =
  /^((?:(?!已|把|将)[\u4e00-\u9fffA-Za-z0-9.]){2,}?)(?:已经?|均已|都已|也已|早已|也|都|又|刚刚?)?(?:(?:在|于)(?:[^把将，,。；;：:]|(?<=\d):(?=\d)){1,16}?)?[把将]/;
/** 被/由 + an agent other than the assistant before the verb. */
export const ZH_PASSIVE_AGENT = /(?:被|由|经由)(?!我|咱)([^\s，,。；;：:]{1,12}?)(?:自动|统一|直接|负责|手动|亲自)?$/;
// (结果 as "so it turned out" opens its clause; after a noun — 调研结果, 测试结果 — it is "the results".)
export const ZH_CAUSE_BEFORE =
  /(?:因为|由于|是因为|原因是|之所以|起因是|导致|造成|引起|所以才|如果|一旦|每当)[^；;。]*$|(?:就|于是|(?<![\u4e00-\u9fff])结果|所以|才)[^，,；;。]{0,12}$|(?:时|的时候|之后|以后|后)[，,][^；;。]*$/;
/** A time before this task (昨天, 上周, 去年…), written after a subject. */
export const ZH_EARLIER =
  /^[^，,。；;]{0,12}?(?:昨天|昨晚|昨日|昨夜|前天|前晚|上周|上星期|上个?月|去年|前年|前几天|几天前|早些时候|之前)/;
/** A release the change shipped in (在 2.3.1 版本修复了, 在 Python 3.12 里已经修复): the software's history. */
export const ZH_VERSION = /在[^，,。；;]{0,16}?v?\d+(?:\.\d+)+[^，,。；;]{0,4}?(?:版本|版|里|中)/i;
export const ZH_CAUSE_AFTER = /^[^，,；;。]*?(?:造成的|导致的|引起的|引发的|所致)/;
/**
 * A year of history, a date the event is placed at (于…年), an era: an event of the world.
 * (已于 2025 年 3 月提交 is the assistant's own dated status.)
 */
export const ZH_DATE =
  /(?:截至|截止到?)\s*\d{1,2}\s*月\s*\d{1,2}\s*日|(?<!已)(?:于|在|是在|早在)\s*(?:公元前?)?\s*\d{3,4}\s*年(?!度)|(?<![已于]\s*)(?:1[0-9]{3}|20[0-9]{2})\s*年(?!度|底|初|末|的|以|之|前|后|[^，,。；;]{0,8}的)|公元前?|世纪|年代|王朝|时期|年间/;
/**
 * The assistant saying it has no permission or cannot act (我这边没有权限, 我无权, 我不能帮你上传,
 * 我没法替你确认): it could not have acted there.
 */
// (订单已经发货，系统里没法再改收货地址了: what the system no longer lets anyone do is the same premise.)
export const ZH_NO_PERMISSION =
  /(?:系统|后台)(?:里|上|中)?[^。；;，,]{0,4}(?:不能|没法|无法|不支持|没办法)|(?:我|我们|这边)[^。；;]{0,6}(?:没有?|无)(?:[^。；;，,]{0,4})权限|(?:我|我们)[^。；;，,]{0,4}无权|(?:我|我们|这边)[^。；;，,]{0,4}(?:不能|没法|无法|不可以|不便|没办法)/;
/** 你/您 as the subject (not 你的…, 帮你, 按你说的). */
export const ZH_USER =
  /(?:^|[^给帮为替跟和向对与让请把将按照依据用从在])(?:你|您)(?:们)?(?![^，,。；;]{0,3}的|说)[^，,。；;给]{0,8}$/;
/** A how-to: a sentence that opens with a step the user takes (打开, 点击, 进入, 选择…). */
export const ZH_HOW_TO =
  /^(?:第?[一二三四五六七八九十\d]+[步、.)）]\s*)?(?:先|再|然后|接着|最后)?(?:打开|点击|点|进入|选择|长按|返回|找到|输入|勾选|切换到|前往)/;

/** Verbs of stating, and a source (an announcement, a vendor, the official side) as their subject. */
export const ZH_STATING_VERB = /^(?:确认|证实|说明|承认|澄清|回应|答复|回复|通报|披露)$/;
export const ZH_SOURCE_SUBJECT =
  /(?:官方|公告|通告|通报|官网|声明|厂商|厂家|供应商|平台|客服|银行|运营商|快递公司|航司|航空公司|报道|媒体)(?:那边|方面)?(?:已经?|均已|都已|也已|也|都|刚刚?)?$/;
/** What follows a subject (a marker, an adverb, a time, 说/把): a noun after the word makes it a modifier (供应商发票). */
const ZH_FOLLOWER =
  /^\s*(?:已|均|都|在|于|也|又|刚|昨|今|上午|下午|说|把|将|给|会|还|就|先|自己|那边|这边|方面|早|一直|用|通过|对|向|从|至今|仍|曾|先后|随后|后来|当时)/;
const ZH_ACTORS = [
  ...[...ZH_OTHER_SUBJECTS].filter((word) => word.length >= 2 || /[他她它]/.test(word)),
  ...["学校", "公司", "政府", "医院", "法院", "管理层", "董事会", "央行", "监管", "厂家", "商家", "对方", "物业"],
  ...["厂商", "云厂商"],
  ...["作者", "研究者", "研究人员", "研究团队", "开发者", "维护者", "评审会", "科学家", "宇航员"],
];
const HAN_NAME = new RegExp(`^[${ZH_SURNAMES}][\\u4e00-\\u9fff]{1,2}?(?=\\S)`);
/** (A product's name may take two or three words: Argo Rollouts 把…, Google Cloud Build 已经…) */
const LATIN_NAME = /^([A-Z][a-z][A-Za-z]{0,18}(?:\s+[A-Z][A-Za-z]{1,18}){0,2}|[A-Z]{2,4})\s*/;

/** A person's name, a role or a Latin name that acts at the start of a clause (王磊昨晚…, Google 发布…, DBA 事后…). */
function namedActor(head: string): string | undefined {
  const latin = LATIN_NAME.exec(head);
  if (latin && (ZH_LATIN_ROLES.test(latin[1]!) || /[a-z]/.test(latin[1]!))) {
    if (ZH_LATIN_FOLLOWER.test(head.slice(latin[0].length))) return latin[1];
  }
  for (const length of [2, 3]) {
    const name = HAN_NAME.exec(head.slice(0, length))?.[0];
    if (name?.length === length && ZH_LATIN_FOLLOWER.test(head.slice(length))) return name;
  }
  return undefined;
}

/**
 * 生化学家詹姆斯·科利普, 弗雷德里克·班廷: a name written with the interpunct of transliterated
 * names, or a profession (…学家, 专家, 教授), opening a clause is a person.
 */
const ZH_FOREIGN_OR_PROFESSION =
  /^[\u4e00-\u9fff]{0,6}?([\u4e00-\u9fff]{1,6}(?:[·•][\u4e00-\u9fff]{1,8})+|[\u4e00-\u9fff]{0,4}(?:学家|专家|作家|画家|诗人|教授)(?![的们]))/;
const headSegmenter = new Intl.Segmenter("zh", { granularity: "word" });

/**
 * 老周, 小王, 小李: 老 or 小 and a surname is how colleagues name each other; at the head of a clause,
 * not before 的, it is a person. (The segmenter keeps 小时, 小区, 老版本 and 小程序 words of their own.)
 */
// (The surnames that start too many words to count alone are names here: the segmenter has split them off.)
const FAMILIAR_SURNAMES = `${ZH_SURNAMES}周马于张万安高方程金白常单时`;
function familiarName(head: string): string | undefined {
  if (!/^[小老]/.test(head)) return undefined;
  const [first, second, third] = Array.from(headSegmenter.segment(head.slice(0, 8)), ({ segment }) => segment);
  const name =
    first?.length === 2 && FAMILIAR_SURNAMES.includes(first[1]!)
      ? { text: first, next: second }
      : first?.length === 1 && second?.length === 1 && FAMILIAR_SURNAMES.includes(second)
        ? { text: first + second, next: third }
        : undefined;
  return name && name.next !== undefined && !/^[的们]/.test(name.next) ? name.text : undefined;
}

/** A program in a code span at the head of a clause, before a time of habit or an actor's follower. */
const ZH_PROGRAM = new RegExp(`^${CODE}\\s*(?:每[天日周月年次个小]|定时|${ZH_LATIN_FOLLOWER.source.slice(1)})`);

/** Someone other than the assistant opening the clause as its subject (客服均已回复, 她在上午…发出了). */
export function otherActorFirst(clause: string): string | undefined {
  // (这篇论文的作者用…: a modifier with 的 before the actor.)
  // (于是 Argo Rollouts 把…: a connective before the actor leaves it the subject.)
  const head = clause
    .replace(/^\s*(?:\d{1,2}[:：]\d{2}\s*)?/, "")
    .replace(/^(?:于是|然后|所以|因此|接着|随后|之后|后来|最后|而且|并且|但是|但|而|并|同时)\s*/, "")
    .replace(/^[^，,的]{1,8}的(?=\S)/, "");
  // (The actor right before the verb is its subject: 管理层关闭了…; 供应商发票核完了 is a noun phrase.)
  // (会议确认了…: an actor directly before a verb of the table.)
  const word = ZH_ACTORS.find(
    (actor) =>
      head.startsWith(actor) &&
      (ZH_FOLLOWER.test(head.slice(actor.length)) ||
        head.trim() === actor ||
        VERBS.some(([verb]) => head.startsWith(`${verb}了`, actor.length))),
  );
  if (word) return word;
  const named = namedActor(head) ?? familiarName(head) ?? ZH_FOREIGN_OR_PROFESSION.exec(head)?.[1];
  if (named) return named;
  // (`backup.sh` 每天这个时间做全量备份，把 IO 打满了: a program in a code span, then a time of habit
  // or what an actor's name is followed by, is what runs — the subject of the clauses after it.)
  if (ZH_PROGRAM.test(head)) return "a program";
  const role = /^[\u4e00-\u9fff]{1,6}?(?=(?:已经?|均已|都已|在|于|也|又|刚|昨|今|上午|下午|说|把|将|给))/.exec(
    head,
  )?.[0];
  return role && ZH_PERSON.test(role) ? role : undefined;
}

/** The subject of a 把 clause, with times and adverbs taken off; two characters at least. */
export function disposerOf(clause: string): string | undefined {
  const disposer = ZH_DISPOSAL_SUBJECT.exec(clause.replace(/\s+/g, ""))?.[1]
    ?.replace(/^.*(?:的时候|时候|之时|之后|以后)/, "")
    .replace(/^(?:然后|接着|随后|之后|最后|并且|而且|同时|另外|于是|所以|因此)+/, "")
    .replace(/(?:顺手|顺便|随手|直接|手动|一并|同时|另外|先|再|也|还|马上|立刻|立即|刚刚?|一起|本地|在本地)+$/, "");
  // (按你说的把第二段删短了: a prepositional phrase before 把 is no subject.)
  if (
    !disposer ||
    disposer.length < 2 ||
    /^(?:按|照|根据|依照|依据|用|在|从|对|给|帮|为|替|经|通过)|你|您/.test(disposer) ||
    // (企业微信通讯录里已经把张伟调到…: a place before 把, with its 里 or 中, is where, not who.)
    /[\u4e00-\u9fff]{2,}(?:里|中|内)$/.test(disposer)
  )
    return undefined;
  return disposer;
}

/**
 * Someone who posted or replied in a channel (骑手在订单里留言说, 教务处今天在群里发了…, 房东在微信里回复说):
 * a stated subject before 在 and the channel is the one who spoke there, and what follows is their
 * words relayed. The writer's own post names itself (我在群里发了), and a thing posted (通知在群里发了)
 * is this task's object.
 */
export const ZH_CHANNEL_SPEAKER =
  /^(?![^在]*(?:我|咱|你|您))(?![^在]*(?:通知|消息|公告|文件|邮件|链接|截图|报告|表格?|稿|材料|附件)\s*(?:今天|刚刚?|刚才|昨天|昨晚|上午|下午|早上|晚上)?\s*在)[^，,。；;：:在]{2,16}?\s*(?:今天|刚刚?|刚才|昨天|昨晚|上午|下午|早上|晚上)?\s*在\s*[^，,。；;：:在]{0,6}?(?:群|微信|电话|订单|邮件|评论区?|钉钉|飞书|朋友圈|工单|公众号|官网|短信)(?:里|上|中)?\s*$/;
export const ZH_SPEAK_VERB = /^(?:回复|留言|发|发布|说|通知|提到|表示|贴|公布|转发|答复|发言|回)$/;

/** What a release does to the software (修复了, 移除了, 引入了). */
export const ZH_RELEASE_CHANGE = /^(?:修复|修正|移除|去掉|删除|引入|新增|加入|增加|废弃|弃用|改进|优化|支持|解决)$/;
/** 6.8.1 起已, 从 v2.3 开始就: a release as the point from which a change holds. */
export const ZH_FROM_RELEASE =
  /^\s*(?:从|自)?\s*(?:[A-Za-z][\w-]*\s*)?v?\d+(?:\.\d+)+\s*(?:版本?)?\s*(?:起|开始|以后|之后|及以上(?:版本)?)\s*(?:就|也|都)?\s*(?:已经?)?\s*$/i;
/**
 * 船代刚回复：, 货代回复说，, 展馆运营方今天上午发了通知，要点如下：: a named party, right before a verb
 * of replying or sending that hands over to their words, spoke — what follows is relayed.
 */
export const ZH_PARTY_WORDS_AFTER = /^(?:说|称|道)?\s*[：:]|^(?:说|称|道)\s*[，,]/;
/** 发了通知，要点如下：: a verb of sending with a notice or a reply as its object, then a colon. */
// (联盟今天中午发布了关于 X 选手的处罚公告，主要内容是这样的：, 气象台发布了高温预警，称…: the
// notice may be named at length, and what it says may follow a comma with 称 or 说 as well as a colon.)
export const ZH_PARTY_NOTICE_AFTER =
  /^(?:了|过)\s*(?:一[条份封个则])?[^，,。；;：:我你您]{0,24}(?:通知|公告|通告|通报|公报|声明|预警|消息|邮件|答复|回复|说明|反馈)\s*(?:(?:[，,]\s*[^。；;：:我]{0,10})?[：:]|[，,]\s*(?:称|说|表示|指出)(?![明服职呼号]))/;
/** The party: no first or second person, no marker of a step done to a thing (通知已发：). */
// (中央气象台今天 10 时: a clock time may follow the day.)
export const ZH_PARTY_BEFORE =
  /^[\u4e00-\u9fffA-Za-z]{2,12}?(?:(?:今天|昨天|昨晚|刚刚?|刚才|上午|下午|早上|晚上|今早|中午)\s*){0,2}(?:\d{1,2}\s*(?:时|点)(?:\s*\d{1,2}\s*分|半)?)?$/;
export const ZH_PARTY_NOT = /我|咱|你|您|已|(?:通知|消息|公告|邮件|短信|回复|答复|文件|稿|材料|附件|内容|信息)/;

/** Right after the verb, brackets that name who did it: （刘洋处理的）, （由值班同事操作）. */
export const ZH_DOER_IN_BRACKETS =
  /^\s*[（(]\s*(?:由|是)?\s*([^（()）]{1,12}?)\s*(?:亲自|已经?|一起|帮忙)?\s*(?:处理|完成|做|操作|执行|修复|修|负责|跟进|搞定|改|发|回滚|重启)(?:的|了)?\s*[）)]/;

/** A group of places or bodies with its marker before the verb: 部分区已经, 多数银行都已, 各地已. */
export const ZH_GROUP_BEFORE =
  /(?:^|[^\u4e00-\u9fff]|目前|现在|如今|截至目前|今年|去年)(?:部分|一些|多数|大多数|大部分|不少|很多|个别|多个|有些|各|各个|全国多个?|多)(?:地区|地方|地|区|县|市|省|城市|银行|医院|学校|高校|门店|平台|网点|商家|厂商|单位|部门|机构|派出所|窗口|运营商|航司|航空公司)\s*(?:都|也|均)?\s*(?:已经?|已)\s*$/;

/** A text in words as the topic of its clause: 通知稿已经, 这封邮件我. */
export const ZH_TEXT_TOPIC =
  /(?:^|[，,。；;\n])\s*[^，,。；;\n我你您]{0,8}(?:稿|稿子|函|信|文案|正文|邮件|纪要|简历|文章|段落|措辞|译文|摘要|开场白|致辞|公告|通知|回复|话术)[^，,。；;\n]{0,16}$/;
/** Verbs that revise a text's wording: 改成, 润色, 精简, 重写. */
export const ZH_TEXT_EDIT_VERB = /^(?:改|改成|改为|改写|润色|修改|调整|精简|重写|扩写|缩写|翻译|压缩)$/;
/** The next clause says the text stands above or below: ，内容在上面, ，全文贴在下面了. */
export const ZH_SHOWN_HERE_NEXT =
  /^[^，,。；;\n]{0,16}[，,]\s*(?:改好的|修改后的|新的?|完整的)?(?:内容|正文|全文|新版|版本|稿子|文字)?\s*(?:就|都)?\s*(?:在|放在|附在|贴在|写在|见)(?:了)?\s*(?:上面|下面|上方|下方|上边|下边|文末)/;

/** This very piece as the subject with its marker: 这份总结已经, 本报告已. */
export const ZH_THIS_PIECE = /^(?:这份|这篇|本份|本)(?:总结|报告|摘要|纪要|文档|清单|表格|分析)(?:已经?|也已|都已)$/;
/** Verbs of sending or sharing a piece. */
export const ZH_SHARE_VERB = /^(?:发|发送|分享|上传|同步|推送|转发|贴|共享)$/;

/** An organisation, then a time of its own: 人民文学出版社后来, 某银行 2019 年. */
export const ZH_ORG_THEN =
  /^[\u4e00-\u9fff]{0,10}(?:出版社|公司|集团|银行|大学|医院|政府|委员会|协会|研究院|研究所|法院|基金会|博物馆|电视台|报社)(?:后来|当年|早年|此后|之后|随后|\d{4}年)/;

/** Verbs of arranging or marking a text: 归类, 分类, 整理, 梳理, 理一下, 标注, 标成. */
export const ZH_ARRANGE_TEXT = /^(?:归类?|分类|整理|梳理|理顺?|捋顺?|归纳|概括|标注?|标成|标记|划分|分组)$/;
/** A colon, then advice that opens with a step to take (：检查…, ：先试试…). */
export const ZH_PROBLEM_THEN_ADVICE =
  /^[^，,。；;：:]{0,20}[：:]\s*(?:先|请|可以|建议|需要)?(?:检查|确认|试试|尝试|重新|打开|关闭|去|点|看看|查看|更新|重启|换)(?![了过])/;
/** Verbs that rename or merge a thing (改为水资源税, 更名为…). */
export const ZH_RENAMED = /^(?:改为|改成|更名为|改名为|更名|改名|改称|并入|合并为)$/;
/** A time of late right before the marker of completion (这周已经, 今年都). */
export const ZH_LATELY_DONE =
  /\S\s*(?:这周|本周|这个月|本月|今年|前几天|这几天|近日|上周|上个月)\s*(?:已经?|都|也)?\s*$/;
/** Parties listed with 、 and closed by 等 as the subject (微软、Okta 等都…). */
export const ZH_LISTED_OTHERS =
  /[^，,。；;：:、\s]{1,12}、[^，,。；;：:]{1,30}?等(?:都|也|均|已经?|纷纷|相继|先后|陆续)*\s*$/;
export const ZH_LISTED_AHEAD =
  /^\s*[^，,。；;：:、\s]{1,12}、[^，,。；;：:]{1,30}?等(?:都|也|均|已经?|纷纷|相继|先后|陆续)*/;
/**
 * Someone's words as what is arranged: 房东的意思, 医生的话, 他说的; or what people wrote to each
 * other, shown as this conversation's material (这串邮件往来, 这段聊天记录, 会议纪要).
 */
export const ZH_WORDS_ARRANGED =
  /(?:的意思|的话|说的|的说法|的原话|邮件往来|往来邮件|聊天记录|对话记录|会议记录|纪要|[这那][串封段些份]邮件)/;

/** A frame that names a plan before its steps (计划是：, 接下来：, 打算). */
// (我的安排是这样的：: the plan's owner and a 这样的 before the colon frame it too.)
export const ZH_PLAN_FRAME =
  /^(?:我的|我们的)?(?:计划|打算|方案|安排|步骤|思路|下一步|接下来|后续)(?:是|为)?(?:这样的|如下)?$/;

/** A plan named and then 是 with its first step, in the same sentence: 我的思路是先…, 计划是首先…. */
export const ZH_PLAN_OPENS =
  /(?:^|[。；;！!？?\n])\s*(?:我的|我们的|我这边的)?(?:计划|打算|方案|安排|思路|想法)(?:是|为)\s*(?:先|首先|第一步)[^。；;！!？?\n已了]*$/;

/** A clause that opens with a step the user takes (点…, 选…, 勾选…). */
// (先在飞书「审批」里选「费用报销」: a place where the step is taken may stand before its verb.)
// (营销中心 → 店铺优惠 → 满减活动 → 新建: a menu path is where the user's steps are taken.)
export const ZH_STEP_CLAUSE =
  /^(?:先|再|然后|接着|最后)?(?:在[^，,。；;]{1,24}?[里中上内](?:面|边)?)?(?:点击?|选择?|打开|进入|勾选|长按|返回|找到|输入|切换到|前往)|^[^，,。；;→>]{1,16}(?:\s*(?:→|->|>|›)\s*[^，,。；;→>]{1,16}){2,}$/;
/** The verb completed by a marker of time or a 了 of its own (not a bare 好 or 完). */
export const completedByMarker = (before: string, after: string) =>
  /已|刚/.test(before.split(CLAUSE_SPLIT).at(-1) ?? "") || /^[^，,。；;]{0,8}了/.test(after);

export const lastClauseOf = (before: string) =>
  (before.split(/[，,；;：。！!]|(?<!\d):|:(?!\d)/).at(-1) ?? before).replace(/\s+/g, "");

/** After the verb, in its clause: 是 someone (自己) 做的 — a cleft that names who did it. */
export const ZH_CLEFT_AFTER =
  /^[^是]{0,16}是\s*([^，,。；;是的]{1,20}?)\s*(?:自己|自动|亲自|手动)?(?:做|干|弄|搞|触发|执行|操作|处理|发起)的/;
/** A cleft in an earlier clause that names who did it: 是 HPA 自动触发的：. */
export const ZH_CLEFT_EARLIER =
  /是\s*([^，,。；;是的：:]{1,20}?)\s*(?:自己|自动|亲自)?(?:做|干|触发|执行|操作|发起)的\s*[：:，,；;]/;
/** Inside an open aside, right before the verb: 只 — only so much (（超时时间只设了 1 秒）). */
export const ZH_ASIDE_VALUE_BEFORE = /[（(][^（）()]*只\s*$/;
/** A label that names a condition or a rule (回滚条件：, 触发规则：, 上线标准：). */
export const ZH_RULE_LABEL = /^\s*[^，,。；;：:]{0,10}(?:条件|规则|标准|前提|原则|策略|阈值)\s*[：:]/;
/** A count and a classifier, then 已 right before the verb. */
export const ZH_COUNTED_BEFORE =
  /[\d一二三四五六七八九十百千万几多]\s*(?:种|个|项|条|台|家|名|位|份|件|款|批|类)(?:已经?|均已|都已)$/;
/** A bare noun right after the verb, then the clause ends: the verb describes it. */
export const ZH_NOUN_AFTER = /^(?!了|过|完|好)[\u4e00-\u9fff]{1,4}(?:\s*(?:[，,。；;！!）)]|$))/;
/** What declines the step just named: 这个不行, 这个我做不了, 这事办不到. */
// (帮你绕过许可证校验我做不到: the writer may decline it in its own words, with no 这个 before.)
export const ZH_TURNED_DOWN =
  /^[^。；;，,]{0,40}?(?:(?:这个|这件事|这事|这|这种事)(?:我|我们)?(?:不行|做不了|办不到|帮不了|不能做|没法做|不可以|不能帮)|(?:我|我们)(?:做不到|做不了|办不到|帮不了))/;
/** In the verb's own clause, the writer says it cannot or will not do it for the user: 我不能帮你把…提交. */
export const ZH_DECLINED_FOR_READER =
  /(?:我|我们)(?:不能|不会|无法|没法|不可以|不便|不方便)(?:再)?(?:帮|替|为|给)(?:你|您)[^，,。；;：:！!？?]*$/;
/** 得 and a word of degree right before the verb: 讲得比较到位, 写得很清楚. */
export const ZH_DEGREE_BEFORE = /得\s*(?:比较|很|挺|非常|相当|还算|更|最|不太|不够|特别)\s*$/;
/** The rest of a sentence that names a step with no completion and turns it down: …提交，这违反…，我不能这么做. */
export const ZH_TURNED_DOWN_LATER =
  /^(?![了过完好])[^。；;了]{0,60}?(?:我|我们)(?:不能|没法|无法|不会|不可以)(?:这么|这样)(?:做|办|干)/;

/** The rest of a clause that ends in 的话 or 时 (not 及时, 同时, 小时, 当时…) before a comma, with no 了 in it (an emoji ends a sentence of its own). */
export const ZH_CONDITION_CLAUSE =
  /^[^，,。；;了\p{Extended_Pictographic}]{0,30}?(?:的话|(?<![小及按准同临随暂届适定平当那此这])时)\s*[，,]/u;
