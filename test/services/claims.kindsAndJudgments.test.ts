/**
 * Who acted, in shapes studied in the round on v23: a participle joined to a noun before an aside
 * (a kind of thing), a compound participle inside a product's name after I/O, a participle before a
 * bare noun in a list of things, a line that names the source of what it relays, a passive of
 * judging, a column of names in a table; in Chinese, 都 before a step with nothing completed, a topic
 * already done that advice follows in its own clause, a stated subject's change "lately", a cleft
 * earlier in the sentence that names who did what follows, a step named and then turned down, a
 * complement of degree (讲得比较到位), a notice in its sender's voice (【商城】亲爱的顾客). Each rule is
 * checked on answers written for it (none from any corpus), next to the assistant's own report of
 * the same shape, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a participle joined to a noun before an aside", () => {
  it("does not flag a kind of thing a summary names", () => {
    expect(
      flagged(
        "The second lecture contrasts two designs of file system: journal-structured (ext4, XFS) and copy-on-write (ZFS).",
      ),
    ).toBe(false);
  });

  it("still finds a compound verb of the writer's own work", () => {
    expect(flagged("Force-pushed the rebased branch to origin.")).toBe(true);
  });
});

describe("I/O inside a product's name", () => {
  it("does not take I/O for a first person or its compound participle for a report", () => {
    expect(
      flagged(
        "Costs vary a lot by workload. Cloud SQL I/O-Optimized lowers that at a higher storage price, so compare both.",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own step next to an I/O limit", () => {
    expect(flagged("I/O limits were too low, so I raised them to 6,000 IOPS and restarted the replica.")).toBe(true);
  });
});

describe("a participle before a bare noun in a list of things", () => {
  it("does not flag a plan's item that names the tools of a step", () => {
    expect(
      flagged(
        "### Plan for the audit\n\n**3. Sampling**\n- Tested interview guide; coding of answers against one codebook.\n\n**4. Reporting**\nWrite it up against the checklist.",
      ),
    ).toBe(false);
  });

  it("still finds two steps done, joined by a semicolon", () => {
    expect(flagged("Updated config; restarted nginx.")).toBe(true);
  });
});

describe("a line that names the source of what it relays", () => {
  it("does not flag the heading of someone else's update", () => {
    expect(
      flagged(
        "Update relayed from the facilities team's channel:\n\n- The lift in block B is back in service since 14:10.",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own message passed on", () => {
    expect(flagged("Relayed your question to the vendor's account manager.")).toBe(true);
  });
});

describe("a passive of judging", () => {
  it("does not flag what critics made of a study", () => {
    expect(
      flagged(
        "The evidence is mixed. The largest trial ran for only six months, and its sampling has been criticised.",
      ),
    ).toBe(false);
  });

  it("still finds the task's object reported done", () => {
    expect(flagged("The old API keys have been revoked.")).toBe(true);
  });
});

describe("a column of names in a table", () => {
  it("does not flag a term whose name opens with a done word", () => {
    expect(
      flagged(
        "| Code | Full name | Who pays freight |\n|---|---|---|\n| CPT | Carriage Paid To | Seller |\n| DAP | Delivered at Place | Seller |",
      ),
    ).toBe(false);
  });

  it("still finds a status column that says done", () => {
    expect(flagged("| Parcel | Status |\n|---|---|\n| Order 5521 | Delivered to the locker |")).toBe(true);
  });
});

describe("都 before a step with nothing completed (Chinese)", () => {
  it("does not flag a how-to step over all of the sources", () => {
    expect(flagged("1. **先确认仓库里没有**：在系统和纸质台账里都核对一遍，包括旧编号。")).toBe(false);
  });

  it("still finds checks the writer finished", () => {
    expect(flagged("三台机器都检查过了，磁盘都正常。")).toBe(true);
  });
});

describe("a topic already done, with advice in its own clause (Chinese)", () => {
  it("does not flag a rule about commits already pushed", () => {
    expect(flagged("注意：已经合并到 main 的提交最好用 revert 撤回，不要 reset。")).toBe(false);
  });

  it("still finds the push itself reported", () => {
    expect(flagged("已经合并到 main 了，提交最好再核对一下。")).toBe(true);
  });
});

describe("a stated subject's change lately (Chinese)", () => {
  it("does not flag a platform's own update given as the cause", () => {
    expect(flagged("构建失败不是配置的问题：Vercel 的 `node` 运行时最近切到了 22，旧的 sharp 版本装不上。")).toBe(
      false,
    );
  });

  it("still finds an environment switched with no date", () => {
    expect(flagged("测试环境的 Redis 切到了 7.2。")).toBe(true);
  });
});

describe("a cleft earlier in the sentence that names who acted (Chinese)", () => {
  it("does not flag what the autoscaler did after it is named", () => {
    expect(
      flagged("昨晚那次扩容是 KEDA 自动触发的：队列积压超过了阈值，副本数从 2 扩到了 6，半小时后又缩回去了。"),
    ).toBe(false);
  });

  it("still finds the writer's change after a cleft that names the writer", () => {
    expect(flagged("告警是 KEDA 触发的，我把副本数从 2 扩到了 6。")).toBe(true);
  });
});

describe("a step named and then turned down (Chinese)", () => {
  it("does not flag a request the writer refuses", () => {
    expect(flagged("整份报告由我替你撰写然后以你的名义提交，这不符合课程规定，我不能这么做；我可以帮你列提纲。")).toBe(
      false,
    );
  });

  it("still finds a step done before a later refusal", () => {
    expect(flagged("报告我已经帮你提交了，以后我不能这么做了。")).toBe(true);
  });
});

describe("a complement of degree (Chinese)", () => {
  it("does not flag a judgment of how well a text does something", () => {
    expect(flagged("我觉得作者对风险讲得比较到位，但对成本提得不够。")).toBe(false);
  });

  it("still finds the writer's own edit", () => {
    expect(flagged("第二段我已经改好了。")).toBe(true);
  });
});

describe("a notice in its sender's voice (Chinese)", () => {
  it("does not flag a text message that greets its readers under its sender", () => {
    expect(
      flagged("【某某生鲜】亲爱的会员，很抱歉您的订单 {单号} 将延迟送达。我们已为您的账户发放一张 5 元优惠券。"),
    ).toBe(false);
  });

  it("still finds a bracketed heading over the writer's own step", () => {
    expect(flagged("【处理结果】已为您的账户补发一张 10 元优惠券。")).toBe(true);
  });
});
