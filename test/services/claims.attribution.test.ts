/**
 * Who acted, continued: named people and companies as subjects, past years, relayed sources, how-to
 * framing, drafts and letters, table headers and owner columns, in both languages — and the
 * assistant's own actions beside them still claimed.
 */
import { describe, expect, it } from "vitest";
import { completedActions, detectClaims } from "../../src/services/claims.js";

const claimed = (answer: string) => detectClaims(answer).length > 0;

describe("English: someone else acted", () => {
  it.each([
    ["a name in mid-sentence", "Per your message, Bob deployed v2.4.0 this morning, so the fix should be live."],
    [
      "a name with an object of its own",
      "The Broad Institute filed first. UC then requested an interference proceeding.",
    ],
    ["a name the answer uses elsewhere", "Agent Marta confirmed one charge was a hold.\n\nMarta escalated to Billing."],
    ["a named owner's thing", "Python's GIL was introduced to simplify memory management in CPython."],
    ["a recent past year", "Several startups failed: Fisker filed for bankruptcy in June 2024."],
    [
      "a proper name that ends like a past form",
      "Alfred Wegener first presented his idea of continental drift in 1912.",
    ],
    [
      "a source being relayed",
      "The bank's message says the transfer was reversed. The funds were returned to your account.",
    ],
    ["a passive agent after a status with no subject", "Auto-renewed by cert-manager at 02:00."],
    [
      "an earlier actor in the sentence",
      "The carrier scanned it at the hub yesterday evening, and it's now out for delivery.",
    ],
    ["an order's own dated event", "Your order #88123 shipped from our Leeds warehouse on Monday."],
  ])("sets aside %s", (_, answer) => {
    expect(claimed(answer)).toBe(false);
  });

  it("sets aside what a step does in a how-to, and a participle before a finite verb", () => {
    expect(claimed("Click Save. The changes are applied immediately.")).toBe(false);
    expect(claimed("Files deleted from Google Drive stay in the Bin for 30 days.")).toBe(false);
  });

  it("still claims the assistant's action later in a sentence that opens with someone else's", () => {
    const answer = "Given that you think the account was compromised, I've disabled sign-in and revoked all sessions.";
    expect(detectClaims(answer)).toMatchObject([{ verb: "disabled", agent: "assistant", reason: "first person" }]);
  });

  it("still claims a headline whose noun holds an identifier", () => {
    expect(detectClaims("✅ Invoice INV-204 sent")).toMatchObject([{ kind: "deliver", agent: "assistant" }]);
  });
});

describe("English: content and tables", () => {
  it("reads a complaint the user can submit, a letter and an email with its subject line as content", () => {
    expect(
      claimed(
        "Here's a complaint you can submit through the airline's web form:\n\n---\nMy bag did not arrive. I reported it at the desk and I've attached all receipts.\n---\n\nAdjust the amounts if needed.",
      ),
    ).toBe(false);
    expect(
      claimed("Thanks, here it is.\n\nDear Ms. Chen,\n\nI have reviewed your application.\n\nBest regards,\nAlex"),
    ).toBe(false);
    expect(
      claimed("Subject: Q3 update\n\nHi team,\n\nWe shipped the new onboarding flow in August.\n\nThanks,\nLena"),
    ).toBe(false);
  });

  it("takes a table's header row as labels and a row owned by someone else as theirs", () => {
    expect(claimed("| Building | Completed | Height |\n|---|---|---|\n| Chrysler | 1930 | 319 |")).toBe(false);
    const onCall =
      "| Day | Alert | Handled by | Outcome |\n|---|---|---|---|\n| Sat | Disk 90% | Elif | Cleared Docker cache |";
    expect(claimed(onCall)).toBe(false);
  });

  it("still claims a status table whose cell opens with a done word", () => {
    expect(claimed("| Action | Owner | Status |\n|---|---|---|\n| Send contract to Acme | me | Sent 10:14 |")).toBe(
      true,
    );
  });
});

describe("Chinese: someone else acted", () => {
  it.each([
    ["a person's name and a time", "王磊昨晚给你发了会议纪要，里面提到周五前要交预算表。"],
    ["a Latin name before a time", "Tony 上周已经把测试环境的数据清了，所以你现在登录会看到空白。"],
    ["a role before a clock time", "CI 在 14:03 跑完了，412 个测试全部通过。"],
    ["a source relayed before a subjectless clause", "据快递员反馈，包裹昨天派送时家里没人，已经退回站点暂存。"],
    ["the subject of an earlier clause", "尽管如此，它至今仍在工作，已经累计完成了超过150万次观测。"],
    ["a system's adverb", "迁移在部署过程中自动执行了。"],
    ["a release of the software", "根据更新日志，这个 bug 在 2.3.1 版本修复了。"],
    ["an earlier time of its own", "补丁上周已经合入上游，升级到 4.2 就能修复。"],
    ["a stated subject after a temporal clause", "你上传 CSV 之后，导入程序创建了 240 个联系人。"],
  ])("sets aside %s", (_, answer) => {
    expect(claimed(answer)).toBe(false);
  });

  it("reads a negated verb, an interpretation and another user's case as no action", () => {
    expect(claimed("这个我做不到：我访问不了贵公司的内网 Jira。")).toBe(false);
    expect(claimed("这段代码我看下来主要有三个问题，供你参考：")).toBe(false);
    expect(claimed("我上次帮别的用户处理过同样的退款问题，一般需要提供银行流水。")).toBe(false);
  });

  it("reads a reply drafted for the user as content", () => {
    expect(claimed("给客户的回复可以这么写：\n\n您好！您反馈的问题我们已经修复，新版本已上线。")).toBe(false);
    expect(claimed("维护公告草稿 ⬇️\n\n【系统维护完成通知】\n\n我们已于 6 月 15 日完成数据库升级。")).toBe(false);
  });

  it("takes a member's row of a progress table as theirs, and a status cell as done", () => {
    expect(claimed("| 成员 | 本周完成 |\n|---|---|\n| 陈静 | 完成登录页改版并上线灰度 |")).toBe(false);
    expect(claimed("| 城市 | 酒店 | 状态 |\n|---|---|---|\n| 成都 | 博舍 | 预订成功 |")).toBe(true);
  });

  it("still claims the assistant's own action beside another's", () => {
    expect(claimed("这个订单我这边取消不了，不过已经帮您备注给仓库，让他们先别发货。")).toBe(true);
    expect(claimed("已预约下周二 16:00 的家长会，和班主任张老师一对一。")).toBe(true);
    const actions = completedActions("退款已发放：¥42.10 原路退回到尾号 4242 的卡。");
    expect(actions.some((action) => action.agent === "assistant")).toBe(true);
  });
});

describe("English: relayed accounts, examples, requirements and titles", () => {
  it("reads a list introduced as someone's relayed account as theirs", () => {
    const answer =
      "## Outage on Tuesday\n\nAccording to the on-call log, as Priya relayed it:\n\n- Restarted the ingest workers at 02:10\n- Rolled back the schema change at 02:40\n\nThe incident review is on Friday.";
    expect(claimed(answer)).toBe(false);
  });

  it("reads a list introduced as how a story is usually told as the story's", () => {
    const answer =
      "Here's how the founding of the lab is usually told:\n\n- Built the first prototype in a garage\n- Sold it to a university\n\nIt's now a household name.";
    expect(claimed(answer)).toBe(false);
  });

  it("reads what a document boils down to as the document's", () => {
    expect(
      claimed(
        "The 3.2 changelog boils down to: Python 3.10 is required, the legacy flag is gone, and `run()` now returns a future.",
      ),
    ).toBe(false);
  });

  it("takes a participle in a clause that gives examples as an adjective", () => {
    const answer =
      "Landlords can't usually deduct for normal wear.\n\n- **Normal wear** isn't damage — faded curtains or worn carpet, for example.\n- Keep photos of the flat.";
    expect(claimed(answer)).toBe(false);
  });

  it("takes a participle of need after a plan's label as a requirement", () => {
    const answer =
      "1. **Security sign-off (by 3 June):** required before any customer data moves.\n2. **Cutover (10 June):** traffic moves to the new cluster.";
    expect(claimed(answer)).toBe(false);
  });

  it("reads the document under a heading that calls itself a draft for somewhere as content", () => {
    const answer =
      "### Shipping FAQ (draft for the store page)\n\n**What can't be shipped abroad?**\n- Engraved or personalised jewellery\n- Gift cards\n\nWant a shorter version?";
    expect(claimed(answer)).toBe(false);
  });

  it("does not take a first person inside a title followed by its own passive as the doer", () => {
    const answer =
      "## The song\n\n**I'm Still Standing** was recorded in Montserrat, released on 25 April 1983 as a single.\n\nIt charted in a dozen countries.";
    expect(claimed(answer)).toBe(false);
  });
});

describe("Chinese: relayed records, the reply itself, requests and the user's steps", () => {
  it("reads a table introduced as another team's record as theirs, and claims the writer's own line after it", () => {
    const table =
      "## 故障复盘\n\n根据运维组提交的事故记录：\n\n| 时间 | 进展 |\n|---|---|\n| 09:10 | 已定位到磁盘写满 |\n\n";
    expect(claimed(`${table}我们这边的改进：给磁盘加告警。`)).toBe(false);
    expect(claimed(`${table}我已经给磁盘加上了 85% 的告警。`)).toBe(true);
  });

  it("takes this very summary, named as what the writer put together, as the reply", () => {
    expect(claimed("整个排查都是数据库组做的，我只是根据聊天记录整理了这份总结。")).toBe(false);
    expect(claimed("我根据聊天记录整理了排查过程，已经写进了 Confluence 的故障页面。")).toBe(true);
  });

  it("sets aside reading what the user sent in the conversation, unless the sentence goes on to an action", () => {
    expect(claimed("看了您发来的报销单照片，金额和发票是一致的，可以直接提交。")).toBe(false);
    expect(claimed("看了您发来的报销单照片，也登录系统核对了，金额一致。")).toBe(true);
  });

  it("takes a verb after a request to the user as the step that follows it", () => {
    expect(claimed("这边暂时查不到您的物流信息，麻烦发一下收件人手机号后四位，我们转给仓库核实。")).toBe(false);
  });

  it("takes the steps under a label of time to come as a plan", () => {
    expect(claimed("明天的安排：上午补完接口文档，下午跟测试组对一遍用例。")).toBe(false);
  });

  it("takes when a rule takes effect as no change made", () => {
    expect(claimed("挂失：拨打客服电话按提示操作，口头挂失立即生效。")).toBe(false);
  });

  it("takes ways offered side by side as the user's to choose", () => {
    expect(claimed("停机保号：发短信“TJBH”到 10010，或者在网上营业厅直接提交申请，次月生效。")).toBe(false);
  });

  it("takes a step framed by the time it applies as the user's", () => {
    expect(
      claimed(
        "### 接入 lint\n\n1. 安装：`npm i -D eslint`\n2. 首次接入时跑一遍 `eslint --fix`，把存量问题一次性修掉。",
      ),
    ).toBe(false);
  });

  it("takes the user's own step before a symptom as the user's", () => {
    expect(
      claimed("换了路由器后显示“无网络”，多半是 DNS 没配好，或者光猫还没重启。运营商一般在报修后 4 小时内上门。"),
    ).toBe(false);
  });

  it("takes an unmarked event after someone else's action in the sentence as its outcome", () => {
    expect(claimed("告警是凌晨 2:05 触发的，值班的老王当时已经重启了网关，延迟在 2:20 左右恢复正常。")).toBe(false);
  });

  it("reads the text after a template's label on the same line as the template", () => {
    expect(claimed("短信模板：【某某银行】您尾号 {last4} 的卡片已激活，如非本人操作请致电客服。")).toBe(false);
  });
});
