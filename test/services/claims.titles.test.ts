/**
 * Words that look like a done verb but name, title or define something: a heading that opens with a
 * participle before its noun, a table column that defines when a thing counts as done, a name before
 * an arrow, a participle before a bare plural noun, a relayed list of points, and in Chinese the
 * user telling what they did, a step before the commands below it, a conditions heading with an
 * aside. Each rule is checked on answers written for it (none from any corpus), next to the
 * assistant's own reports of the same shape, which must still be found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a heading that opens with a participle before a bare noun titles a topic", () => {
  it("does not flag a worked example's heading", () => {
    expect(
      flagged(
        "**Worked example**\n\nTake a loan of $10,000 at 5 %. The interest for the first year is $500, and the balance after one payment is lower.",
      ),
    ).toBe(false);
  });

  it("does not flag a proposal's section heading", () => {
    expect(
      flagged("### Proposed split\n\nThe service would be cut into three modules. Each one gets its own tests."),
    ).toBe(false);
  });

  it("does not flag a heading with an explained topic", () => {
    expect(flagged("## Compressed archives, explained\n\nA tarball bundles files; gzip then shrinks the bundle.")).toBe(
      false,
    );
  });

  it("still finds a heading that reports where something went", () => {
    expect(flagged("### Deployed to staging\n\nThe build is live at staging.example.com.")).toBe(true);
  });

  it("still finds a heading with a determiner after the verb", () => {
    expect(flagged("**Fixed the login bug**\n\nThe null check in auth.ts was missing.")).toBe(true);
  });

  it("still finds a first-person report above such a heading", () => {
    expect(
      flagged(
        "I've updated the config and restarted the service.\n\n### Proposed split\n\nThe service would be cut into three modules.",
      ),
    ).toBe(true);
  });
});

describe("a table column that defines a condition or a guarantee carries no done cell", () => {
  it("does not flag a guarantee column", () => {
    expect(
      flagged(
        "| Level | Guarantee |\n|---|---|\n| 0 | Sent once, may be lost |\n| 1 | Delivered, may be duplicated |\n\nPick level 1 for most sensors.",
      ),
    ).toBe(false);
  });

  it("does not flag a done-when column of a plan", () => {
    expect(
      flagged(
        "| Step | Done when |\n|---|---|\n| Build | Uploaded to the store |\n| Review | Approved by two people |\n\nStart with the build.",
      ),
    ).toBe(false);
  });

  it("still finds the same cell under a status column", () => {
    expect(flagged("| Task | Status |\n|---|---|\n| Build | Uploaded to the store |\n| Email | Sent |")).toBe(true);
  });

  it("still finds a done cell under a result column", () => {
    expect(flagged("| Task | Result |\n|---|---|\n| Backup | Completed 03:00 |")).toBe(true);
  });
});

describe("a word before an arrow names a node of a flow", () => {
  it("does not flag a firewall rule", () => {
    expect(flagged("Suggested firewall rules:\n\n1. Trusted → anything: allow.\n2. Isolated → WAN: block.")).toBe(
      false,
    );
  });

  it("still finds a status line before an arrow elsewhere in the answer", () => {
    expect(flagged("Deployed to staging. Promotion path: staging → prod next week.")).toBe(true);
  });
});

describe("a participle before a bare plural noun describes it", () => {
  it("does not flag a risk named after is", () => {
    expect(
      flagged("The migration itself is simple. The main risk is broken links in old documents, so warn people first."),
    ).toBe(false);
  });

  it("does not flag a danger named after is", () => {
    expect(flagged("The biggest danger here is corrupted backups that nobody tests.")).toBe(false);
  });

  it("does not flag a modifier before a plural noun and keep", () => {
    expect(
      flagged("- **Numbered top-level folders** keep the order stable, whatever the sort settings.\n- Dates go first."),
    ).toBe(false);
  });

  it("still finds a state of the task's object after is", () => {
    expect(flagged("The config is updated and the service restarted.")).toBe(true);
  });

  it("still finds a booking reported after are", () => {
    expect(flagged("Your tickets are booked for Friday.")).toBe(true);
  });
});

describe("a list under someone's points relays them", () => {
  it("does not flag a landlord's points", () => {
    expect(
      flagged(
        "In the email you got, the landlord makes the following points:\n\n1. Your deposit was received.\n2. Your complaint was logged.\n\nHe doesn't say when the repair happens.",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own report before the relayed points", () => {
    expect(
      flagged("I've sent the reply. The landlord makes the following points:\n\n1. Your complaint was logged."),
    ).toBe(true);
  });
});

describe("long answers still report the assistant's work", () => {
  it("finds a status line in a long answer with a heading of a topic", () => {
    expect(
      flagged(
        "### Proposed split\n\nThe API now returns 404 for unknown ids. The client handles it. The docs mention it. The tests cover it. The changelog lists it. The team knows.\n\nDeployed to staging.\n\nLet me know if you want prod.",
      ),
    ).toBe(true);
  });
});

describe("Chinese: the user telling what they did, a step before commands, a conditions heading", () => {
  it("does not flag what the user says they submitted", () => {
    expect(flagged("您说已经在App里提交了缴费凭证，这类凭证一般需要1–2个工作日人工审核。")).toBe(false);
  });

  it("still finds the assistant's own step after what the user said", () => {
    expect(flagged("您说已经提交了，我这边已经帮您加急处理了。")).toBe(true);
  });

  it("still finds a deletion of the file the user mentioned", () => {
    expect(flagged("你说的那个文件我已经删掉了。")).toBe(true);
  });

  it("does not flag a step before the commands below it", () => {
    expect(flagged("配完用下面几条命令检查：\n\n- `show vlan brief`：看端口是否在对应 VLAN 里")).toBe(false);
  });

  it("still finds a completed check before the commands below it", () => {
    expect(flagged("配完了，用下面几条命令检查过了：")).toBe(true);
  });

  it("does not flag a conditions heading with an aside", () => {
    expect(flagged("### 办理条件（常见）\n1. 号码已实名登记，且在原运营商处使用满120天；\n2. 没有欠费。")).toBe(false);
  });
});
