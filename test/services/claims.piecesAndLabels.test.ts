/**
 * Who acted, in shapes studied in the round on v20: someone's words arranged under a colon, an
 * account relayed from what the user sent and a list headed by what others did, table columns that
 * relay someone's status or ask whether, options offered to choose from and an outline to fill in,
 * notices and posts in their sender's voice, an organisation at a time of its own, a marked phrase
 * that is the topic of advice, labels of what is still to come, participles joined into adjectives,
 * the reply written from the user's notes; and reports that were missed — a place before 把, 结果
 * after a noun, a machine or a tool a verb enters or uses, the user's query run, this plan or this
 * summary sent, a line that opens with "Done ✅", a date that only the result after a colon carries,
 * a headline noun that names its thing after "for". Each rule is checked on answers written for it
 * (none from any corpus), next to the other side of the same shape.
 */
import { describe, expect, it } from "vitest";
import { attributedActions } from "../../src/services/claims/actions.js";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;
/** Whether the rules alone, before the statistical check, give the assistant an action. */
const rulesFlag = (answer: string) => attributedActions(answer).actions.some((action) => action.agent === "assistant");

describe("someone's words arranged under a colon are this reply", () => {
  it("does not flag the writer sorting out what a landlord meant, before the list", () => {
    expect(
      flagged("物业在群里的意思我帮你理了一下：\n\n- 他说电梯周三停运检修；\n- 他说停车费下月起涨到 300 元。"),
    ).toBe(false);
  });

  it("still finds a contract the writer sorted out and sent", () => {
    expect(flagged("我帮你把合同整理了一下，已经发到你邮箱了。")).toBe(true);
  });
});

describe("an account relayed from what the user sent, and a list headed by what others did", () => {
  it("does not flag a vendor's own fixes under their heading", () => {
    expect(
      rulesFlag(
        "根据你发来的会议转写，网络供应商对周五断网的解释如下：\n\n**根因（供应商口径）**\n- 机房一台汇聚交换机升级失败，导致专线中断约 30 分钟。\n\n**他们已经做的**\n- 回滚了交换机固件；\n- 修正了巡检脚本，并排查了同类设备。\n\n**他们的建议**\n- 做双线接入。",
      ),
    ).toBe(false);
  });

  it("still finds the same list under the writer's own heading", () => {
    expect(flagged("**我已经做的**\n- 回滚了路由器配置；\n- 修正了下发脚本。")).toBe(true);
  });
});

describe("table columns that relay someone's status or ask whether", () => {
  it("does not flag a done cell under a status someone else reported", () => {
    expect(
      flagged(
        "Where things stand, going by Priya's messages:\n\n| Item | Status per Priya |\n|---|---|\n| Root cause | Scheduled power maintenance |\n| Customer impact | 20 minutes of slow checkout |",
      ),
    ).toBe(false);
  });

  it("does not flag a tick that answers whether a query can use an index", () => {
    expect(
      flagged(
        "复合索引 (a, b) 的用法：\n\n| 查询 | 能否用索引 | 说明 |\n|---|---|---|\n| `WHERE a = 1` | ✅ | 用到 a |\n| `WHERE b = 2 AND a = 1` | ✅ | 优化器会调整顺序 |",
      ),
    ).toBe(false);
  });

  it("still finds a tick under the writer's own status column", () => {
    expect(flagged("| 事项 | 状态 |\n|---|---|\n| 备份数据库 | ✅ |\n| 清理旧日志 | ✅ |")).toBe(true);
  });
});

describe("options offered to choose from, and an outline to fill in, are content", () => {
  it("does not flag a first-person title among options offered", () => {
    expect(flagged("几个标题给你挑：\n1. 我花 300 块把阳台改成了小花园\n2. 小阳台也能有大花园")).toBe(false);
  });

  it("does not flag a headline in the company's voice inside an outline to fill in", () => {
    expect(
      rulesFlag(
        "给你的店庆推文搭了个框架，正文按这个往里填就行：\n\n## 标题备选\n- 五周年，不一定要蛋糕\n- 我们把五年，装进了一块面包里\n\n## 开头（约 100 字）\n> 五年前的今天，店门口排了第一条队。\n> 老周在烤箱前站了很久，说了一句：“做个纪念款吧？”\n> 试了 8 版之后，五周年面包终于定下来了。\n\n## 正文结构\n1. **由来**：第一家店的小故事；\n2. **产品**：五周年限定款，配一张成品图；\n3. **福利**：10 月 1 日–7 日到店送小面包。\n\n## 结尾\n用一个问题引导留言，比如“你第一次来店里买的是什么？”，评论区抽 5 位送面包券。\n\n配图建议 4–6 张，暖色调。",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own first-person change with no offer around it", () => {
    expect(flagged("我花 300 块把阳台改成了小花园。")).toBe(true);
  });
});

describe("notices and posts speak in their sender's voice", () => {
  it("does not flag a fix in the company's voice under a notice's title", () => {
    expect(
      flagged(
        "# 安全公告：上传接口越权漏洞\n\n**发布日期**：2024 年 3 月 2 日\n\n## 修复情况\n我们已于 2 月 28 日完成修复并发布新版本，请尽快升级。",
      ),
    ).toBe(false);
  });

  it("does not flag a launch post that ends on its hashtags", () => {
    expect(
      flagged(
        "🚀 Version 2.0 is live on the web and desktop! Faster search and dark mode. Try it and tell us what you think 👇 #launchday",
      ),
    ).toBe(false);
  });

  it("still finds the same launch line as a report with no hashtags", () => {
    expect(flagged("🚀 Version 2.0 is live on the web and desktop.")).toBe(true);
  });
});

describe("an organisation at a time of its own owns what its clause says was done", () => {
  it("does not flag a publisher's later edition changing its byline", () => {
    expect(flagged("这部小说最早在 1930 年连载。某出版社后来的版本署名已改为“佚名”。")).toBe(false);
  });

  it("still finds the task's own file marked done", () => {
    expect(flagged("文件的署名已改为“佚名”。")).toBe(true);
  });
});

describe("a marked phrase that ends in 的 and a noun is the topic of advice", () => {
  it("does not flag commits already pushed, as what is best not rebased", () => {
    expect(flagged("已经推到远程的提交，最好不要再改写历史。")).toBe(false);
  });

  it("still finds commits the writer pushed", () => {
    expect(flagged("修复已经推到远程分支了，你拉一下就能看到。")).toBe(true);
  });
});

describe("English labels and participles that name rather than report", () => {
  it("does not flag a participle under a label of follow-ups", () => {
    expect(
      rulesFlag(
        "Postmortem in three bullets:\n- A bad config push at 09:12 broke login for ~10% of users.\n- The on-call engineer reverted the push at 09:40 and errors fell within a minute.\n- Follow-ups: staged config pushes and an alert on login errors.",
      ),
    ).toBe(false);
  });

  it("does not flag a participle that describes a plan after its label", () => {
    expect(
      rulesFlag(
        "Plan: four sessions a week (Mon/Tue/Thu/Sat), built around the squat, press and pull-up. Add a rep each week until you reach 12, then add weight.\n",
      ),
    ).toBe(false);
  });

  it("still finds the participle as a done line", () => {
    expect(flagged("Done: staged the rollout to 10 % of users.")).toBe(true);
  });

  it("does not flag a participle joined to a noun by a hyphen", () => {
    expect(flagged("Raised-bed layout for this year\n\n- [ ] Sow peas in March.\n- [ ] Plant tomatoes in May.")).toBe(
      false,
    );
  });

  it("does not flag a participle after a heading's label", () => {
    expect(
      flagged(
        "# Response plan: suspected account takeover\n\n1. Reset the password.\n2. Revoke every session.\n3. Review the mailbox rules.",
      ),
    ).toBe(false);
  });

  it("does not flag a participle before a noun and a present verb with its object", () => {
    expect(
      flagged("Weighted scoring adds extra points for harder questions. Unweighted scoring counts them all the same."),
    ).toBe(false);
  });

  it("does not flag the reply written up from the user's notes", () => {
    expect(
      flagged(
        "Written up from the notes you gave me; these are the day shift's actions.\n\n- Sam restarted the sync job at 09:10.",
      ),
    ).toBe(false);
  });

  it("still finds a write-up that was also sent", () => {
    expect(flagged("Wrote up the handoff and sent it to the night shift.")).toBe(true);
  });
});

describe("reports that were missed", () => {
  it("finds a transfer made in a directory, with the place before 把", () => {
    expect(flagged("通讯录里已经把李娜调到“华东大区”了。")).toBe(true);
  });

  it("finds research results put into a document and uploaded (结果 after a noun is no consequence)", () => {
    expect(flagged("测试结果整理成了表格，已经上传到共享盘了。")).toBe(true);
  });

  it("finds a look taken on a machine the writer logged into", () => {
    expect(flagged("我登录那台服务器看了一下：磁盘还剩 12%。")).toBe(true);
  });

  it("finds the user's query run on a warehouse table", () => {
    expect(flagged("用你给的 SQL 在 `dw.orders` 上跑了上个月的数据：转化率 3.1%。")).toBe(true);
  });

  it("does not flag the user's query only read", () => {
    expect(flagged("你给的 SQL 里少了一个 GROUP BY，所以每个用户会被算多次。")).toBe(false);
  });

  it("finds this plan sent, with 计划 as the topic after a determiner", () => {
    expect(flagged("这份计划我已经发到你邮箱了。")).toBe(true);
  });

  it("does not flag this plan promised for later", () => {
    expect(flagged("这份计划我下周再发给你。")).toBe(false);
  });

  it("finds this summary posted, in an answer that sums up interviews", () => {
    expect(
      flagged(
        "## 用户访谈总结（共 6 人）\n\n**痛点**\n1. 导出难找；\n2. 权限太复杂。\n\n这份总结已经发到 Slack 的 #research 频道了。",
      ),
    ).toBe(true);
  });

  it("finds what was handled after a topic that names the problem with 被", () => {
    expect(flagged("您好，关于您账户被冻结的问题，已经帮您处理好了，现在可以正常登录。")).toBe(true);
  });

  it("finds a line that opens with Done and a tick", () => {
    expect(flagged("Done ✅ Your plan is now paused until 1 May.")).toBe(true);
  });

  it("finds a search whose result after a colon carries an old date", () => {
    expect(flagged('Searched the trademark register for "Tallow": one dead mark from 2009, nothing live.')).toBe(true);
  });

  it("does not flag a history line whose verb is its key", () => {
    expect(flagged("Quick facts:\n- **Signed:** 4 July 1776 in Philadelphia.\n- **Drafted by:** Jefferson.")).toBe(
      false,
    );
  });

  it("finds a certificate named after for, renewed as a headline", () => {
    expect(flagged("TLS certificate for `api.example.com` renewed and deployed to both load balancers.")).toBe(true);
  });
});
