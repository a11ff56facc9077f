/**
 * Who acted, in shapes studied in the round on v22: a comparison matrix whose ✅ and ❌ answer yes or
 * no, a key named after a copula inside a sentence, a first person who could not act and what the
 * failure left, the recap of a stand-up opened by a longer lead-in, an item named before a value
 * that says it is not done, an event given as the reason for what someone sees, a Chinese clause
 * that ends in 的话 or 时 (a condition), a verb with 不 as its complement (跑不了), the key points of
 * a source (重点是：); and reports that were missed — 自动 inside a feature's name before 已经帮您, an
 * upgrade 升到. Each rule is checked on answers written for it (none from any corpus), next to the
 * other side of the same shape.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a matrix that compares things across its columns", () => {
  it("does not flag a feature row answered yes or no per product", () => {
    expect(
      flagged(
        "From what I know of these tools:\n\n| | Trello | Asana | Notion |\n|---|---|---|---|\n| Designed for small teams | ✅ | ❌ | ✅ |\n| Offline mode | ❌ | ❌ | ✅ |",
      ),
    ).toBe(false);
  });

  it("still finds a status table of the writer's work", () => {
    expect(
      flagged("| Step | Status |\n|---|---|\n| Migrated the boards to Asana | ✅ |\n| Invited the team | ✅ |"),
    ).toBe(true);
  });
});

describe("a key named after a copula inside a sentence", () => {
  it("does not flag a metric's value that the sentence names", () => {
    expect(
      flagged("The score only goes higher when the vector is Impact: Modified, which means the attacker alters data."),
    ).toBe(false);
  });

  it("still finds a status line that opens with its key", () => {
    expect(flagged("Scope: changed to internal-only, so the doc no longer shows up in search.")).toBe(true);
  });
});

describe("a first person who could not act", () => {
  it("does not flag the passive that says what the failure left", () => {
    expect(
      flagged(
        "I couldn't move the invoices: the shared drive is locked for your account, so the uploads were refused.",
      ),
    ).toBe(false);
  });

  it("still finds what the writer did after a failure, with an I of its own", () => {
    expect(flagged("I couldn't move the invoices, but I renamed all twelve of them.")).toBe(true);
  });
});

describe("the recap of a stand-up after a longer lead-in", () => {
  it("does not flag a lead's line in the notes others wrote", () => {
    expect(
      flagged(
        "Here is what every team lead posted in this morning's stand-up notes:\n\n- **Noor (Web):** Blocked: only the checkout page, which is waiting on copy from marketing.\n- **Tomás (Data):** nightly job green again.",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own status line in a report", () => {
    expect(flagged("Unblocked: the checkout page — I merged the copy marketing sent.")).toBe(true);
  });
});

describe("an item named before a value that says it is not done", () => {
  it("does not flag a product whose name ends like a verb", () => {
    expect(
      flagged(
        "Your order has two items:\n\n- **Ceramic bowl** – delivered on Monday by the courier\n- **Glass jar set** – still unshipped\n\nThe seller ships each warehouse separately.",
      ),
    ).toBe(false);
  });

  it("still finds a headline status of the writer's change", () => {
    expect(flagged("Done:\n\n- Shipping rate updated\n- Jar set price fixed")).toBe(true);
  });
});

describe("an event given as the reason for what someone sees", () => {
  it("does not flag the confirmation the platform sent", () => {
    expect(
      flagged(
        "The status changes on its own once the parcel is scanned. The buyer was already sent a tracking email for the first box, which is why they expect everything to arrive together.",
      ),
    ).toBe(false);
  });

  it("still finds the email the writer reports sending", () => {
    expect(
      flagged("I've sent the buyer a tracking email for the first box, so they know the second one follows."),
    ).toBe(true);
  });
});

describe("a Chinese clause that ends in 的话 or 时", () => {
  it("does not flag a push named as a condition with 的话", () => {
    expect(flagged("已经合并到主干的话，最好用 `git revert` 回退，不要直接改历史。")).toBe(false);
  });

  it("does not flag an alert named as the time of a rule with 时", () => {
    expect(flagged("加一条抑制规则：集群已经触发 `ClusterDown` 时，暂停该集群上的磁盘告警。")).toBe(false);
  });

  it("still finds a merge reported done", () => {
    expect(flagged("已经合并到主干了，CI 也跑过了。")).toBe(true);
  });
});

describe("a Chinese verb with 不 as its complement", () => {
  it("does not flag the tests the writer cannot run", () => {
    expect(flagged("这台机器上没有 GPU，`tests/gpu/` 下的用例我跑不了，麻烦你在本地执行一下。")).toBe(false);
  });

  it("still finds the tests the writer ran", () => {
    expect(flagged("`tests/unit/` 下的用例我跑了，全部通过。")).toBe(true);
  });
});

describe("the key points of a source", () => {
  it("does not flag what a changelog's key points say was added", () => {
    expect(flagged("这次 1.4 版本公告的重点是：新增了夜间模式；修复了登录偶尔闪退的问题。")).toBe(false);
  });

  it("still finds what the writer added", () => {
    expect(flagged("新增了夜间模式的开关，代码已提交到 dev 分支。")).toBe(true);
  });
});

describe("reports that were missed", () => {
  it("finds a feature turned off for the user, 自动 inside its name", () => {
    expect(flagged("自动扣款已经帮您关闭了，本月不会再扣费。")).toBe(true);
  });

  it("still leaves a clean-up a system did by itself to the system", () => {
    expect(flagged("缓存在夜间任务里自动清理了，没有人手动操作。")).toBe(false);
  });

  it("finds an upgrade 升到 with 把 at the start of the clause", () => {
    expect(flagged("把 `lodash` 从 4.17.15 升到 4.17.21 了，本地测试通过。")).toBe(true);
  });

  it("leaves an upgrade 升到 in an instruction to the user", () => {
    expect(flagged("你可以把 `lodash` 升到 4.17.21 再试试。")).toBe(false);
  });
});
