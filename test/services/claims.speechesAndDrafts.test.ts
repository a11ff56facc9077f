/**
 * Who acted, in Chinese shapes studied in the round on v28: a speech or a toast whose speaker greets
 * the audience and says who they are, so its "I" is the speaker's; a blank left or a wording chosen in
a draft, which acts on the reply's own words; a negation whose verb comes after a place or a party
opened by a coverb (我没有在你们的环境里实测过); a list under a line that says a party replied and the
writer arranges their words (行政的王姐回复了…，我把她的话整理一下：); an error or a redirect a system
answered a failed attempt with (报了 403, 跳转到了登录页); a routine opened by 每 and its measure word
(每批迁完都对一遍). Each rule is checked on answers
 * written for it (none from any corpus), next to the assistant's own report of the same shape, which
 * is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a speech in the voice of the speaker who introduces themselves", () => {
  it("does not flag what the speaker of a toast did", () => {
    expect(
      flagged(
        "各位来宾，大家好！我是新娘的高中同桌。高三那年我替她抄过整整一学期的笔记，她却只记得我借走的那把伞。今天请大家举杯，祝他们幸福美满！",
      ),
    ).toBe(false);
  });

  it("does not flag what the speaker of a farewell speech did", () => {
    expect(
      flagged(
        "亲爱的同事们，下午好！我是运营部的小周。这三年我跟着大家搬过两次办公室、熬过四次大促，今天是我在这里的最后一天，谢谢每一位。",
      ),
    ).toBe(false);
  });

  it("still finds the writer's report that a speech was sent, with the speech quoted after it", () => {
    expect(
      flagged(
        "致辞稿我已经发到你邮箱了，开头是这样的：\n\n各位来宾，大家好！我是新娘的高中同桌。今天请大家举杯，祝他们幸福美满！",
      ),
    ).toBe(true);
  });

  it("still finds the writer's own report that greets the user without saying who is speaking", () => {
    expect(flagged("大家好！我已经把会议室订好了，周四下午三点，3 号会议室。")).toBe(true);
  });
});

describe("a blank left or a wording chosen in a draft", () => {
  it("does not flag a place in the draft the writer left blank", () => {
    expect(
      flagged(
        "招聘启事初稿：\n\n**前端工程师（上海）**\n- 负责小程序和管理后台的开发\n- 两年以上 Vue 或 React 经验\n\n到岗时间我先空着了，等你们和部门确认后再填。",
      ),
    ).toBe(false);
  });

  it("does not flag a wording the writer chose in the draft", () => {
    expect(
      flagged(
        "**2025 年储能行业展望：需求分化，龙头受益**\n\n- 海外大储订单仍在增长；\n- 国内工商业储能受电价政策影响较大。\n\n出货量我先用了区间的说法，定稿前请换成你们的测算值。",
      ),
    ).toBe(false);
  });

  it("still finds a wording the writer changed and then sent on", () => {
    expect(flagged("开头那段我换成了更委婉的说法，已经发给客户了。")).toBe(true);
  });

  it("still finds a field the writer filled in a system", () => {
    expect(flagged("到岗时间我在招聘系统里填好了，定为 3 月 1 日。")).toBe(true);
  });
});

describe("a negation before a place or a party opened by a coverb", () => {
  it("does not flag what the writer says it has not tried in the user's environment", () => {
    expect(
      flagged("三种方案都能满足需求，区别主要在运维成本上。以上是根据官方文档整理的，我没有在你们的集群里实测过。"),
    ).toBe(false);
  });

  it("does not flag a script the writer has not run on the user's database", () => {
    expect(flagged("我没有在你们的生产库上跑过这个脚本，所以只能给思路。")).toBe(false);
  });

  it("still finds what the writer tried in the user's environment", () => {
    expect(flagged("我已经在你们的集群里实测过了，三种方案都能跑通。")).toBe(true);
  });
});

describe("a party's reply arranged by the writer into a list", () => {
  it("does not flag what the list under a party's reply says was done", () => {
    expect(
      flagged(
        "体育馆的李师傅回复了场地的事，我把他的话整理一下：\n\n- 周末两天的场地都已经订出去了，只剩工作日晚上；\n- 下个月起改成在小程序里预约。\n\n要不要先约工作日晚上？",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own reply listed under its line", () => {
    expect(
      flagged("我回复了物业的李师傅，要点如下：\n\n- 已经把车牌号登记到排队名单里；\n- 约好周五下午去签合同。"),
    ).toBe(true);
  });
});

describe("an error or a redirect that a failed attempt met", () => {
  it("does not flag an error code raised when the writer could not get in", () => {
    expect(flagged("我这边克隆你们的仓库报了 401，没有读权限，没法往下查。")).toBe(false);
  });

  it("does not flag a link that redirected to a login page", () => {
    expect(flagged("你发的共享链接我打不开，跳转到了公司的统一登录页。")).toBe(false);
  });

  it("still finds the run the writer reports before the error it raised", () => {
    expect(flagged("我这边跑了一遍单元测试，报了 500。")).toBe(true);
  });
});

describe("a routine opened by 每 and its measure word", () => {
  it("does not flag the check a plan repeats after each batch", () => {
    expect(flagged("每批导完都校验一遍条数和总额，对不上就回滚。")).toBe(false);
  });

  it("still finds what the writer did to each machine", () => {
    expect(flagged("每台机器我都已经重启过了，服务都恢复了。")).toBe(true);
  });
});
