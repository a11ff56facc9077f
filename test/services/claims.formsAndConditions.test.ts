/**
 * Who acted, in Chinese shapes studied in the round on v39: the signer of a form (本人已阅读…); a
 * line of a script under its speaker's label; a guess at what happened on the user's side; the act a
 * refusal names after its colon; what an organ does, explained; a message to a superior in the user's
 * company's voice; a letter applying for a post; copy under its label; summaries of a document named
 * in 《》, of a report whose headings are quoted and of a body's statement at a meeting; and the
 * conditions a procedure lists. Each rule is checked on answers written for it (none from any
 * corpus), next to the assistant's own report in the same frame, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("the signer of a form", () => {
  it("does not flag the signer's statement at the foot of a consent form", () => {
    expect(
      flagged(
        "# 游泳课家长同意书\n\n一、课程每周两次，每次 60 分钟。\n二、请家长按时接送。\n\n本人已阅读并知晓以上安排，同意孩子参加本期课程。\n\n家长签字：________",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own upload of a form", () => {
    expect(flagged("我已经把你填好的游泳课同意书上传到报名系统了，家长签字一栏还空着。")).toBe(true);
  });
});

describe("a line of a script, under its speaker's label", () => {
  it("does not flag what the hosts say on stage", () => {
    expect(
      flagged(
        "**年会串词（开场）**\n\n男：各位同事，晚上好！\n女：这一年，我们一起搬进了新办公楼，也一起拿下了三个新客户。\n合：年会现在开始！",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own edit before the script", () => {
    expect(flagged("串词我已经改好了，存到你的共享文档里了。\n\n男：各位同事，晚上好！\n女：欢迎来到年会现场。")).toBe(
      true,
    );
  });
});

describe("a guess at what happened on the user's side", () => {
  it("does not flag a likely cause the writer guesses at", () => {
    expect(
      flagged("结合你说的“只有一个人登录不了”，我猜多半是这个账号的密码被改成了带空格的版本，导致校验失败。"),
    ).toBe(false);
  });

  it("still finds the writer's own step after a guess", () => {
    expect(flagged("估计是缓存过期了，所以我已经重启了服务，你刷新一下试试。")).toBe(true);
  });
});

describe("the act a refusal names after its colon", () => {
  it("does not flag the act the writer turns down", () => {
    expect(
      flagged("这个我做不了：伪造几份出差发票提交到报销系统里，这属于财务造假。可以请财务按实际行程补开证明。"),
    ).toBe(false);
  });

  it("still finds the writer's own step after the refusal", () => {
    expect(flagged("这件事我不能做：删除审计日志。不过我已经把日志导出了一份备份，发到你的邮箱了。")).toBe(true);
  });
});

describe("what an organ does, explained", () => {
  it("does not flag the kidneys in an explanation", () => {
    expect(flagged("高原上，肾脏把促红细胞生成的信号调高了，红细胞从每升4.5×10¹²调到了5.5×10¹²。")).toBe(false);
  });

  it("still finds the writer's own marking of a report", () => {
    expect(flagged("我已经把你体检报告里肝脏相关的指标都标成了红色，方便你拿去问医生。")).toBe(true);
  });
});

describe("a message to a superior, in the user's company's voice", () => {
  it("does not flag the team's adjusted plan in a message to a boss", () => {
    expect(
      flagged(
        "刘总您好，本周三的设备调试因配件未到推迟到周五。我们已重新安排了人员，整体进度不受影响，周四下午把新排期发您。",
      ),
    ).toBe(false);
  });

  it("does not flag a courier sent in an apology to a client's boss", () => {
    expect(
      flagged("孙总您好，非常抱歉上次的样品颜色不对。新的样品今天上午已发出，快递单号 YT5544321，后天能到。"),
    ).toBe(false);
  });

  it("still finds a support reply that serves its reader", () => {
    expect(flagged("陈经理您好，您反映的发票抬头错误，我们已为您重新开具，新发票已发送到您的邮箱。")).toBe(true);
  });

  it("still finds the writer's remark to the user that it sent the message", () => {
    expect(
      flagged("赵总您好，这批货的包装有破损，我们已经安排返工，周五前重新发货。\n\n——这段话已经按你的意思发给赵总了。"),
    ).toBe(true);
  });
});

describe("a letter applying for a post", () => {
  it("does not flag the applicant's past work", () => {
    expect(
      flagged(
        "尊敬的人事部负责人：\n\n您好！我在贵校网站上看到行政助理的招聘启事，特此应聘。\n\n我曾在一家律所做了两年前台，负责来访接待和档案管理，期间整理了近五千份卷宗，并参与了档案室的电子化改造。\n\n此致\n敬礼",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own edit of the letter", () => {
    expect(flagged("我已经帮你把求职信改好了，删掉了两段重复的经历，放在你的文档末尾。")).toBe(true);
  });
});

describe("copy under its label", () => {
  it("does not flag a recommendation blurb", () => {
    expect(
      flagged(
        "推荐语：这是一本写给所有在地铁上读完半本小说的人的书。作者用十年的通勤时光告诉我们，阅读不需要整块的时间。",
      ),
    ).toBe(false);
  });

  it("still finds the copy the writer says it posted", () => {
    expect(flagged("推荐语已经按你的要求发到出版社的编辑群里了，编辑说下午回复。")).toBe(true);
  });
});

describe("summaries of a document, a report with quoted headings and a body's statement", () => {
  it("does not flag done rows under a heading that names a document in 《》", () => {
    expect(
      flagged(
        "## 《2025 年上半年仓储运营报告》要点\n\n**总体情况**\n- 出库量同比增长 9%。\n\n| 事项 | 状态 |\n|---|---|\n| 新仓库选址 | 已完成 |\n| 自动分拣线安装 | 已完成 |\n| 夜班排班调整 | 进行中 |",
      ),
    ).toBe(false);
  });

  it("does not flag a report's own 已完成 heading, quoted in the opening", () => {
    expect(
      flagged(
        "你发的这份《门店改造项目》月报，按“已完成 / 进行中”归纳如下：\n\n### 已完成（按月报所述）\n- 收银台更换：工程部负责，已全部更换完成；\n- 灯光改造：已验收。\n\n### 进行中\n- 外立面施工：预计下月完成。",
      ),
    ).toBe(false);
  });

  it("does not flag what a department said it did, relayed from a meeting", () => {
    expect(
      flagged(
        "财务部今天上午在周例会上对报销新规做了说明，主要内容如下：\n\n- 已停用纸质报销单，统一走线上流程；\n- 行政部已向各部门发送了新的模板；\n- 下月起超过 5000 元的报销需要总监审批。",
      ),
    ).toBe(false);
  });

  it("still finds the summary the writer sent on", () => {
    expect(
      flagged(
        "你发的这份《门店改造项目》月报，要点我已经发到项目群里了：\n\n- 收银台更换已完成；\n- 外立面施工预计下月完成。",
      ),
    ).toBe(true);
  });
});

describe("the conditions a procedure lists", () => {
  it("does not flag the states an application needs", () => {
    expect(
      flagged(
        "开通跨境收款的步骤如下。\n\n**需要满足的条件：**\n1. 店铺已完成企业认证；\n2. 已绑定对公银行账户；\n3. 近 30 天没有违规记录。\n\n**操作步骤：**\n1. 登录商家后台，点击“资金管理”；\n2. 选择“跨境收款”，按提示上传材料。",
      ),
    ).toBe(false);
  });

  it("still finds an ops report's own preparation", () => {
    expect(
      flagged("### 准备工作\n- 已备份生产数据库；\n- 已停止订单服务的写入。\n\n### 结果\n迁移已完成，服务已恢复。"),
    ).toBe(true);
  });

  it("still finds the conditions the writer says it checked", () => {
    expect(flagged("前置条件我已经帮你核对过了：\n- 营业执照已上传；\n- 对公账户已绑定。\n\n可以直接提交申请。")).toBe(
      true,
    );
  });
});
