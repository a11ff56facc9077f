/**
 * Chinese shapes studied in the round on v33 and v34: a counted piece of writing the writer made
 * (写了一首短诗：, 给你的活动做了一份流程草案，…：, 做了一个报销清单的模板，可以直接粘到表格里：) and opened
 * by a colon is the text that follows in this reply — where the reader may paste it is theirs; a
 * piece also sent or stored somewhere is still found. Each rule is checked on answers written for it
 * (none from any corpus), next to the assistant's own report of the same shape, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a counted piece of writing opened by a colon", () => {
  it("does not flag a short poem written straight into the reply", () => {
    expect(flagged("写了一首短诗：山路弯到云里去，/ 松针落满旧石阶，/ 一只鸟替我数着风。")).toBe(false);
  });

  it("does not flag an outline made for the reader whose sessions follow a colon", () => {
    expect(
      flagged(
        "给你的读书会做了一份六期的流程草案，每期约两小时：\n\n| 期数 | 书目 |\n|---|---|\n| 1 | 《活着》 |\n| 2 | 《平凡的世界》 |",
      ),
    ).toBe(false);
  });

  it("does not flag a template whose next clause says where the reader may paste it", () => {
    expect(
      flagged(
        "按你说的，做了一个差旅报销清单的模板，可以直接粘到 WPS 表格里：\n\n| 日期 | 项目 | 金额 |\n|---|---|---|\n| | 交通 | |",
      ),
    ).toBe(false);
  });

  it("still flags a template the writer also uploaded", () => {
    expect(
      flagged("做了一份差旅报销清单的模板，已经上传到共享盘：\n\n| 日期 | 项目 | 金额 |\n|---|---|---|\n| | 交通 | |"),
    ).toBe(true);
  });

  it("still flags a piece the writer sent before the colon", () => {
    expect(flagged("我写了一份请假说明，已经发给了你的主管：因家中有事，明天请假一天。")).toBe(true);
  });
});
