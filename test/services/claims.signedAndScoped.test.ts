/**
 * Who acted, in shapes studied in the round on v21: a cleft after the verb that names a system, a
 * value set given in an aside, a rule under its label, things counted and described by 已 and a
 * verb, a step the writer names and turns down, the reply composed for the user with an aside, a
 * vendor as the subject, a letter a person signs with their bare name, a title's subtitle after a
 * dash, release notes in a table, a key that names what an event touched, a post that closes on a
 * call to its readers; and reports that were missed — a ticket created before the user's material
 * is named, a scale-out 扩到, 自动 inside a feature's name, "below" before a number, the writer's
 * words after a quoted draft, a pseudo-cleft ("What I've done instead is flag…"). Each rule is
 * checked on answers written for it (none from any corpus), next to the other side of the same shape.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a cleft after the verb names who did it", () => {
  it("does not flag restarts a cleft gives to systemd", () => {
    expect(flagged("服务重启了两次是 systemd 自己做的：健康检查连续失败，它就把进程拉起来了。")).toBe(false);
  });

  it("still finds restarts the cleft gives to the writer", () => {
    expect(flagged("服务重启了两次是我做的：改完配置后我手动重启了两次。")).toBe(true);
  });
});

describe("a value set, given in an aside", () => {
  it("does not flag the timeout someone configured, told as the cause", () => {
    expect(
      flagged("这几个容器是 kubelet 自己重启的：探针连续超时（超时时间只设了 1 秒），它就判定容器不健康了。"),
    ).toBe(false);
  });

  it("still finds the timeout the writer set", () => {
    expect(flagged("超时时间我设成了 5 秒，明天再观察一下。")).toBe(true);
  });
});

describe("a rule under its label says when to act", () => {
  it("does not flag the action a condition's label prescribes", () => {
    expect(flagged("扩容条件：CPU 连续 10 分钟超过 80%，立即扩容，不用等审批。")).toBe(false);
  });

  it("still finds a scale-out reported done", () => {
    expect(flagged("扩容已完成，从 4 台扩到了 8 台。")).toBe(true);
  });
});

describe("things counted and described by 已 and a verb", () => {
  it("does not flag a count of archived projects", () => {
    expect(flagged("目前共有 5 个已归档项目，其余的还在进行中。")).toBe(false);
  });

  it("still finds projects reported archived", () => {
    expect(flagged("5 个项目已归档，其余 3 个我没动。")).toBe(true);
  });
});

describe("a step the writer names and turns down", () => {
  it("does not flag deleting reviews the writer declines", () => {
    expect(flagged("帮你删掉别人的差评这个不行，可以走平台的申诉流程。")).toBe(false);
  });

  it("still finds an appeal the writer filed for the user", () => {
    expect(flagged("帮你把那条差评的申诉提交了，平台一般三天内回复。")).toBe(true);
  });
});

describe("the reply composed for the user, with an aside before the colon", () => {
  it("does not flag an itinerary drawn up for the user above its days", () => {
    expect(
      flagged("给你排了一个三天的杭州行程，节奏比较慢：\n\n- 第一天：西湖、断桥\n- 第二天：灵隐寺\n- 第三天：西溪湿地"),
    ).toBe(false);
  });

  it("still finds the itinerary sent to the user's mailbox", () => {
    expect(flagged("给你排好了三天的杭州行程，已经发到你邮箱了。")).toBe(true);
  });
});

describe("a vendor as the subject", () => {
  it("does not flag the account a logistics provider sent", () => {
    expect(flagged("物流服务商刚发了这次延误的说明，大意如下：\n\n- 原因：暴雨导致干线停运\n- 预计：周五恢复")).toBe(
      false,
    );
  });

  it("still finds the writer sending the provider the tracking number", () => {
    expect(flagged("我已经把运单号发给物流服务商了。")).toBe(true);
  });
});

describe("自动 inside a feature's name", () => {
  it("finds auto-renewal reported switched off", () => {
    expect(flagged("您的自动续费已经关闭，下个月不会再扣款。")).toBe(true);
  });

  it("still gives a renewal that ran by itself to the system", () => {
    expect(flagged("续费在扣款日自动执行了一次，所以扣了 30 元。")).toBe(false);
  });
});

describe("the user's material named after the action", () => {
  it("finds a ticket created, though a later clause lists what the user provided", () => {
    expect(flagged("已为您创建工单 #60412，并转交给支付团队，工单里附上了您提供的：\n- 订单号\n- 付款截图")).toBe(true);
  });

  it("still reads what was looked at in the user's material as analysis", () => {
    expect(flagged("我看了一下，您提供的截图里显示的是旧版本的界面。")).toBe(false);
  });
});

describe("a scale-out to a number", () => {
  it("finds the writer scaling replicas out to eight", () => {
    expect(flagged("14:32 我把 `api` 副本数从 4 扩到了 8，延迟随后回落。")).toBe(true);
  });

  it("still reads a campaign that reached three cities as no report", () => {
    expect(flagged("这次活动的覆盖面扩到了三个城市。")).toBe(false);
  });
});

describe("a letter a person signs with their bare name", () => {
  it("does not flag the user's own letter about returning a laptop", () => {
    expect(
      flagged(
        "Dear Ms Rivera,\n\nI returned the laptop on 3 June and shipped the charger the next day. Please refund my deposit.\n\nBest regards,\nJordan Lee",
      ),
    ).toBe(false);
  });

  it("still finds a refund in a letter signed for a desk", () => {
    expect(
      flagged("Dear Ms Rivera,\n\nI've refunded your deposit of $200 today.\n\nKind regards,\nJordan, Customer Care"),
    ).toBe(true);
  });
});

describe("a title's subtitle after a dash", () => {
  it("does not flag a participle before a bare noun in an itinerary's title", () => {
    expect(
      flagged(
        "## Three days in Rome — guided pace\n\n**Day 1**\nColosseum early, then the Forum.\n\n**Day 2**\nVatican Museums (book ahead).",
      ),
    ).toBe(false);
  });

  it("still finds the trip the writer booked under such a title", () => {
    expect(flagged("## Rome trip — booked\n\nI booked the hotel near Termini for 12–15 May.")).toBe(true);
  });
});

describe("release notes in a table and a key that names what an event touched", () => {
  it("does not flag what each release fixed under a release column", () => {
    expect(
      flagged(
        "### What each release fixed\n| Release | Fixes |\n|---|---|\n| 3.1.0 | Fixed a crash on start-up |\n| 3.1.1 | Removed the legacy exporter |",
      ),
    ).toBe(false);
  });

  it("still finds done cells in a rollout table", () => {
    expect(
      flagged("### Rollout\n| Environment | Result |\n|---|---|\n| staging | Deployed |\n| production | Deployed |"),
    ).toBe(true);
  });

  it("does not flag an advisory's affected versions", () => {
    expect(flagged("## CVE-2024-1234\n\n- **Affected:** libfoo 3.0 through 3.4\n- **Fixed in:** 3.5")).toBe(false);
  });

  it("still finds a deploy reported as a key: value line", () => {
    expect(flagged("- **Deployed:** v3.5 to production\n- **Smoke tests:** passing")).toBe(true);
  });
});

describe("a post that closes on a call to its readers", () => {
  it("does not flag a launch post that ends with a download link", () => {
    expect(
      flagged("Big news 🎉 Lumen 2.0 is live! Faster sync and offline notes. Try it free → lumen.app/download"),
    ).toBe(false);
  });

  it("still finds a release the writer published", () => {
    expect(flagged("Lumen 2.0 is live on the App Store — I published the release this morning.")).toBe(true);
  });
});

describe("reports that were missed", () => {
  it("finds a rule added that compares with a number below", () => {
    expect(flagged("I've added a rule that turns any balance below 100 amber.")).toBe(true);
  });

  it("still reads options listed below as this reply", () => {
    expect(flagged("I've listed the three options below.")).toBe(false);
  });

  it("finds the writer's own save after a quoted draft", () => {
    expect(
      flagged(
        "Here's the reply:\n\n> Hi Sam, thanks for the update. Friday works for me.\n\nI've also saved it in your drafts as \"Sam — Friday\".",
      ),
    ).toBe(true);
  });

  it("still reads a remark on a quoted draft as no report", () => {
    expect(
      flagged("Here's the reply:\n\n> Hi Sam, the order was shipped yesterday.\n\nFeel free to tweak the wording."),
    ).toBe(false);
  });

  it("finds the action a pseudo-cleft names", () => {
    expect(flagged("What I've done instead is archive the two old threads in the shared inbox.")).toBe(true);
  });

  it("still reads a suggestion in the same shape as no report", () => {
    expect(flagged("What I'd suggest instead is archive the two old threads.")).toBe(false);
  });
});
