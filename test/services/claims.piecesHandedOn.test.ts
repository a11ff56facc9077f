/**
 * Chinese pieces written for the user and what the writer says after them, studied in the round on
 * v42 and v43: minutes, notices and quoted drafts with no closing rule whose last line hands the
 * piece on; a letter between rules; the writer's own step inside a plan; accounts relayed from
 * someone who told the writer; summaries of what the user pasted; a leave request in the user's
 * voice; acting on what the user gave. Answers written for these tests, none from any corpus.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a piece, then the writer handing it on", () => {
  it("flags minutes whose last line says they were sent to the group", () => {
    expect(
      flagged(
        "周例会纪要如下：\n\n## 结论\n1. 新版本周五发布；\n2. 客服话术下周更新。\n\n## 待办\n| 事项 | 负责人 |\n|---|---|\n| 发布公告 | 小马 |\n\n纪要已经发到“产品周会”群里，并@了各位负责人。",
      ),
    ).toBe(true);
  });

  it("flags a quoted note followed by a step served to the user", () => {
    expect(flagged("更新说明如下：\n\n> **2.4.0**：修复了导出乱码。\n\n已经帮你发到 #release 频道了。")).toBe(true);
  });

  it("flags a notice posted as asked after its closing rule", () => {
    expect(
      flagged(
        "公告如下：\n\n---\n\n**关于周六断电检修的公告**\n\n各位住户：\n\n周六 9:00–12:00 停电检修，请提前做好准备。\n\n---\n\n按你的要求，这份公告已经同步发到楼栋群里了。",
      ),
    ).toBe(true);
  });

  it("flags an email sent from the user's mailbox after a letter between rules", () => {
    expect(
      flagged(
        "邮件如下：\n\n---\n**主题：样品寄送确认**\n\n陈经理，您好：\n\n样品已于周一寄出，请查收。\n\n林涛\n---\n\n这封邮件我已经从你的邮箱发给陈经理了。",
      ),
    ).toBe(true);
  });

  it("flags a draft saved into the user's drafts after it", () => {
    expect(flagged("周报草稿如下：\n\n本周完成了支付模块的联调。\n\n已经帮你存到邮箱的草稿箱了。")).toBe(true);
  });

  it("does not flag the same minutes when nothing is said of sending them", () => {
    expect(
      flagged(
        "周例会纪要如下：\n\n## 结论\n1. 新版本周五发布；\n2. 客服话术下周已经更新完毕。\n\n## 待办\n- 小马：发布公告",
      ),
    ).toBe(false);
  });
});

describe("the writer's own step inside a plan", () => {
  it("flags a spreadsheet the writer created, reported inside the plan", () => {
    expect(
      flagged(
        "下季度的巡检可以按以下方案推进：\n\n### 一、分组\n每组负责两栋楼。\n\n### 二、记录\n我已经在共享表格里新建了“巡检记录”工作表，按楼栋列好了检查项。\n\n### 三、复盘\n每月底开一次复盘会。",
      ),
    ).toBe(true);
  });

  it("does not flag the plan's own steps", () => {
    expect(
      flagged(
        "下季度的巡检可以按以下方案推进：\n\n### 一、分组\n每组负责两栋楼。\n\n### 二、记录\n建好巡检记录表，按楼栋列好检查项。",
      ),
    ).toBe(false);
  });

  it("does not flag what the writer can do under a heading, before anything is done", () => {
    expect(
      flagged("（目前都还没动手，等你确认）\n\n### 我可以做的\n1. 起草邀请函，先发给你看；\n2. 订好会议室。"),
    ).toBe(false);
  });
});

describe("an account relayed from someone who told the writer", () => {
  it("does not flag a colleague's site report retold to the writer", () => {
    expect(
      flagged(
        "小许刚从门店回来，跟我转述了今天的情况：\n\n1. **陈列**：店员已经按新方案换好了货架。\n2. **库存**：冷柜的饮料已经补齐了。",
      ),
    ).toBe(false);
  });

  it("does not flag a dispatcher's account relayed", () => {
    expect(flagged("值班调度在电话里的说法，转述如下：\n\n- 故障车已经拖回车场；\n- 晚高峰前会加开两趟。")).toBe(false);
  });

  it("still flags the writer's own step after what each one reported", () => {
    expect(
      flagged(
        "各组汇报的情况如下：\n\n- 小蒋：样品已经寄出。\n- 老龚：报价还在谈。\n\n各组的进展我已经汇总发到项目群了。",
      ),
    ).toBe(true);
  });
});

describe("a summary of material the user pasted", () => {
  it("does not flag the done rows of a pasted status report summarised", () => {
    expect(
      flagged(
        "你贴的这份周报，一句话概括就是：**上海站已经收尾，成都站有风险。**\n\n| 项目 | 周报中的状态 |\n|---|---|\n| 上海站装修 | 已完成 |\n| 成都站选址 | 进行中 |",
      ),
    ).toBe(false);
  });

  it("does not flag a pasted budget's paid line after reading it", () => {
    expect(
      flagged("看了你贴过来的装修预算，整体情况是这样的：\n\n- **已付款**：32,000 元\n- **待付款**：18,500 元"),
    ).toBe(false);
  });

  it("does not flag a colleague's diff reviewed for the user", () => {
    expect(
      flagged(
        "根据你贴过来的小何这次 PR 的 diff，他的改动主要有两部分，我的意见如下：\n\n**1. 测试**\n新增了 4 个用例，但没有覆盖超时的情况。",
      ),
    ).toBe(false);
  });
});

describe("the user's voice and what the user gave", () => {
  it("does not flag a leave request whose writer asks for a day off", () => {
    expect(
      flagged("李经理您好，我今天胃不舒服，需要去医院，想请一天病假。周报已经整理到共享文档，有事可以电话联系我。"),
    ).toBe(false);
  });

  it("flags a correction made with the details the user gave", () => {
    expect(flagged("您好，抬头已按您提供的信息更正，新的发票已重新开具并发送到您的邮箱。")).toBe(true);
  });
});

describe("the writer looking something up", () => {
  it("flags a lookup whose finding is dated after its colon", () => {
    expect(flagged("我刚查了交通局的年报：去年全市新增公交线路 14 条。")).toBe(true);
  });

  it("does not flag the same words of another time when nothing was looked up", () => {
    expect(flagged("去年全市新增公交线路 14 条，以前每年只有五六条。")).toBe(false);
  });

  it("flags a site the user named, looked up", () => {
    expect(flagged("我查了一下你发的那个培训机构的网站，课程表里没有周末班。")).toBe(true);
  });
});
