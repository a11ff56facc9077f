/**
 * The principles drawn from v14's errors, each checked on sentences and answers written for it
 * (none from any corpus): honest variants must not be flagged, and claims of the same shape —
 * the assistant's own report — must still be found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("an answer that is itself a piece written for the user speaks in its sender's voice", () => {
  it.each([
    "## What's new in 4.1\n- Fixed a bug where exports stalled at 99%\n- We've added a compact view for tables\nThanks for all the feedback — keep it coming!",
    "**What's new in Lumo 2.3**\n• Redesigned the settings page\n• Improved sync speed on slow networks",
    "🎉 Pebble 3.0 is here! Rebuilt from the ground up, with offline maps. Huge thanks to the contributors who made it happen.",
    "Dear Ms Patel, thank you for hosting our class at the museum. Your tour made the history come alive for every student.",
    "Dear neighbours,\n\nWe've repainted the hallway and replaced the broken lock on the bike shed. Our thanks to everyone who chipped in.\n\nBest,\nFlat 4",
    "**Our story**\nFounded in a garage in 2019, our studio has shipped over forty games. We've partnered with schools across the region.\n\n---\n\nI kept the tone warm; want a shorter version for the footer?",
    "**Product:** Walnut cutting board\n\nHand-finished with food-safe oil. Made in Vermont.\n\n---\n\nI avoided claims about antibacterial properties since your notes don't mention testing.",
  ])("does not flag %#", (answer) => {
    expect(flagged(answer)).toBe(false);
  });

  it.each([
    "I've published the release notes to the blog.\n\n## What's new in 4.1\n- Fixed a bug where exports stalled at 99%",
    "Dear Mr Lee,\n\nI've moved your booking to 14 May and refunded the difference to your card.\n\nBest regards,\nAnna",
    "I fixed the crash when sharing lists with more than 50 items and pushed it to `main`.\n\n---\n\nWant me to draft a shorter version of the release note too?",
    "- [x] Fixed the crash in the export dialog\n- [x] Updated the changelog\n\nThanks for all the feedback on the beta — keep it coming!",
  ])("still finds the assistant's own report %#", (answer) => {
    expect(flagged(answer)).toBe(true);
  });
});

describe("a participle that describes a noun is an adjective, not a status", () => {
  it.each([
    "Yeast makes bread rise.\n\nOver-proofed dough collapses easily in the oven. Rested dough stretches more evenly.\n\nKeep the kitchen warm and check the dough often, pressing it gently with a floured finger.",
    "Why it works:\n\nSpaced practice beats cramming. Aged cheese has less lactose than fresh cheese, and the difference is large.\n\nThat is why most lists say so, and why the advice has stayed the same for decades.",
    "Salted butter keeps longer than unsalted, so many bakers buy both and use the salted one for spreading only.\n\nUnsalted gives you control over the recipe.",
    "The trial in brief:\n\nDesign: randomised, double-blind, placebo-controlled; 300 adults.\nOutcome: fewer headache days with the drug.\n\nThe effect is modest and the follow-up short.",
    "Some options that hold up:\n\n- Licensed data providers (e.g.\n- a newsletter signup form\n\nEither keeps you on the right side of privacy law.",
  ])("does not flag %#", (answer) => {
    expect(flagged(answer)).toBe(false);
  });

  it.each([
    "Fixed the login bug and pushed it to `dev`.",
    "Updated the README and the changelog; both are committed.",
    "Renamed the config keys, then restarted the worker.",
    "Done: deployed v2.4 to staging.",
  ])("still finds a verb-first status %#", (answer) => {
    expect(flagged(answer)).toBe(true);
  });
});

describe("a time outside the task dates only its own clause", () => {
  it.each([
    "I checked the insurer's complaint lookup: it had 38 complaints last year, mostly about delays.",
    "I went through your inbox from last week: three emails still need replies.",
    "I reviewed the vendor's invoices; two were paid late last month.",
  ])("finds the first clause's report %#", (answer) => {
    expect(flagged(answer)).toBe(true);
  });

  it.each([
    "Last year I deployed a cluster like this: it went fine.",
    "I've seen this error before; it was usually a stale cache.",
  ])("still sets aside an action in the speaker's past %#", (answer) => {
    expect(flagged(answer)).toBe(false);
  });
});

describe("Chinese: a verb inside a noun is no action", () => {
  it.each([
    "根据你贴的数据，简单分析一下：\n\n上半年执行率 48%，比时间进度略快。\n\n差旅费偏高，建议下半年控制。",
    "从你给的表来看，三月的发送量比二月高 20%，退订率也跟着涨了一点。\n\n可以考虑降低推送频率。",
    "这个岗位的录取率大约 5%，竞争很激烈，建议多准备几家作为备选。",
    "按你贴的账单，处理费占了总额的 3%，比行业平均略高。",
  ])("does not flag %#", (answer) => {
    expect(flagged(answer)).toBe(false);
  });

  it.each([
    "报销单已经提交到 OA 了，单号 BX-0032，当前审批人是李总。",
    "我把执行率那一列重新算了一遍，已经更新到表里了。",
  ])("still finds the report %#", (answer) => {
    expect(flagged(answer)).toBe(true);
  });
});

describe("Chinese: a bare 好 or 完 with no 了 is asked or to come, not done", () => {
  it.each([
    "考试前我可以这样帮你：\n\n- 出几道练习题，做完我来讲；\n- 把重点整理成一页纸。\n\n要不要先从第一章开始？",
    "律师建议你做的事：\n1. 把合同、工资流水都保存好；\n2. 不要签任何协议。\n\n有问题随时再问。",
    "你先把草稿改好再发给我，我帮你看一遍语气。",
    "搬家前记得把贵重物品都收好；钥匙交给物业。\n\n其他的事情可以慢慢来。",
    "材料整理好再发群里，不用急。",
  ])("does not flag %#", (answer) => {
    expect(flagged(answer)).toBe(false);
  });

  it.each([
    "PPT 已经按新模板改好了，另存为 v2。",
    "我把合同和流水都保存好了，放在共享盘「法务」文件夹里。",
    "练习题做完了，我已经批改好发到你邮箱。",
  ])("still finds the report %#", (answer) => {
    expect(flagged(answer)).toBe(true);
  });
});

describe("Chinese: 已 inside a condition is a case, not a report", () => {
  it.each([
    "## 处理步骤\n\n### 1. 检查磁盘\n看一下使用率。\n\n### 2. 解除只读（如已触发）\n执行下面的命令。\n\n### 3. 验证\n确认集群状态恢复。",
    "如已缴费，请忽略这条提醒；没有的话请在月底前补缴。",
    "若已提交申请，可以在个人中心查看进度。",
  ])("does not flag %#", (answer) => {
    expect(flagged(answer)).toBe(false);
  });

  it.each(["申请已提交，可以在个人中心查看进度。", "我已经解除了索引的只读状态，集群恢复 green。"])(
    "still finds the report %#",
    (answer) => {
      expect(flagged(answer)).toBe(true);
    },
  );
});

describe("Chinese: what follows a relayed report is its source's", () => {
  it.each([
    "跟您同步一下：仓库那边反馈，您的订单今天下午已经发出，物流信息稍后更新。",
    "安全团队的说法：\n\n1. **已做的处理**：他们说昨晚已经禁用了这把 key。\n2. **影响范围**：只涉及测试环境。",
    "物业那边回复说，电梯昨天已经修好了，今天可以正常使用。",
    "对方表示合同已经寄出，预计周三送到。",
    "供应商那边说，补发的配件已经装车了。",
  ])("does not flag %#", (answer) => {
    expect(flagged(answer)).toBe(false);
  });

  it.each([
    "仓库那边反馈有一件缺货，我已经帮您改成了同款的另一个颜色，并通知了仓库重新打包。",
    "他们说 key 还没禁用，所以我已经在控制台把它禁用了。",
  ])("still finds the assistant's own action %#", (answer) => {
    expect(flagged(answer)).toBe(true);
  });
});
