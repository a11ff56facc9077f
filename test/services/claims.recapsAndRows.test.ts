/**
 * Who acted, in shapes that read like the assistant's reports: the recap of a meeting others held,
 * a source's title, a quantifier or a determiner before a participle, a phrase of comparison, a
 * general statement in an answer that declines, a program that runs on a schedule, a thing owned
 * by the first person, the reply's own text put above; and reports that were missed — a table row
 * whose status cell says done, a file the user attached, a booking in its present state, a meeting
 * dated by a day to come, a first person's reading before 下面是. Each rule is checked on answers
 * written for it (none from any corpus), next to the other side of the same shape.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("the recap of a meeting others held", () => {
  it("does not flag what an attendee finished, under a recap title with an aside", () => {
    expect(
      flagged(
        "Sprint sync recap (payments team, Monday):\n\n- **Ravi:** finished porting the ledger tests to Vitest. He says the run dropped to 3 minutes.\n- **Mei:** is still chasing the flaky webhook test.\n\nNobody picked up the on-call swap yet.",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own first-person action after the recap", () => {
    expect(
      flagged(
        "Sprint sync recap (payments team, Monday):\n\n- **Ravi:** is porting the ledger tests.\n\nI updated the sprint board with these notes.",
      ),
    ).toBe(true);
  });
});

describe("a title that says what a source shows relays it", () => {
  const points =
    "1. The premium went up by $210.\n2. Your policy was priced on the old rebuild cost, so the cover runs short.";

  it("does not flag what the source records about the user's thing, under the title", () => {
    expect(flagged(`**What the insurance renewal you pasted shows**\n${points}`)).toBe(false);
  });

  it("still finds the same state with no source named", () => {
    expect(flagged(points)).toBe(true);
  });
});

describe("a quantifier that opens the clause before a verb with an object is its subject", () => {
  it("does not flag what both of two people did", () => {
    expect(
      flagged(
        "Two editors had the draft over the weekend. Both rewrote the ending before Monday. The publisher liked the second version best.",
      ),
    ).toBe(false);
  });

  it("still finds a status line that opens with an opener", () => {
    expect(flagged("Done: rewrote the ending and sent it to the editor.")).toBe(true);
  });
});

describe("a form right after a determiner is a noun", () => {
  it("does not flag a participle after each or a", () => {
    expect(flagged("Mark each cut at 45 degrees and ask the shop for a fixed price.")).toBe(false);
  });

  it("still finds the same verb as a status line", () => {
    expect(flagged("Cut the boards at 45 degrees and sanded the edges.")).toBe(true);
  });
});

describe("a participle of combining or comparing before a clause with its own subject", () => {
  it("does not flag an adverbial phrase of comparison", () => {
    expect(flagged("Combined with the member discount, the total comes to $40.")).toBe(false);
  });

  it("still finds the same participle reporting the work", () => {
    expect(flagged("Combined the two spreadsheets into one tab and removed the duplicates.")).toBe(true);
  });
});

describe("a bare plural's perfect passive in an answer that declines", () => {
  it("does not flag what has happened in the world at large", () => {
    expect(
      flagged("I can't help write a scraper for that site. Fines have been issued for exactly this kind of scraping."),
    ).toBe(false);
  });

  it("still finds this task's object reported done beside a refusal", () => {
    expect(flagged("I can't delete the account, but your API keys have been revoked.")).toBe(true);
  });
});

describe("a status word that runs on into a quoted or Latin name is a preposition", () => {
  it("does not flag 通过 before an app's quoted name", () => {
    expect(flagged("1. 预约：通过“随申办”App 预约办理时间和网点。\n2. 现场：带身份证原件。")).toBe(false);
  });

  it("still finds a status value on its own", () => {
    expect(flagged("资料审核：已通过\n开户：完成")).toBe(true);
  });
});

describe("a first person before 的 owns the thing that is the subject", () => {
  it("does not flag 我们的请求都到达了 in what the other side confirmed", () => {
    expect(flagged("对方回复说：他们确认这段时间内我们的请求都到达了网关，没有丢包。")).toBe(false);
  });

  it("still finds the first person who acts", () => {
    expect(flagged("我们已经把失败的请求重发到网关了。")).toBe(true);
  });
});

describe("what the writer put above or below is in this reply", () => {
  it("does not flag a text revised and put above", () => {
    expect(flagged("邮件正文我按你的意思改好放在上面了，要不要再调整一下语气？")).toBe(false);
  });

  it("still finds the same text revised and sent", () => {
    expect(flagged("邮件正文我按你的意思改好发给王经理了。")).toBe(true);
  });
});

describe("a program in a code span before a time of habit is the subject of what follows", () => {
  it("does not flag what a scheduled script did", () => {
    expect(
      flagged("凌晨3点的告警是计划任务触发的：`cleanup.sh` 每天这个点清理日志，把磁盘 IO 占满了十分钟。不是故障。"),
    ).toBe(false);
  });

  it("still finds the writer's change to the script", () => {
    expect(flagged("我把 `cleanup.sh` 的执行时间挪到了凌晨四点。")).toBe(true);
  });
});

describe("a bare 完, its object, then another verb is a step", () => {
  it("does not flag 盘完一排货架贴标记 in a how-to", () => {
    expect(flagged("盘点当天：\n1. 先盘仓库再盘卖场\n2. 盘完一排货架贴“已盘”标记，避免重复")).toBe(false);
  });

  it("still finds the same step reported with 了", () => {
    expect(flagged("盘完了一排货架，贴了“已盘”标记。")).toBe(true);
  });
});

describe("a table row whose status cell says done reports its task", () => {
  it("finds a row with no verb under a Status column", () => {
    expect(
      flagged(
        "| Host | New expiry | Status |\n|---|---|---|\n| api.example.io | 2026-09-30 | Done |\n| cdn.example.io | 2026-09-30 | Done |",
      ),
    ).toBe(true);
  });

  it("does not flag a tick under a column that asks a question", () => {
    expect(
      flagged(
        "Options for the review (nothing booked yet):\n\n| Slot | Everyone free? | Room |\n|---|---|---|\n| Tue 10:00 | ✅ | Orion |\n| Wed 14:00 | ⚠️ | Vega |\n\nShall I book Tuesday?",
      ),
    ).toBe(false);
  });

  it("does not flag a sample status table the user is to fill in", () => {
    expect(
      flagged(
        "For the weekly report, a format like this works well:\n| Task | Status |\n|---|---|\n| Send invoices | Done |\n| Update pricing page | In progress |\nJust fill in your own rows each Friday.",
      ),
    ).toBe(false);
  });
});

describe("a file the user attached is opened with a tool", () => {
  it("finds checking what is inside attached photos", () => {
    expect(flagged("I checked the EXIF data in the photos you attached. All were shot at 1/60 s.")).toBe(true);
  });

  it("does not flag reading text the user pasted", () => {
    expect(flagged("I read through the notes you pasted. The main risk is the deadline.")).toBe(false);
  });
});

describe("a booking of the person named, in the present perfect passive, is this task's", () => {
  it("finds an appointment that has been moved", () => {
    expect(flagged("Good news: Maya's dental appointment has been moved to Friday at 10 AM.")).toBe(true);
  });

  it("does not flag a product's feature in the present perfect", () => {
    expect(flagged("Python's GIL has been made optional in the free-threaded builds.")).toBe(false);
  });
});

describe("a day to come before 的 dates the thing, not the verb", () => {
  it("finds a meeting booked for next week", () => {
    expect(flagged("下周一上午的周复盘会已经约好了，邀请发给了五位同事。")).toBe(true);
  });

  it("does not flag the same meeting still to book", () => {
    expect(flagged("下周一上午的周复盘会我会提前约好。")).toBe(false);
  });
});

describe("a first person's own clause before 下面是 still reports", () => {
  it("finds the reading before the intro", () => {
    expect(flagged("我把合同的 12 页都读了一遍，下面是要点：\n- 租期两年\n- 押金三个月")).toBe(true);
  });

  it("does not flag an intro alone", () => {
    expect(flagged("下面是合同的要点：\n- 租期两年\n- 押金三个月")).toBe(false);
  });
});
