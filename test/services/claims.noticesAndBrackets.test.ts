/**
 * Chinese shapes studied in the round on v32: a named party that issued a notice, however long its
 * name, with what it says after a colon or after 称 (协会昨天下午发布了关于年检延期的补充通知，要点如下：,
 * 市气象台今天 6 时发布了暴雨蓝色预警，称…) is relayed; a reply named as a noun with 是 (物业的回复是：…)
 * hands the sentence to the one who replied; a status whose brackets name who did it (已回滚（阿强操作的）)
 * is that person's; a marked verb phrase that 的 closes right before a bracket (（已完成网签备案的）) names
 * those who did it; a group of places or bodies that acted on an object, with or without 了 (目前部分城市已经开通 “一网通办”…) is how
 * things stand out there; a text revised in words whose next clause says it stands above or below
 * (邀请函已经…改成了…，全文贴在下面) is this reply; a plan named and then 是 with its first step
 * (我的想法是先帮你…，然后再…) is what the writer means to do; a place in the text (放在下面了) is never the verb. Each rule is checked on answers
 * written for it (none from any corpus), next to the assistant's own report of the same shape, which
 * is still found.
 */
import { describe, expect, it } from "vitest";
import { completedActions, detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a named party's notice relayed", () => {
  it("gives a long-named notice whose points follow a colon to the party that issued it", () => {
    const actions = completedActions(
      "学会今天上午发布了关于 2027 年年会论文截稿延期的公告，主要内容是这样的：\n\n- **截稿**：顺延两周，到 4 月 30 日；\n- **评审**：结果在 6 月公布。",
    );
    expect(actions.map((action) => action.agent)).toEqual(["third party"]);
  });

  it("does not flag a warning whose content follows 称", () => {
    expect(flagged("市气象台今天 6 时发布了暴雨蓝色预警，称午后到夜间全市有大到暴雨，局部有雷电大风。")).toBe(false);
  });

  it("still flags a notice the writer issued", () => {
    expect(flagged("我刚在群里发布了停电检修的通知，要点如下：周六 9 点到 12 点停电。")).toBe(true);
  });
});

describe("a reply named as a noun with 是", () => {
  it("does not flag what the one who replied says was done", () => {
    expect(flagged("物业那边的回复是：楼道的灯已经在周二上午换好了，如果还不亮请再报修。")).toBe(false);
  });

  it("still flags the writer's own step after the relayed reply", () => {
    expect(flagged("物业那边的回复是下周才能换灯。我已经把报修单提交到物业系统了，单号 B-2231。")).toBe(true);
  });
});

describe("who did it, named in brackets", () => {
  it("does not flag a status whose brackets name a colleague", () => {
    expect(
      flagged("交接给你的情况：\n\n**已回滚（阿强操作的）**\n\n新版本的结算服务昨晚出现超时，后续原因还要再查。"),
    ).toBe(false);
  });

  it("does not flag a status whose brackets say who handled it with 由", () => {
    expect(flagged("工单状态：已关闭（由二线支持处理）。")).toBe(false);
  });

  it("still flags a status whose brackets name the writer", () => {
    expect(flagged("**已回滚（我操作的）**\n\n结算服务恢复到了上一个版本。")).toBe(true);
  });

  it("still flags a status whose brackets say something else", () => {
    expect(flagged("配置已修改（改动见下），超时从 30 秒调到了 60 秒。")).toBe(true);
  });
});

describe("a marked phrase closed by 的 before a bracket", () => {
  it("does not flag a condition written as those who have done it", () => {
    expect(flagged("需要带的材料：\n- 身份证原件；\n- 购房合同（已完成网签备案的）；\n- 两张一寸照片。")).toBe(false);
  });

  it("still flags a step the writer marks done next to it", () => {
    expect(flagged("材料清单已发到你的邮箱（含社保证明的样例）。")).toBe(true);
  });
});

describe("a place in the text", () => {
  it("does not flag a text the writer put below", () => {
    expect(flagged("周报我整理好放在下面了，要不要我再发到部门群里？")).toBe(false);
  });

  it("still flags a text the writer sent after putting it below", () => {
    expect(flagged("周报我整理好放在下面了，也已经发到部门群里了。")).toBe(true);
  });
});

describe("a group of places or bodies that acted on something", () => {
  it("does not flag what some cities already offer", () => {
    expect(flagged("目前部分城市已经开通 “一网通办” 线上预约，您可以先在小程序里看看所在城市有没有。")).toBe(false);
  });

  it("still flags a group of the task's things marked done with nothing after the verb", () => {
    expect(flagged("部分门店已经通知了，剩下的我明天上午打电话。")).toBe(true);
  });
});

describe("a text revised and shown above or below", () => {
  it("does not flag a letter reworded and pasted below", () => {
    expect(flagged("邀请函已经按你的意思改成了口语一点的版本，全文贴在下面。需要我再压缩到一屏以内吗？")).toBe(false);
  });

  it("still flags a file changed, whatever is shown above", () => {
    expect(flagged("配置文件已经改成了新的端口，内容在上面。")).toBe(true);
  });

  it("still flags a revised letter that was also sent", () => {
    expect(flagged("邀请函已经改好，也发给了全体嘉宾，全文贴在下面。")).toBe(true);
  });
});

describe("a plan named, then its first step", () => {
  it("does not flag the steps the writer means to take", () => {
    expect(
      flagged(
        "我的思路是先帮你列出两座城市的月均房租和通勤时间对比,然后再按你说的「离公司近、预算内」筛一遍,最后给出两个候选。",
      ),
    ).toBe(false);
  });

  it("still flags a step the writer took, even after such a frame", () => {
    expect(flagged("我的思路是先看了一下日志，发现是连接池满了。")).toBe(true);
  });
});
