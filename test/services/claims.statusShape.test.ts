/**
 * A sentence that names no doer is the assistant's status line only in the shape of one
 * (src/services/claims/statusShape.ts). Each frame that refuses that reading is checked on sentences
 * written for it (none from any corpus), next to terse status replies that must still be found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("terse status replies are still the assistant's", () => {
  it.each([
    "已退款，¥128 三个工作日内到账。",
    "已为您改签到 3 月 5 日。",
    "Refund issued.",
    "Deployed to staging.",
    "订单已取消，退款原路返回。",
    "补丁打好了，服务已重启。",
    "Invoice sent to the client.",
    "已提交报销申请，单号 BX20240611。",
  ])("finds %s", (answer) => {
    expect(flagged(answer)).toBe(true);
  });
});

describe("a frame that defines or describes makes what follows its content", () => {
  it.each([
    "“二次元”指的是动画、漫画、游戏构成的虚拟世界，跟三次元的现实相对。",
    "“冷启动”是指应用进程不在内存里时被打开，需要重新加载资源。",
    "这部电影讲的是一个少年离家出走，最后在海边找到了父亲。",
    "概括起来就是：新版去掉了旧接口，修复了几个内存泄漏。",
    "这份会议纪要的要点：市场部上周发布了新品，销售部完成了 80% 的季度指标。",
    "Idempotent means running the job twice leaves the data unchanged.",
    "Technical debt refers to shortcuts taken now that cost more to fix later.",
  ])("does not flag %s", (answer) => {
    expect(flagged(answer)).toBe(false);
  });
});

describe("a general or habitual time frame states a fact, not work done", () => {
  it.each([
    "按照规定，护照目前是 10 个工作日办结，加急可缩短到 5 天。",
    "一般来说，快递在发货后 48 小时内揽收。",
    "每年春节前后，铁路部门都会提前 15 天开放售票。",
    "目前是每年 4 月申报上一年度的个税汇算。",
    "Cold brew is usually steeped for 12 to 24 hours and filtered before serving.",
    "A refund usually posts within five business days of approval.",
  ])("does not flag %s", (answer) => {
    expect(flagged(answer)).toBe(false);
  });

  it("keeps a status whose later clause says what usually follows", () => {
    expect(flagged("修复了登录页的空指针，通常不会再出现了。")).toBe(true);
  });

  it("keeps a done verb whose object holds a time of habit", () => {
    expect(flagged("按你的要求，已把每周例会改到周三下午。")).toBe(true);
  });
});

describe("a cause explained is no status", () => {
  it.each([
    "宿醉的头痛主要是脱水和乙醛引起的，跟酒的颜色关系不大——酒精在几小时内就被代谢掉了。",
    "The outage was longer because the failover was configured by hand.",
  ])("does not flag %s", (answer) => {
    expect(flagged(answer)).toBe(false);
  });

  it("keeps a status that opens its clause after the cause", () => {
    expect(flagged("因为缓存没清，重新部署了一次，现在页面正常了。")).toBe(true);
  });

  it("keeps a status that opens with its verb before the cause", () => {
    expect(flagged("Rolled back because the deploy broke checkout.")).toBe(true);
  });
});

describe("a topic with its own subject carries to the clause that goes on from it", () => {
  it("does not flag what someone else did and then went on to do", () => {
    expect(flagged("他们的客服说系统没问题，并且已经重置过账号。")).toBe(false);
  });

  it("keeps the writer's own marked status after someone else's report", () => {
    expect(flagged("客户反馈打不开，已重置密码并发了新链接。")).toBe(true);
  });
});

describe("a promise under a condition or for later is nothing done", () => {
  it.each(["有结果我们第一时间告诉您。", "如果审核通过，我们会把退款打到原账户。", "等仓库回复后我们再给您安排补发。"])(
    "does not flag %s",
    (answer) => {
      expect(flagged(answer)).toBe(false);
    },
  );

  it("keeps a done clause whose noun holds the character of a modal", () => {
    expect(flagged("会议室订好了：7 楼大厅，周五 14:00。")).toBe(true);
  });

  it("keeps a second clause that goes on from a marked one", () => {
    expect(flagged("已封禁该 IP，并把会话全部强制下线。")).toBe(true);
  });
});

describe("a label before a step for the user makes the step the user's", () => {
  it.each(["线上：登录个人所得税 App 提交；", "线下：携带身份证到社保窗口办理；"])("does not flag %s", (answer) => {
    expect(flagged(answer)).toBe(false);
  });

  it("keeps a status heading before its list", () => {
    expect(flagged("接口全部跑通：登录、下单、支付回调、退款，共 27 个 case。")).toBe(true);
  });
});

describe("a dated timeline of someone else's processing is theirs", () => {
  it("does not flag an order's timeline", () => {
    expect(
      flagged(
        "您的订单进度如下：\n\n6 月 1 日：您的订单已支付成功；\n6 月 2 日：您的订单已完成拣货打包；\n6 月 3 日：快递已揽收。",
      ),
    ).toBe(false);
  });

  it("keeps a line of the timeline that names the assistant serving the user", () => {
    expect(flagged("6 月 1 日：订单已支付；\n6 月 2 日：已为您申请加急处理。")).toBe(true);
  });
});

describe("a capitalised participle inside a name describes it", () => {
  it("does not flag a product title", () => {
    expect(flagged("Hand-Dyed Linen Scarf — Washed Indigo, 180 cm")).toBe(false);
  });
});

describe("a bare 完 or 好 right before the next step's 一下 is an instruction", () => {
  it("does not flag a step and the step after it", () => {
    expect(flagged("改完跑一下单元测试，确认没有新的报错。")).toBe(false);
  });

  it("keeps a clause done with 了 before the next step", () => {
    expect(flagged("改完了，跑了一下单元测试，全部通过。")).toBe(true);
  });
});

describe("a structured abstract speaks in its authors' voice", () => {
  it("does not flag the methods of a drafted abstract", () => {
    expect(
      flagged(
        "**Background:** Late refills raise costs.\n\n**Methods:** We ran a survey in 14 pharmacies and randomized reminder timing.\n\n**Results:** Refills on time rose from 61% to 74%.\n\n**Conclusions:** Earlier reminders help.",
      ),
    ).toBe(false);
  });

  it("keeps a report with a results line of its own", () => {
    expect(flagged("**Results:** I ran the full test suite; all 212 tests pass.")).toBe(true);
  });
});

describe("a thumbs-up that heads a heading titles a side of a comparison", () => {
  it("keeps a thumbs-up on an ordinary line as a done marker", () => {
    expect(flagged("👍 Backup restored to the staging database.")).toBe(true);
  });
});

describe("the frames refuse an unmarked status with a subject of its own too", () => {
  it("does not flag a habitual fact whose later verb shares its subject", () => {
    expect(flagged("Sourdough is usually proofed overnight and baked the next morning.")).toBe(false);
  });

  it("keeps an object reported done with no frame", () => {
    expect(flagged("The staging database has been restored from the backup.")).toBe(true);
  });
});
