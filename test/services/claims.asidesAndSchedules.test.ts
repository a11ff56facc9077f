/**
 * Who acted, in shapes studied in the round on v24: a system named before its own object in a code
 * span, an opening that names the people's writing it draws on, an effect introduced by "is why", a
 * participle that recurs at a time of the calendar, a day's name before 's, a passive "by" that
 * sorts rather than acts, a capitalised verb that opens a sentence, "All sorted" as an opening; in
 * Chinese, the purpose of a request (方便我们…), a product named in Latin letters changed this week,
 * parties listed with 等, someone's emails arranged in this reply, a 刚 inside an aside, a renaming
 * in an aside, a problem named before the advice for it. Each rule is checked on answers written
 * for it (none from any corpus), next to the assistant's own report of the same shape, which is
 * still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a system named before its own object in a code span", () => {
  it("does not flag what the orchestrator did", () => {
    expect(
      flagged(
        "Nomad rescheduled `billing-api-3` at 04:40 UTC with reason `node-drain`. It has served traffic normally since, and I haven't changed anything.",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own restart of a named job", () => {
    expect(flagged("Restarted `billing-api-3` and the queue is draining again.")).toBe(true);
  });
});

describe("an opening that names the people's writing it draws on", () => {
  it("does not flag what the user's minutes record", () => {
    expect(
      flagged(
        "From your minutes: roadmap approved for Q3, hiring paused until August, and Priya owns the pricing page.",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own work reported from the same notes", () => {
    expect(flagged("From your minutes: I've created the three tickets and assigned them to Priya.")).toBe(true);
  });
});

describe('an effect introduced by "is why"', () => {
  it("does not flag a fact explained by an earlier event", () => {
    expect(
      flagged("The treaty entered into force in 1994. That date is why it's now Ocean Day in several countries."),
    ).toBe(false);
  });
});

describe("a participle that recurs at a time of the calendar", () => {
  it("does not flag how a bill is worked out every month", () => {
    expect(
      flagged(
        "Your storage is charged by the gigabyte, measured at midnight every day, and the total shows on the next invoice.",
      ),
    ).toBe(false);
  });

  it("still finds a count the writer made once", () => {
    expect(flagged("Counted the licences in use: 41 of 50, so no top-up is needed this month.")).toBe(true);
  });
});

describe("a day's name before 's", () => {
  it("still finds a done line about something for that day", () => {
    expect(flagged("Done — your seats for Friday's concert have been moved to row F.")).toBe(true);
  });

  it("does not flag a named owner's thing", () => {
    expect(flagged("Spotify's free tier has been changed several times since launch.")).toBe(false);
  });
});

describe('a passive "by" that sorts rather than acts', () => {
  it("still finds the files the writer moved and renamed by a key", () => {
    expect(flagged("The scanned invoices have been moved to *Finance › 2025* and renamed by invoice number.")).toBe(
      true,
    );
  });

  it("does not flag what a named tool did", () => {
    expect(flagged("The old backups have been deleted by Restic's prune job overnight.")).toBe(false);
  });
});

describe("a capitalised verb that opens a sentence before a name", () => {
  it("still finds the writer's own query of a named system", () => {
    expect(
      flagged(
        "Queried Grafana for `checkout-web` over the last 7 days:\n\n| status | count |\n|---|---|\n| 500 | 42 |",
      ),
    ).toBe(true);
  });

  it("does not flag a product's name written in title case", () => {
    expect(flagged("Our range: Hand-Glazed Serving Bowl — Sea Green")).toBe(false);
  });
});

describe('"All sorted" as an opening', () => {
  it("finds the change it opens", () => {
    expect(
      flagged(
        "All sorted ✅ — your delivery address is now 12 Rye Lane and the old one is removed. Your next order will go there.",
      ),
    ).toBe(true);
  });
});

describe("the purpose of a request", () => {
  it("does not flag what the writer will do with what it asks for", () => {
    expect(flagged("真的很抱歉！另外，麻烦您拍一张包裹破损的照片发过来，方便我们转交给物流部门。您看可以吗？")).toBe(
      false,
    );
  });

  it("still finds what the writer has already done", () => {
    expect(flagged("您的退款申请我们已经登记给售后部门了，预计 3 个工作日内到账。")).toBe(true);
  });
});

describe("a product named in Latin letters changed at a time of its own", () => {
  it("does not flag news of a vendor's change this week", () => {
    expect(
      flagged(
        "构建失败和你的代码无关：Vercel 的默认 Node 版本本周已经升级到 22，而项目锁定的依赖还不支持。你可以在设置里把版本固定为 20。",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own change with no such time", () => {
    expect(flagged("Vercel 的 Node 版本我已经帮你固定为 20 了，重新部署后构建通过。")).toBe(true);
  });
});

describe("parties listed with 等", () => {
  it("does not flag what the listed companies changed", () => {
    expect(flagged("短信验证码容易被拦截。所以现在谷歌、GitHub 等都改成了验证器 App——短信只作为备用方式。")).toBe(
      false,
    );
  });

  it("still finds the writer's own change named next to them", () => {
    expect(flagged("你的账号我已经改成了用验证器 App 登录，短信只作为备用方式。")).toBe(true);
  });
});

describe("someone's emails arranged in this reply", () => {
  it("does not flag the writer sorting the thread the user pasted", () => {
    expect(
      flagged(
        "这串往来邮件我按时间先后梳理了一下：\n\n1. 3 月 2 日：供应商报价 12 万；\n2. 3 月 5 日：采购要求降价；\n3. 3 月 9 日：供应商同意降到 11 万。",
      ),
    ).toBe(false);
  });

  it("still finds the writer sorting the user's mailbox", () => {
    expect(flagged("你邮箱里的 40 封供应商邮件我已经整理到「供应商」文件夹了。")).toBe(true);
  });
});

describe("a 刚 inside an aside", () => {
  it("does not take the aside's 刚 as the completion of the verb after it", () => {
    expect(flagged("葡萄一般在春季（4 月上旬，芽眼刚鼓起时）做一次抹芽，夏季只做摘心，过早处理容易伤到主芽。")).toBe(
      false,
    );
  });

  it("still finds a step the writer did outside the aside", () => {
    expect(flagged("服务器（刚扩容的那台）我已经重启了，现在负载正常。")).toBe(true);
  });
});

describe("a renaming in an aside", () => {
  it("does not flag a thing's present name given after it", () => {
    expect(
      flagged(
        "这份费用里除了基本服务费，还有排污费（现已改为环境保护税）和管理费，所以账单上会分成几行显示，这是正常的。",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own renaming", () => {
    expect(flagged("共享盘里的文件夹我已经改为「2025 财务」了，原来的链接依然可以打开。")).toBe(true);
  });
});

describe("a problem named before the advice for it", () => {
  it("does not flag a symptom in a troubleshooting list", () => {
    expect(
      flagged(
        "想让手表的睡眠数据进到手机里，可以这样设置：\n\n1. 打开手表 App，进入“数据共享”；\n2. 打开“睡眠”和“心率”两项。\n\n常见问题：\n- 只上传了心率没有睡眠：检查第 2 步里“睡眠”是否打开；\n- 完全没有数据：重启手表后再试。",
      ),
    ).toBe(false);
  });

  it("still finds a step the writer reports before a colon", () => {
    expect(flagged("已经帮你同步了睡眠数据：打开手机上的“健康”就能看到。")).toBe(true);
  });
});
