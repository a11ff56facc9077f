/**
 * Who acted, in Chinese line frames studied in the round on v42 and v43: a speaker's name heading
 * the line, the writer only as the one told or the one served, an action named as the topic of a
 * modal, a condition once a step is done and the premise of an explanation, a state from long ago,
 * a trend, what a work narrates, a colleague, a team, an institution or a party as the subject,
 * someone who spoke in a message, the user's situation restated, a schedule's step and advice that
 * points ahead. Each rule is checked on answers written for it (none from any corpus), next to the
 * assistant's own report in the same frame, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a line under its speaker's name", () => {
  it("does not flag a team member's update relayed under a name and a team", () => {
    expect(flagged("周会上大家的进展：\n\n**前端组（吴倩）**：登录页的改版已经联调完毕，周四可以提测。")).toBe(false);
  });

  it("does not flag a colleague's short name heading what she said", () => {
    expect(flagged("**小唐**：仓库的盘点表已经核对过一遍，她说缺了两箱打印纸。")).toBe(false);
  });

  it("still flags the writer's own step under a speaker's name", () => {
    expect(flagged("**小唐**：她说缺两箱打印纸，我已经在采购系统里给她下了单。")).toBe(true);
  });
});

describe("the writer only as the one told or the one served", () => {
  it("does not flag a colleague who retold a site visit to the writer", () => {
    expect(flagged("老郑从仓库回来，跟我转述了早上的盘点结果，缺货主要在 B 区。")).toBe(false);
  });

  it("does not flag a thank-you note for what a teacher did for the writer", () => {
    expect(flagged("刘老师，谢谢您上周帮我改了两遍开题报告。")).toBe(false);
  });

  it("still flags the writer's own step in a sentence that also thanks someone", () => {
    expect(flagged("谢谢提醒，我已经把开题报告发给刘老师了。")).toBe(true);
  });
});

describe("an action named as a topic, a condition or a premise", () => {
  it("does not flag an action named before what it needs", () => {
    expect(flagged("数据库的内存已经用到了 90%，但升级规格需要停机审批，我还没动。")).toBe(false);
  });

  it("does not flag a step done, then what follows from it in general", () => {
    expect(flagged("换了路由器之后不会马上拿到新地址，要等旧的租约到期。")).toBe(false);
  });

  it("does not flag a puzzle the answer goes on to explain", () => {
    expect(flagged("商品已经下架但链接还能打开，是因为页面有缓存，过几个小时就会失效。")).toBe(false);
  });

  it("still flags a change the writer made with its reason", () => {
    expect(flagged("已经把缓存清掉了，是因为旧页面还在被访问。")).toBe(true);
  });
});

describe("long ago, a trend, a work's plot", () => {
  it("does not flag a drug withdrawn from the market long ago", () => {
    expect(flagged("这种成分在欧洲早已被禁用，正规渠道买不到。")).toBe(false);
  });

  it("does not flag a trend across a market", () => {
    expect(flagged("今年各家银行的存款利率普遍已经下调，三年期大多在 2% 上下。")).toBe(false);
  });

  it("does not flag what a chapter narrates", () => {
    expect(flagged("这一章主要讲老船长回到港口，发现自己的船已经被卖掉了。")).toBe(false);
  });

  it("still flags the writer's own withdrawal of a listing", () => {
    expect(flagged("那条商品链接我已经下架了，店铺首页也撤掉了横幅。")).toBe(true);
  });
});

describe("someone else as the subject", () => {
  it("does not flag a colleague named by handle who fixed it yesterday", () => {
    expect(flagged("这个报错同事 @zhao 昨天已经在 PR #42 里修了，你拉一下最新代码就好。")).toBe(false);
  });

  it("does not flag a team that handled it", () => {
    expect(flagged("不是我们配置的问题，网络组已经处理了，现在丢包率恢复正常。")).toBe(false);
  });

  it("does not flag an institution that has published reports", () => {
    expect(flagged("中国社科院发布过几份关于灵活就业的调查，可以去官网下载。")).toBe(false);
  });

  it("does not flag a contractor's work relayed", () => {
    expect(flagged("施工方已经按图纸完成了地基的浇筑，监理明天来验收。")).toBe(false);
  });

  it("does not flag a landlord who replied", () => {
    expect(flagged("物业刚回消息说，电梯下周一才能修好，维修费由他们承担。")).toBe(false);
  });

  it("still flags a security group the writer opened, a thing and not a team", () => {
    expect(flagged("安全组已放通 8443 端口，其余规则没动。")).toBe(true);
  });

  it("still flags a file the writer split by department", () => {
    expect(flagged("考勤表已经按部门拆成了 5 个工作表，原表没动。")).toBe(true);
  });

  it("still flags a new colleague the writer added to a group", () => {
    expect(flagged("新同事陈思远已经加进研发群和 Jira 项目了。")).toBe(true);
  });
});

describe("the user's situation, a schedule and advice", () => {
  it("does not flag the user's situation restated in a refusal", () => {
    expect(flagged("我理解你的难处——货已经装箱、客户在催，但报关单不能这么改。")).toBe(false);
  });

  it("still flags the writer's step after it understands the user", () => {
    expect(flagged("我理解你着急，已经帮你把投诉提交给平台了，三天内会有回复。")).toBe(true);
  });

  it("does not flag a day of a schedule in the complete form", () => {
    expect(flagged("**周三—周四**：配好开发机，熟悉代码规范。")).toBe(false);
  });

  it("does not flag advice that points to what follows", () => {
    expect(flagged("面试之前准备好这几样东西，现场会从容很多：")).toBe(false);
  });

  it("does not flag a numbered how-to heading in the complete form", () => {
    expect(
      flagged("记账表可以这样做：\n\n### 1. 列好科目\n在第一行写上日期、科目、金额。\n\n### 2. 写公式\n用 SUM 汇总。"),
    ).toBe(false);
  });
});
