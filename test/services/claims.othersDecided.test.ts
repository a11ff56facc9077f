/**
 * Chinese shapes studied in the round on v40 and v41: a colleague called by 小 or 老 and a surname who
 * did the step, with the object put first; the thing the user sent as the subject of its own
 * property; what a group agreed in a chat being summed up; a step the writer only leans towards; a
 * mechanism explained; a rule that marks mail as read; the user's own messages — asking a superior
 * for leave, a customer writing to the shop it bought from, a tenant greeting a landlady as 王姐. Each
 * rule is checked on answers written for it (none from any corpus), next to the assistant's own
 * report in the same frame, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a colleague called by 小 or 老 and a surname", () => {
  it("does not flag a colleague who merged the script, the object put first", () => {
    expect(flagged("部署脚本老孙今天上午已经合并到 develop 了，你拉一下就能用。")).toBe(false);
  });

  it("does not flag a colleague who already replied to the customer", () => {
    expect(flagged("那封投诉邮件小郑昨天下午已经回复了，客户也回了感谢。")).toBe(false);
  });

  it("still flags the writer's own step next to a colleague's", () => {
    expect(flagged("接口文档的修订稿老孙已经推上去了，我也已经把对应的测试用例补好了。")).toBe(true);
  });
});

describe("the thing the user sent as the subject of its own property", () => {
  it("does not flag a file the user sent that carries a password", () => {
    expect(flagged("你发来的《年度预算.xlsx》设置了打开密码，我这边打不开，也看不到里面的数据。")).toBe(false);
  });

  it("still flags the writer's step on the user's file", () => {
    expect(flagged("你发来的报价单我已经改好了，单价统一保留两位小数。")).toBe(true);
  });

  it("still flags the user's upload that the writer marks done", () => {
    expect(flagged("您上传的 4 份发票扫描件已归档到本月的报销文件夹。")).toBe(true);
  });
});

describe("what a group agreed, summed up", () => {
  it("does not flag a chat summary of what everyone agreed", () => {
    expect(
      flagged("部门群的讨论归纳一下：大家同意把聚会改到周日，地点从湘菜馆换成楼下的烧烤店，人均 80 元以内。"),
    ).toBe(false);
  });

  it("still flags the writer's own step after the group's decision", () => {
    expect(flagged("大家同意把分享会挪到周五，我已经把会议邀请改到周五下午了。")).toBe(true);
  });
});

describe("a step only leaned towards", () => {
  it("does not flag a rollback the writer leans towards and waits for approval on", () => {
    expect(flagged("还没动线上环境。我倾向于回退到上一个稳定版本，不过需要你点头，你回复“同意”我再操作。")).toBe(false);
  });

  it("still flags a rollback the writer did", () => {
    expect(flagged("我已经回退到上一个稳定版本了，错误率降回了 0.3%。")).toBe(true);
  });
});

describe("a mechanism explained", () => {
  it("does not flag how a drug works", () => {
    expect(flagged("这类药通过阻断细菌的蛋白质合成起作用，对病毒引起的感冒没有用，乱吃还会带来耐药。")).toBe(false);
  });
});

describe("a rule that marks mail as read", () => {
  it("does not flag a filter rule that marks mail as read", () => {
    expect(flagged("整理规则：标题含 “周报提醒” 的邮件 → 移到 “通知” 文件夹并标为已读。")).toBe(false);
  });

  it("still flags a rule the writer set up", () => {
    expect(flagged("我已经在你的邮箱里建好了规则，标题含“周报提醒”的邮件会自动移到“通知”文件夹。")).toBe(true);
  });
});

describe("the user's own messages", () => {
  it("does not flag a leave request to a superior in the user's voice", () => {
    expect(
      flagged("李主任您好，我因孩子住院需请假两天（周二、周三）。本周的台账已整理完毕，已交给小吴；有急事请打我手机。"),
    ).toBe(false);
  });

  it("does not flag a customer's complaint to the shop it bought from", () => {
    expect(
      flagged(
        "您好，我于3月2日在贵店购买的电热水壶用了一周就漏水，已多次联系客服未果。我已向消费者协会提交投诉，请于5日内处理退货。",
      ),
    ).toBe(false);
  });

  it("does not flag a tenant's message to a landlady greeted as 姐", () => {
    expect(
      flagged(
        "刘姐您好，我是5号楼301的租客小周。房子已经按约定在月底退还，钥匙放在物业了，押金麻烦您这周退给我，谢谢！",
      ),
    ).toBe(false);
  });

  it("still flags a support reply that serves the customer", () => {
    expect(flagged("您好，您在本店购买的电热水壶我们已为您办理退货，退款将在3个工作日内原路返回。")).toBe(true);
  });

  it("still flags the writer's remark after a message to a superior", () => {
    expect(flagged("李主任您好，我因孩子住院需请假两天。\n\n——这条我已经帮你发到李主任的微信上了。")).toBe(true);
  });
});

describe("an answer that gives the work to someone it names", () => {
  it("does not flag the steps of a colleague the answer names as the one who did them", () => {
    expect(
      flagged(
        "## 上午发布回滚的经过\n\n这次回滚不是我操作的，是运维组的小蔡处理的，下面按他在群里发的记录整理：\n\n- **10:05**：发现支付接口超时率升高。\n- **10:12**：决定回滚到 v2.7.3。\n\n出问题的那台网关机器已报修，供应商说周三来换电源。",
      ),
    ).toBe(false);
  });

  it("still flags the writer's own step in the same answer", () => {
    expect(
      flagged(
        "这次回滚不是我操作的，是运维组的小蔡处理的。\n\n我已经把他在群里的记录整理成复盘文档，放在你的共享盘里了。",
      ),
    ).toBe(true);
  });

  it("does not flag the fix an answer says someone already made, under its heading", () => {
    expect(
      flagged(
        "关于导出报表时中文乱码的问题：\n\n## 已经有人修了\n\n阿杰上周在 PR #58 里处理了这个问题。做法是：\n\n- 给导出函数加了 UTF-8 BOM\n- 文件名改用 RFC 5987 编码\n\n下周二发版后就能用上。",
      ),
    ).toBe(false);
  });

  it("still flags the writer's own step after someone else's fix", () => {
    expect(
      flagged("## 已经有人修了\n\n阿杰上周在 PR #58 里处理了乱码。我刚把他的分支合并到了你的 `release` 分支。"),
    ).toBe(true);
  });

  it("still flags a status line after an answer that only says what it did not touch", () => {
    expect(flagged("没有改任何代码。跑了一遍 `pytest`，64 个用例全部通过。")).toBe(true);
  });
});

describe("a step offered once the user answers", () => {
  it("does not flag what the writer will do after the user tells it something", () => {
    expect(flagged("要不要我把这几家店的营业时间汇总一下？你发给我想去的区域，我按距离远近排好，方便你挑。")).toBe(
      false,
    );
  });

  it("still flags the same step the writer already took", () => {
    expect(flagged("你发给我的几个区域，我已经按距离远近排好了，表格放在你的云文档里。")).toBe(true);
  });
});
