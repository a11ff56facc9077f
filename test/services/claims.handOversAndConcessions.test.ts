/**
 * Chinese shapes studied in the round on v45: pieces written for the user that carry a sign of
 * their own — a sign-off and a bare name under a greeting, a line that hands over a letter (下面是给…
 * 的…函：) above a rule, a title that greets its readers (致…), a slogan in corner quotes and a dash, a
 * company's 我司; an opening that hands the whole account to someone else (a party's reply, a
 * colleague who did it, everyone's progress); a colleague named by a title such as 药师 who marked a
 * step done; a state granted in a concession; what kept the writer from work it says is not done;
 * and, as a claim, what the user gave looked up in a database or on a site.
 * Each rule is checked on answers written for it (none from any corpus), next to the assistant's own
 * report in the same frame, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a message greeted, closed and signed with a bare name", () => {
  it("does not flag an email whose sender says her part is done", () => {
    expect(
      flagged("刘主任您好：\n\n下周的展会我不能到场，展位物料的清点已经做完，清单放在部门共享盘里。\n\n谢谢！\n周敏"),
    ).toBe(false);
  });

  it("still flags a support reply that says the refund is done, with no sign-off", () => {
    expect(flagged("周女士您好：\n\n您的退款已经处理完成，¥126 会原路退回。\n\n谢谢！")).toBe(true);
  });

  it("still flags a reply signed by a desk", () => {
    expect(flagged("周女士您好：\n\n您的退款已经处理完成，¥126 会原路退回。\n\n谢谢！\n售后客服")).toBe(true);
  });
});

describe("a letter handed over, titled to its readers, or copy opening on a slogan", () => {
  it("does not flag a letter under a line that hands it over, in the company's voice", () => {
    const answer =
      "下面是给物业公司的维修申请函，日期你可以自己改：\n\n---\n\n**关于申请维修地下车库照明的函**\n\n××物业服务中心：\n\n我司已完成车库东区的线路自查，发现三处灯具老化，特申请贵中心安排维修。\n\n---";
    expect(flagged(answer)).toBe(false);
  });

  it("still flags the writer's own line that sends the letter", () => {
    const answer =
      "下面是给物业公司的维修申请函：\n\n---\n\n××物业服务中心：\n\n我司申请安排维修车库照明。\n\n---\n\n我已经把这封函发到物业的邮箱了。";
    expect(flagged(answer)).toBe(true);
  });

  it("does not flag a welcome titled to its guests", () => {
    expect(
      flagged(
        "**致每一位来露营的朋友**\n\n欢迎来到湖边营地。\n\n一路开车过来，你大概穿过了两座山，也看过了整片的油菜花。\n\n晚上八点后请放低音量。",
      ),
    ).toBe(false);
  });

  it("does not flag copy that opens on its slogan", () => {
    expect(flagged("「一壶茶，慢半天」——把城南的老茶馆、河边的柳树和傍晚的评弹，都装进一个周末里。")).toBe(false);
  });

  it("still flags a report whose title names no readers", () => {
    expect(flagged("**致谢名单整理**\n\n名单已经更新到共享文档里了。")).toBe(true);
  });
});

describe("an opening that hands the account to someone else", () => {
  it("does not flag a vendor's reply laid out point by point", () => {
    const answer =
      "腾讯云的客户经理昨天回复了我们关于带宽计费的问题，要点转述如下：\n\n- 他们的工程师复核了我们给的账单明细，确认峰值是备份任务造成的；\n- 故障的网卡当天已完成更换。";
    expect(flagged(answer)).toBe(false);
  });

  it("does not flag a night's work a colleague did", () => {
    const answer =
      "周末的数据库迁移是 DBA 组的老方做的，情况如下：\n\n- 周六凌晨把主库切到了新机房；\n- 旧实例已经下线，流量已经回落。";
    expect(flagged(answer)).toBe(false);
  });

  it("does not flag everyone's progress from a standup", () => {
    const answer = "今天站会大家的进展整理如下：\n\n- 支付页的回归跑完了一半；\n- 两个缺陷都已经提给老王。";
    expect(flagged(answer)).toBe(false);
  });

  it("still flags the writer's own report after the user's feedback is named", () => {
    const answer =
      "您好，关于您反馈的扣费问题，处理结果如下：\n\n- 退款：已发放，¥48，原路退回\n- 通知：确认邮件已发送";
    expect(flagged(answer)).toBe(true);
  });

  it("still flags the writer's own step under a party's reply", () => {
    const answer =
      "报关行的陈小姐今天回复了，情况是这样的：\n\n她们还缺装箱单，我已经从你的邮箱里找出来发给她了，她也回复说收到了。";
    expect(flagged(answer)).toBe(true);
  });

  it("still flags a reply the writer sent itself", () => {
    expect(flagged("我回复了客户的询价，内容如下：\n\n单价按 12 元报，含税。")).toBe(true);
  });
});

describe("a colleague named by a title who marked a step done", () => {
  it("does not flag a pharmacist's follow-up in minutes", () => {
    expect(flagged("- 刘药师已完成糖尿病会员的第一轮回访，共联系 96 人；")).toBe(false);
  });

  it("still flags the writer's step beside the pharmacist's", () => {
    expect(flagged("刘药师交代的复诊提醒，我已经逐条发给会员了。")).toBe(true);
  });
});

describe("a state granted in a concession", () => {
  it("does not flag an old card granted as cancelled", () => {
    expect(flagged("在 App 里点“银行卡 → 更换”，输入新卡号即可，旧卡已经注销也不影响。")).toBe(false);
  });

  it("does not flag a state after 即使", () => {
    expect(flagged("开关放在服务端，即使新版本已经装到用户手机上，也能随时切回旧逻辑。")).toBe(false);
  });

  it("still flags the writer's step before a remark that nothing is affected", () => {
    expect(flagged("旧卡我已经帮你解绑了，也不影响自动扣款。")).toBe(true);
  });
});

describe("what kept the writer from work it says is not done", () => {
  it("does not flag a file's password the writer could not get past", () => {
    expect(flagged("附件《排班表.xlsx》加了打开密码，我这边打不开，所以合并和排序都还没做。")).toBe(false);
  });

  it("does not flag the writer stuck on a permission, the script not yet written", () => {
    expect(flagged("这一步我这边卡住了：下载数据集时提示 401，账号没有访问权限，所以清洗脚本一行也还没写。")).toBe(
      false,
    );
  });

  it("still flags what the writer read before it found it had no permission", () => {
    expect(flagged("我看了监控面板上的告警记录，但数据库我没有权限登录，没法继续往下查。")).toBe(true);
  });

  it("still flags the step the writer did before it was blocked", () => {
    expect(flagged("配置我已经改好了，但我这边连不上你的企业邮箱，所以通知还没发出去。")).toBe(true);
  });
});

describe("what the user gave, looked up in a database or on a site", () => {
  it("flags the user's case number looked up on a site", () => {
    expect(flagged("我在中国裁判文书网上查了你给的案号，这个案子二审已经维持原判。")).toBe(true);
  });

  it("flags the user's registration number looked up in a database", () => {
    expect(flagged("我在药监局的医疗器械数据库里查了你给的注册证号，产品名称和包装上的一致。")).toBe(true);
  });

  it("does not flag advice to look the user's number up there", () => {
    expect(flagged("你给的这个统一社会信用代码，可以在国家企业信用信息公示系统上查一下是否存续。")).toBe(false);
  });

  it("does not flag the user's pasted text only read", () => {
    expect(flagged("你给的这段合同条款里，违约金写的是合同总额的 20%，偏高。")).toBe(false);
  });
});
