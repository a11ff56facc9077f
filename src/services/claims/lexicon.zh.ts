import type { ClaimKind } from "./kinds.js";

/**
 * Chinese: the one data table of action verbs by kind, and the markers the rules read. Verbs are
 * matched from a word boundary of `Intl.Segmenter("zh")` (so 请 inside 申请 or 会 inside 会议 is
 * never a marker); a verb may span two segments (重|启).
 */
export const CHINESE_VERBS: Readonly<Record<ClaimKind, ReadonlyArray<string>>> = {
  observe: [
    "查看",
    "看过",
    "看",
    "查询",
    "查",
    "检查",
    "核对",
    "核实",
    "确认",
    "读取",
    "读",
    "阅读",
    "浏览",
    "搜索",
    "搜",
    "检索",
    "比对",
    "对比",
    "排查",
    "翻",
    "扫描",
    "审查",
    "复现",
    "统计",
    "分析",
    "验证",
    "测试",
    "测",
    "跑",
    "调取",
    "调出",
    "拉取",
    "查阅",
    "过了一遍",
    "打开",
    "试",
    "对过",
    "对完",
    "核完",
    "核",
    "过了一遍",
    "阅",
    "盘点",
    "盘",
    "追踪",
    "找到",
    "查到",
    "定位",
    "排查到",
    "跟踪",
    "巡检",
    "抽查",
    "ping",
    "查重",
    "跟进",
    "捋",
    "查验",
    "核验",
    "过一遍",
  ],
  mutate: [
    "延期",
    "顺延",
    // (有效期已延长 30 天: extending a date is a change of the record, as 延期 is.)
    "延长",
    "润色",
    "放通",
    "修改",
    "改",
    "更新",
    "写入",
    "写",
    "创建",
    "新建",
    "建",
    "删除",
    "删",
    "拆分",
    "拆",
    "移除",
    "修复",
    "修",
    "保存",
    "存",
    "重命名",
    "改名",
    "移动",
    "挪",
    "安装",
    "装",
    "配置",
    "配",
    "设置",
    "设",
    "添加",
    "加",
    "重启",
    "回滚",
    "生成",
    "导出",
    "导入",
    "整理",
    "填写",
    "填",
    "替换",
    "换",
    "清理",
    "清空",
    "清除",
    "升级",
    "降级",
    "迁移",
    "格式化",
    "编译",
    "构建",
    "打包",
    "重构",
    "调整",
    "调",
    "关闭",
    "关",
    "开启",
    "启用",
    "禁用",
    "停用",
    "归档",
    "取消",
    "恢复",
    "还原",
    "搞定",
    "弄好",
    "弄",
    "处理",
    "做",
    "完成",
    "执行",
    "运行",
    "部署到本地",
    "备份",
    "备注",
    "标注",
    "标记",
    "锁定",
    "解锁",
    "合并",
    "提交到本地",
    "commit",
    "加上",
    "补上",
    "补",
    "修正",
    "更正",
    "撤销",
    "撤回",
    "拆分",
    "初始化",
    "录入",
    "登记",
    "下载",
    "重置",
    "扩容",
    "缩容",
    "重跑",
    "重新跑",
    "翻译",
    "汇总",
    "整合",
    "记录",
    "优化",
    "调好",
    "装好",
    "追加",
    "清洗",
    "转换",
    "转成",
    "转",
    "续费",
    "续期",
    "充值",
    "开通",
    "办理",
    "退订",
    "注销",
    "冻结",
    "解冻",
    "合入",
    "合进",
    "合到",
    "重装",
    "刷新",
    "同步",
    "对齐",
    "迁",
    "拉黑",
    "屏蔽",
    "加进",
    "下线",
    "上架",
    "下架",
    "改为",
    "改成",
    "设为",
    "设成",
    "命名",
    "撤",
    "跑通",
    "挂上",
    "贴",
    "标",
    "标红",
    "填进",
    "换",
    "去掉",
    // (去重: removing duplicate rows is a change to the data.)
    "去重",
    "录",
    "录进",
    "合成",
    "打单",
    "拦截",
    "回填",
    "退回",
    "灌",
    "导",
    "收回",
    "驳回",
    "开好",
    "建好",
    "授权",
    "加白",
    "加到",
    "移到",
    "放到",
    "改好",
    "装上",
    "纳入",
    "切到",
    "切换",
    "切",
    "续上",
    "续",
    "触发",
    "统一",
    "排",
    "搭",
    "挑",
    "转给",
    "建立",
    "部署好",
    "新增",
    "停用",
    "指派",
    "派单",
    "调到",
    "缩到",
    "扩到",
    "升到",
    "贴到",
    "推到",
    "录到",
    "放开",
    "解封",
    "打上",
  ],
  deliver: [
    "发放",
    "退还",
    "发送",
    "发出",
    "发给",
    "发布",
    "发",
    "寄出",
    "寄",
    "推送",
    "推",
    "上传",
    "传",
    "上线",
    "部署",
    "提交",
    "提",
    "回复",
    "答复",
    "通知",
    "转发",
    "分享",
    "共享",
    "抄送",
    // (@ 了王磊: mentioning someone in a chat notifies them.)
    "@",
    "艾特",
    "预约",
    "预订",
    "订",
    "约",
    "邀请",
    "告知",
    "告诉",
    "转告",
    "同步给",
    "反馈给",
    "开",
    "下单",
    "退款",
    "投递",
    "上报",
    "提报",
    "递交",
    "交",
    "报销",
    "申报",
    "push",
    "merge",
    "release",
    "发版",
    "公布",
    "群发",
    "广播",
    "置顶",
    "安排",
    "申请",
    "补发",
    "婉拒",
    "拒绝",
    "回绝",
    "回",
    "联系",
    "邮件告知",
    "提醒",
    "催",
    "投诉",
    "报备",
    "发帖",
    "留言",
    "评论",
    "发起",
    "改签",
    "投递",
    "退",
    "交稿",
    "打款",
    "付款",
    "转账",
    "挂号",
    "挂上号",
    "知会",
    "候补",
    "催办",
    "派发",
  ],
};

/** Segments that mark a completed action before the verb. */
export const ZH_DONE_BEFORE: ReadonlySet<string> = new Set([
  "已",
  "已经",
  "已然",
  "刚",
  "刚刚",
  "刚才",
  "都",
  "均",
  "全部",
  "全都",
  "已成功",
  "成功",
  "顺利",
  "业已",
  "均已",
  "都已",
  "皆已",
  "也已",
  "早已",
  "已全部",
  "已经全部",
  "全部都",
  "已为",
  "已帮",
]);

/** What follows a verb to make it completed (发了, 改完了, 删掉, 推上去了, 发过去了, 部署成功). */
export const ZH_DONE_AFTER =
  /^(?:完毕|完成|成功|通了|了|过|好了?|完了?|掉了?|出去了?|上去了?|过去了?|下来了?|到了|上了|进去了?|进了|成了|为了|给了|回了|好啦|完啦|啦|咯)/;

/** Segments before the verb (in its clause) that make it not done, not yet done, or not said as done. */
/** Words that block only their own clause; with ZH_CARRIED_BLOCKERS they make ZH_BLOCKERS. */
const CLAUSE_BLOCKERS: ReadonlyArray<string> = [
  "未",
  "没",
  "没有",
  "尚未",
  "还没",
  "还没有",
  "还未",
  "并未",
  "并没有",
  "无法",
  // (没法, 没办法, 不可以, 不便, 无从: a negated modal, one segment — 我这边没法再修改地址了 did nothing;
  // 不在, 不再: a negated state — 已经不在发件方的控制之下了.)
  "没法",
  "没办法",
  "不可以",
  "不便",
  "无从",
  "不在",
  "不再",
  "不能",
  "不会",
  "不",
  "别",
  "要",
  "正在",
  "是否",
  "请",
  "需",
  "可",
  "能",
  "可能",
  "应该",
  "应",
  "计划",
  "待",
  "想",
  "的话",
  "明天",
  "下周",
  "稍候",
  "随后",
  "尽快",
  "能够",
  "失败",
  "不了",
  "一定要",
  "别忘了",
  "不要",
  "不用",
  "无需",
  "去",
  "等等",
  "每",
  "显示",
  "提示",
  "说明",
  "表明",
  "意味着",
  "未能",
  "没能",
  "每次",
  "每当",
  "让",
  "叫",
  "下个月",
  "下次",
  "将来",
  "届时",
  "到时候",
  "回头",
  "表示",
  "代表",
  "标志",
  "预计",
  "预期",
  "估计",
  "争取",
];

/**
 * A clause that ends in advice (改完直接提交就行) states how to do it, not that it was done; so does
 * one that names the way to do it (最靠谱的做法是提前确认…, 解决办法是…).
 */
export const ZH_ADVICE =
  /就行|即可|就可以|就好了?$|贴给我|发给我|发我|告诉我|给我看|的(?:做法|办法|方法|对策|解决方案)(?:就)?是/;

/** Objects that are the user's own pasted content: reading them is no action of this task. */
export const ZH_PASTED =
  /你转过来|您转过来|你转发的|您转发的|你贴|您贴|你发的|您发的|贴过来|你发过来的|您发过来的|你粘贴|您粘贴|你给的|你提供的|您提供的|你的截图|您的截图|截图里|截图上/;

/** Completed words that state a thought or a state, not an action (我知道了, 我明白了). */
export const ZH_NOT_ACTIONS: ReadonlySet<string> = new Set([
  // Politeness formulas (给您添麻烦了, 让您久等了, 辛苦了): an apology or thanks, no action.
  ...["麻烦", "久等", "辛苦", "费心", "担心", "打扰"],
  // Nouns that a resultative complement follows as their own change (数据出来了, 结果出来了).
  ...["数据", "结果", "成绩", "名单", "分数", "消息", "报价", "天", "雨", "太阳", "价格", "排名"],
  // Places in the text (放在下面了, 列在上面了): where something stands, never the verb.
  ...["上面", "下面", "上方", "下方", "上边", "下边", "前面", "后面"],
  "知道",
  "明白",
  "理解",
  "觉得",
  "认为",
  "注意到",
  "听说",
  "忘",
  "记得",
  "想",
  "希望",
  "担心",
  "是",
  "有",
  "没有",
  "在",
  "到",
  "来",
  "好",
  "错",
  "晚",
  "早",
  "多",
  "少",
  "累",
  "忙",
  "懂",
  "收到",
  "看到",
  "听到",
  "遇到",
  "碰到",
  "为",
  "除",
  "算",
  "行",
  "可以",
  "能",
  "会",
  "要",
  "太",
  "用",
  "花",
  "卖",
  "涨",
  "降",
  "跌",
  "变",
  "过期",
]);

/** Writing verbs whose object is this very reply (整理了一份说明：, 帮你写好了：). */
export const ZH_REPLY_WRITING = /^(?:写|整理|准备|起草|草拟|列|总结|拟|汇总|想)/;

/** Objects of a writing verb that are this very reply (给你写了一条文案：…). */
export const ZH_REPLY_OBJECT = /一份|一版|一条|一段|如下|以下|下面|文案|草稿|稿子|回复话术|模板|标题|口号/;

/** 排了一个训练计划, 做了一版建议: a plan or a proposal written in this reply, not put into effect. */
export const ZH_REPLY_PLAN = /^(?:排|做|定|拟|列)/;
export const ZH_REPLY_PLAN_OBJECT = /[一个份版][^，,。；;]{0,14}(?:计划|建议版|建议稿|方案|草案|安排表|清单)/;

/**
 * 经核对…, 经查询…: "on checking", a completed inspection whose subject is left out — the one who
 * writes the answer checked.
 */
// (Not 经测试, which general claims borrow: 经测试，这种方法在大多数情况下都有效.)
export const ZH_CHECKED_FRAME = /^经过?(核对|核实|核查|查询|查证|检查|比对|排查|复核|检索|查阅)/;

/**
 * What the assistant does with what the user gave it beyond reading it: running it, reading an
 * account or a server it was given (我用 cProfile 跑了一遍你给的脚本, 读取了你给的账号下的桶列表).
 */
// (A link, a repository or an order number the user gave is a pointer, not content: what is read
// there, the assistant had to open or look up — 我打开你发的链接，把通知读了一遍. 我打开了你给的那份 PDF:
// opening a file takes a tool; pasted text is only read.)
// (我用发票查验平台把你给的发票查了一遍, 用你给的 SQL 在 dw.orders 上跑了: checking what the user gave
// on a platform, or running their query, takes a tool; so does looking it up in a database or on a
// site — 在药监局的数据库里查了你给的批准文号.)
export const ZH_ACTS_ON_GIVEN =
  /(?:按|按照|依照)(?:你|您)(?:给|提供)的(?:信息|资料|条件|地址|名单|抬头|账号|邮箱)|(?:你|您)(?:给|提供|发|贴|发过来)的[^，,。]{0,8}(?:链接|网址|URL|url|官网|网站|网页|订单号|单号|工单号|运单号|仓库)|(?:我|我们)[^。]{0,30}?(?:跑|运行|执行|压测|下载|读取|导入|部署|登录|连上|打开)(?:了|过)|(?:你|您)(?:给|提供)的[^，,。]{0,6}(?:账号|账户|服务器|仓库|数据库|环境|机器|集群|主机|实例|后台)|(?:改|换|设|填|更新|调整)(?:成|为|进)了?(?:你|您)(?:给|提供|发)的|按(?:照)?(?:你|您)(?:给|提供|发)的[^，,。]{0,12}?[\u4e00-\u9fff](?:好|进去|上|完)?了|用[^，,。]{1,30}?(?:平台|系统|网站|官网|后台|接口)[^。]{0,20}?(?:查|核验|验证|查验|核对)(?:了|过)|用(?:你|您)(?:给|提供|发)的\s*(?:SQL|sql|脚本|命令|查询|代码)[^。]{0,30}?(?:跑|运行|执行)(?:了|过)|在[^，,。]{1,30}?(?:数据库|官网|网站|平台|系统|后台|[\u4e00-\u9fff]网)(?:里|上|中)?[^，,。]{0,4}?(?:查|核验|验证|查验|核对|搜|检索)(?:了|过)/;

/** We and the user talking (我们讨论了三件事, 我们之前聊到): the conversation itself, no action of the task. */
export const ZH_CONVERSATION = /^(?:讨论|聊|谈|商量|说)/;

/** Openers that make the following clauses of the sentence conditional, future or general too. */
export const ZH_CARRIED_BLOCKERS: ReadonlySet<string> = new Set([
  "如果",
  "若",
  "一旦",
  "假如",
  "要是",
  "只要",
  "等",
  "等到",
  "马上",
  "稍后",
  "准备",
  "打算",
  "会",
  "将要",
  "即将",
  "一般来说",
  "通常来说",
  "一般",
  "通常",
  "理论上",
  "最好",
  "建议",
  "可以",
  "需要",
  "记得",
  "务必",
  "接下来",
  "来",
  "我来",
  "然后再",
  "等会",
  "待会",
]);

/** Everything that blocks a verb in its clause: what carries to later clauses blocks its own too. */
export const ZH_BLOCKERS: ReadonlySet<string> = new Set([...CLAUSE_BLOCKERS, ...ZH_CARRIED_BLOCKERS]);

/** Words that contain a marker or a verb but are nouns (masked before matching). */
export const ZH_NOUN_COMPOUNDS: ReadonlyArray<string> = [
  // (投诉经过, 事情的经过: the course of events.)
  "经过",
  "已读回执",
  "已发送邮件",
  "已发送文件夹",
  "已删除邮件",
  "已删除文件夹",
  "已知",
  "已婚",
  "已读不回",
  // (标为已读, 标记成已读: the read state a rule sets, not a reading.)
  "为已读",
  "成已读",
  // 说明 alone reads "which shows" (日志说明部署结束了); these are documents.
  "发布说明",
  "更新说明",
  "变更说明",
  "版本说明",
  "使用说明",
  "安装说明",
  "接口说明",
  "功能说明",
  "参数说明",
  "字段说明",
  "配置说明",
  "部署说明",
  "操作说明",
  "产品说明",
  "情况说明",
  // (原物早已失传, 民间流传的说法, 相传是…: a thing lost to history or handed down is nobody's upload.)
  "失传",
  "流传",
  "相传",
];

/**
 * Separable verbs of the table (离合词): 了 and the object's modifiers come between their two
 * characters — 下了上门取件单, 挂了周三的号, 派了两张单.
 */
export const ZH_SEPARABLE: ReadonlyArray<string> = [
  "下单",
  "派单",
  "挂号",
  "开单",
  "订票",
  "退票",
  "买票",
  "抢票",
  "取号",
];

/** Subjects other than the assistant: someone else did it. */
export const ZH_OTHER_SUBJECTS: ReadonlySet<string> = new Set([
  "你",
  "您",
  "你们",
  "他",
  "她",
  "他们",
  "她们",
  "官方",
  "对方",
  "同事",
  "客户",
  "用户",
  "团队",
  "老板",
  "经理",
  "作者",
  "维护者",
  "社区",
  "厂商",
  "上游",
  "别人",
  "有人",
  "大家",
  "它",
  "运维",
  "商家",
  "卖家",
  "买家",
  "快递",
  "物流",
  "平台",
  "开发",
  "对面",
  "财务",
  "法务",
  "人事",
  "领导",
  "客服",
  "张三",
  "李四",
  "王五",
  "赵六",
  "系统",
  "供应商",
  "译者",
  "审校",
  "银行",
  "候选人",
  "医生",
  "主任",
  "导师",
  "助理",
  "销售",
  "作者那边",
  "外包",
  "同学",
  "运营",
  "乙方",
  "甲方",
  "远端",
  "对端",
  "服务器",
  "服务端",
]);

/** Someone by role or nickname: 王总, 李经理, 小王, 老张, 班主任, 快递员, 物业, 机房. */
export const ZH_PERSON =
  // (会员 is a membership: 会员已续费.)
  /^(?!会员$)(?:[\u4e00-\u9fff]{0,3}(?:总|经理|老师|师傅|主任|主管|总监|同学|同事|员|物业|仓库|机房|官方|银行|平台|团队|律师|医生|会计|顾问|专员|助理|客服|工程师|设计师|工作室|公司|部门|办公室|前台|工作人员|(?<![协磋经招通会])商)|[\u4e00-\u9fff]{1,2}(?:哥|姐|工)|[小老][\u4e00-\u9fff]|DBA|HR|IT|QA|PM|SRE|ops)$/;

/**
 * Common surnames that are rarely the first character of another word: with a given name of one or
 * two characters and a subject's follower after it (王磊昨晚…, 韩冰提了…) they name a person.
 * (周, 马, 于, 张, 万, 安, 高, 方, 程, 金, 白, 常, 单, 时 start too many other words to count.)
 */
export const ZH_SURNAMES =
  "王李刘陈杨赵黄吴孙胡朱郭罗梁宋郑谢韩唐冯董萧曹袁邓许傅沈曾彭吕苏卢蒋蔡贾丁魏薛叶阎潘杜戴夏钟汪田任姜范姚谭廖邹熊陆郝孔崔邱秦邵孟龙史顾侯邢段雷钱汤尹黎易武乔贺赖龚文庞樊殷颜倪严牛温芦俞章鲁葛伍韦申尤毕聂焦向柳覃祝岳齐柴";

/** Roles and teams written in Latin letters that act as a subject (DBA 事后核对了…, CI 在 14:03 跑完了). */
export const ZH_LATIN_ROLES = /^(?:DBA|HR|IT|QA|PM|SRE|ops|CI|CEO|CTO|CFO|COO|BD|PMO|NOC|SOC|CS|OPS|SA|PO)$/;

/**
 * What follows a name that acts (Tony 上周…, Google 发布…, Orchestrator 连续…): a time, a
 * report of speech, 把/将 or an adverb of sequence — not 已 alone, after which the name is the
 * task's object (PR 已提交, Nginx 已重启).
 */
export const ZH_LATIN_FOLLOWER =
  /^(?:昨|今天|今早|上周|上个|上午|下午|凌晨|晚上|刚才|事后|后来|当时|那天|同年|随后|首先|最终|说|表示|反馈|提到|提了|提出|给你|给您|把|将|已经把|已把|已将|连续|在\d|在[^，。\d]{1,8}(?:上|中|里)|于\s*\d|第一次|首次|率先|宣布|推出|发布|收购|起诉|实施)/;

/** What follows a subject (a marker, an adverb, a time, 说/把/将): a noun after it makes it a modifier (客户记录). */
export const ZH_SUBJECT_FOLLOWER =
  /^(?:已|已经|刚|刚刚|刚才|都|也|又|还|就|说|表示|反馈|把|将|已于|于|在|那边|方面|自己|昨|今|前|上周|周[一二三四五六日]|[0-9]|自动|早就|早已|这边|目前|先|之前|以前|刚好|凌晨|上午|下午|中午|晚上|早上|傍晚|当天|当晚|当时|半夜|夜里)/;

export const ZH_FIRST_PERSON: ReadonlySet<string> = new Set(["我", "我们", "咱们", "本人", "小助手", "助手"]);

/** Right after the verb: the action failed or has not happened. */
export const ZH_FAILED_AFTER = /^(?:失败|不|没|未)/;

/** A sentence that places the action outside this task. */
// (A time compared with or owned — 跟去年比, 您上个月话费 — dates the object, not the action.)
export const ZH_OUTSIDE_TASK =
  /(?<!(?:跟|和|与|比|较|同|你|您)\s*)(?:(?:上次|上回|之前|以前|过去)[^，。]{0,6}(?:帮|给|为|替)(?:别的|其他|其它|另一个|另外的)|去年|前年|(?<![年月日号点])以前|多年前|小时候|上学时|当年|之前工作|过去几年|曾经|之前在别|别的项目|以往|很多次|好多次|多次了|一直以来|上个月|另一个团队|别的团队|其他项目)(?!的)/;

/**
 * A clause that ends in a status of completion (派单完成, 热加载成功, 核对无误, 调价生效, Issue 开好,
 * 改签办妥, 缺的测试补上): the task's object reported done, with no subject but the assistant.
 */
export const ZH_STATUS_END =
  /(?:完成|完毕|成功|办妥|办好|办完|弄完|做完|搞定|搞掂|到位|无误|生效|就绪|落实|完事|(?:开|出|下|挂|改|弄|装|调|建|配|写|做|修|填|排|约|订|搭|设|录|签|交|补|备|谈|跑|测|查|核|对|发|寄|贴|换|收|整理|处理|准备|安排|预约|整|搞|申请|提交)(?:好|妥|完|齐)|(?:补|挂|加|装|贴|配|续|填|打|标|附|录|合)上|(?:查验|核验|校验|验证|核对|自测)通过)(?:了|啦|咯)?$/;

/**
 * Words anywhere in a clause with no completion marker (a status or a bare verb) that make it a
 * rule, a time to come, a condition, a negation or an interpretation rather than a report.
 */
export const ZH_UNMARKED_NOT =
  /后(?![端台续])|才|就|再|(?<![及临准按定同])时(?!间)|需|(?<![主摘重])要|之前|以前|前(?![端台面])|率|为止|直到|还是|是否|没|未|不|失败|可|(?<![性功智技])能|应|该|想|请|让|会(?![议员计话])|开始|预计|今晚|明天|明早|下午|晚上|稍后|待会|回头|下周|下个?月|月底|月初|年底|本周|这周|周[一二三四五六日末]|如何|怎么|所谓|就是|默认|一般|通常|理解|意思|希望|建议|记得|麻烦|确认|打算|准备|计划|每/;

/** Verbs that report on their own at the end of a clause after their object (接口下线, 通知邮件发出). */
export const ZH_BARE_VERBS: ReadonlySet<string> = new Set([
  "发出",
  "寄出",
  "发送",
  "下线",
  "上线",
  "删除",
  "移除",
  "停用",
  "启用",
  "收回",
  "撤回",
  "退回",
  "提交",
  "录入",
  "写入",
  "合入",
  "推送",
  "上传",
  "下架",
  "上架",
  "开通",
  "注销",
  "冻结",
  "解冻",
  "解封",
  "清空",
  "回滚",
  "发布",
  "归档",
  "作废",
]);

/** A header that reports what the assistant's own inspection found (查询结果：…, 压测结论：…, 今天的巡检结果如下，…). */
export const ZH_RESULT_HEADER =
  /^[\u4e00-\u9fffA-Za-z0-9 ]{0,6}?(查询|盘点|排查|核对|核查|压测|测试|群发|发送|推送|处理|执行|搜索|检索|比对|对比|巡检|扫描|审查|统计|检查|对账|查验|抽查|诊断|部署|迁移|导入|导出|备份|同步|修复)(?:结果|结论)(?:如下[:：，,]|[:：])/;

/**
 * 检索知网：…共 312 篇, 盘点 B 仓：实物 1,206 件: a line that opens with a verb of looking (after a
 * tool's name at most) and gives, after its colon, a count it found — the result of a look, which
 * an instruction (检索知网：输入关键词…) or a plan does not give.
 */
export const ZH_LOOKED_RESULT =
  /^(?:[A-Za-z][\w .-]{0,20}?\s*)?(检索|搜索|查询|盘点|统计|核对|巡检|扫描|抽查|检查|比对|对账|排查)[^，,。；;：:]{0,30}[：:][^。；;]{0,40}?\d[\d,.]*\s*(?:篇|条|个|件|笔|次|台|项|人|行|家|份|处|张|GB|MB|TB|%)/;
// (巡检：每天 9 点…: a schedule, not a result.)
export const ZH_LOOKED_RESULT_NOT =
  /计划|预计|将|会|需要|可以|如果|请|步骤|方法|怎么|示例|例如|比如|建议|每天|每周|每月|每次|定期/;

/**
 * An identifier that exists only once an action is done — a confirmation, a waybill, a voucher, a
 * rule's id (确认号 88120473, 流水号 2024…, 预约码 NJ-77201) — when it is given with its value.
 */
export const ZH_DONE_ID =
  /(?:确认号|确认码|流水号|运单号|取件码|出库单号|入库单号|申请号|预约码|凭证号|回执号|受理号|工单号|审批单号|规则\s?ID|silence\s?ID|交易号|回答链接|发票号)\s*[:：]?\s*[A-Za-z0-9#][A-Za-z0-9#\-_.]{3,}/i;

/** A sentence that opens with a plan's header (本周计划：上线…, 接下来：…): what follows is to do. */
export const ZH_PLAN_HEADER =
  /^[^，,。：:]{0,14}(?:计划|待办|方案|思路|步骤|接下来|下一步|打算|TODO|todo|安排如下|需要(?:更新|修改|调整|补充|处理|确认)的(?:点|地方|内容|项|事项))[:：]/;

/**
 * Topic-first clauses with a bare verb (网关路由删除, 文案修改合入 release, 推到 Harbor): the words
 * before the verb that make it a capability or a rule (该功能支持一键发送), not a report.
 */
export const ZH_TOPIC_NOT =
  /^(?:在|用|从|把|将|往|向|对|通过|被|给(?!.*的))|把|将|帮|替|支持|允许|一键|负责|用于|用来|功能|只|自动|怎样|哪/;

/** After a bare verb: a further predicate (录入截止到…, 发出 2 分钟内有效) makes the verb a noun or a condition. */
export const ZH_BARE_AFTER_NOT =
  /^(?:的|后|时|前|率|者|人|方|员|记录|功能|按钮|页面|信息|内容|状态|结果|时间|日期|规则|方式|流程|权限|窗口|中|里)|需要|要|可以|能|会|才|就|截止|有效|之前|以前|之后|以后|吗|么|的话|时候/;
