/**
 * Who acted, in Chinese shapes studied in the round on v27: a named party replying or sending a
 * notice, whose words the sentence relays; someone's opinion given after 的意见是：; a change dated by
 * the release it holds from (6.8.1 起已修复); a state the system no longer lets anyone change. Each
 * rule is checked on answers written for it (none from any corpus), next to the assistant's own report
 * of the same shape, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a named party's reply or notice, relayed", () => {
  it("does not flag what a party replied, opened by a colon", () => {
    expect(flagged("物流公司刚回复：集装箱在天津港查验时被抽中，放行要再等两天，提货时间顺延到周四。")).toBe(false);
  });

  it("does not flag what a party replied, reported with 说", () => {
    expect(flagged("装修队长回复说，瓷砖已经送到小区门口了，下午开始铺客厅，卫生间要等防水试验做完。")).toBe(false);
  });

  it("does not flag the line that introduces a notice a party sent", () => {
    expect(
      flagged(
        "学校教务处昨天发了通知，要点如下：\n\n1. 期末考试提前一周；\n2. 缓考申请截止到本月 20 日。\n\n第一条对你影响最大。",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own reply, opened by a colon", () => {
    expect(flagged("我刚回复了物流公司：同意顺延到周四提货，并把提货单号发给了他们。")).toBe(true);
  });

  it("still finds a notice the writer sent", () => {
    expect(flagged("我已经发了通知，内容如下：周五下午三点全员在三楼会议室开会。")).toBe(true);
  });

  it("still finds a post scheduled by the writer, opened by a colon", () => {
    expect(flagged("活动文案定时发布：周六 09:00，封面用第二张图。")).toBe(true);
  });
});

describe("someone's opinion given after a colon", () => {
  it("does not flag the changes a counsel's opinion asks for", () => {
    expect(
      flagged("财务总监的看法是：第三季度的预算必须砍掉两成，差旅费改成按月审批；她还说年底前不再新增供应商。"),
    ).toBe(false);
  });

  it("still finds the writer's own change after the opinion it follows", () => {
    expect(flagged("按财务总监的意见，我已经把第三季度的预算表砍掉了两成，改好的表在共享盘里。")).toBe(true);
  });
});

describe("a change dated by the release it holds from", () => {
  it("does not flag a fix that holds from a version on", () => {
    expect(flagged("4.2.0 在部分平板上有横屏显示错位的问题，4.2.1 起已修复，更新一下应用就好。")).toBe(false);
  });

  it("still finds a fix the writer made", () => {
    expect(flagged("横屏显示错位的问题我已经修复了，补丁在 4.2.1 的分支上。")).toBe(true);
  });
});

describe("a state the system no longer lets anyone change", () => {
  it("does not flag an order shipped that the system cannot amend", () => {
    expect(flagged("不好意思，包裹已经出库，系统里没法再改配送时间了，建议您联系快递员协商改约。")).toBe(false);
  });

  it("still finds a change the writer made in the system", () => {
    expect(flagged("包裹还没出库，配送时间我已经在系统里改到周六上午了。")).toBe(true);
  });
});
