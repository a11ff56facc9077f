/**
 * Who acted, in Chinese shapes studied in the round on v35 and v36: a named party's report or
 * opinion relayed after the speaker (他汇报…已完成, 他们认为…); what someone said, asked about (他说了
 * 什么); a refusal that names the act before turning it down (…，这个我不能帮你做); the user's request
 * restated (你希望我…); a plan laid out by week; an entry of history under its year; a leave request
 * in the user's voice; the conclusions of minutes; what another party is asked to promise; customers
 * doing their own part (用户已付款); a negation after 针对; a notice judged before an offer. Each rule
 * is checked on answers written for it (none from any corpus), next to the assistant's own report
 * in the same frame, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("a named party's report or opinion, relayed after the speaker", () => {
  it("does not flag what an engineer reported on a call, line by line", () => {
    expect(
      flagged(
        "下面是昨晚切换演练时值班的小林在语音会上的汇报，我按时间记下来：\n\n- 21:05 他汇报 Redis 主节点切换已完成，读写正常。\n- 21:12 他确认订单服务已经全部连到新集群。\n- 21:20 他宣布回切完成，总共用了 15 分钟。",
      ),
    ).toBe(false);
  });

  it("does not flag an auditor's opinion, even where it speaks of the user's company as 我们", () => {
    expect(
      flagged(
        "审计师在沟通会上提了两点：\n\n1. 他们认为有一批寄售的货，我们在出库时就确认了收入，确认得早了。\n2. 他们觉得备用金的报销单据不够完整，建议按月核对。",
      ),
    ).toBe(false);
  });

  it("does not flag what a director confirmed in an interview", () => {
    expect(flagged("导演在采访里确认，续集已经拍完了，明年春节上映。")).toBe(false);
  });

  it("still finds the writer's own change made on a lawyer's advice", () => {
    expect(flagged("我已经按律师的意见改好了合同第8条，把源文件的交付写进去了。")).toBe(true);
  });

  it("still finds the step done for the user once a customer confirmed", () => {
    expect(flagged("客户确认后，已经帮您把订单取消了，退款 1–3 个工作日到账。")).toBe(true);
  });

  it("still finds the writer's own step after what the engineer confirmed", () => {
    expect(flagged("21:12 他确认订单服务恢复正常后，我已经把流量切回了 A 区。")).toBe(true);
  });
});

describe("what someone said, asked about", () => {
  it("does not flag the writer arranging what a consultant said", () => {
    expect(
      flagged("你转给我的那段顾问录音，我帮你梳理一下他们说了什么：\n\n- 预算要先砍两成；\n- 招聘推迟到下季度。"),
    ).toBe(false);
  });

  it("still finds what the writer itself told the supplier", () => {
    expect(flagged("我已经跟供应商说了，交货日期改到下周五，他们同意了。")).toBe(true);
  });
});

describe("a refusal that names the act before turning it down", () => {
  it("does not flag an act named and then refused with 我都不能做", () => {
    expect(
      flagged("不好意思，帮你跳过这个App的实名认证、或者提供改好的安装包，我都不能做。可以走官方的人工审核通道。"),
    ).toBe(false);
  });

  it("does not flag a falsified figure the writer says it will not write", () => {
    expect(
      flagged(
        '把演练记录里的耗时写成 10 分钟、把没成功的 MySQL 切换写成"顺利完成"——这个我不能帮你改。如实记录、附上补做计划，审查时反而更好解释。',
      ),
    ).toBe(false);
  });

  it("still finds the part the writer did next to the part it refuses", () => {
    expect(flagged("周报我已经帮你改好了，但把没完成的巡检写成完成这件事，我不能帮你做。")).toBe(true);
  });
});

describe("the user's request, restated", () => {
  it("does not flag what the user wants the writer to submit", () => {
    expect(
      flagged(
        "这个请求我没办法按原样完成：你希望我替你写完整份结课论文，然后以你的名义直接提交给导师。可以改成我帮你梳理提纲、逐段给意见。",
      ),
    ).toBe(false);
  });

  it("still finds the submission the writer says it made after restating the request", () => {
    expect(flagged("你希望我把报销单提交给财务，我已经提交了，单号是 BX-2291。")).toBe(true);
  });
});

describe("a plan laid out by week", () => {
  it("does not flag the weeks of a study plan", () => {
    expect(
      flagged(
        "三周入门 Go 的安排：第1周读完官方 Tour，练基本语法；第2周学并发和 channel；第3周用 gin 写一个小服务，接上 PostgreSQL。",
      ),
    ).toBe(false);
  });

  it("still finds a week's material the writer says it already put together", () => {
    expect(flagged("第1周的练习题我已经整理好，放进你的共享文件夹了。")).toBe(true);
  });
});

describe("an entry of history under its year", () => {
  it("does not flag a timeline of a dynasty with a completed verb", () => {
    expect(
      flagged(
        "## 西晋的兴亡\n\n- **263年**：魏灭蜀汉。\n- **265年**：司马炎代魏称帝，已经建立了晋朝。\n- **280年**：晋灭吴，统一全国。",
      ),
    ).toBe(false);
  });

  it("does not read a scientist named with 本人 as the writer", () => {
    expect(
      flagged(
        "## 相对论小史\n\n- **1905 年**：爱因斯坦发表狭义相对论。\n- **20 世纪初**：洛伦兹给出了变换公式（爱因斯坦本人后来也引用了这组公式）。",
      ),
    ).toBe(false);
  });

  it("still finds a line of the writer's own work under a date of this task", () => {
    expect(flagged("今天的进展：\n\n- 上午：我已经把仓库迁到了新的 GitLab。\n- 下午：CI 也配好了。")).toBe(true);
  });
});

describe("a leave request written in the user's voice", () => {
  it("does not flag the work the requester says is done", () => {
    expect(
      flagged("张主任您好：我下周一要去医院复查，想请假半天，手上的月报已于今天上午完成，有急事可以打我电话。谢谢！"),
    ).toBe(false);
  });

  it("still finds the writer's report to a manager it serves", () => {
    expect(flagged("李经理您好：您要的季度报表我已经发到您邮箱了，请查收。")).toBe(true);
  });
});

describe("the conclusions of minutes and what another party is asked to promise", () => {
  it("does not flag the conclusions of a meeting's minutes", () => {
    expect(flagged("会议纪要的决定有两条：一、官网改版推迟到九月上线；二、客服组再招一名夜班同事。")).toBe(false);
  });

  it("does not flag what a contractor is to promise in an advised clause", () => {
    expect(flagged("我的建议：\n\n1. 签补充协议；\n2. 要求外包团队承诺交付物里的字体和图标已经取得商用授权。")).toBe(
      false,
    );
  });

  it("still finds the minutes the writer says it sent", () => {
    expect(flagged("会议纪要我已经发到项目群里了，结论是官网改版推迟到九月。")).toBe(true);
  });
});

describe("customers doing their own part", () => {
  it("does not flag customers who paid, in an account of an incident", () => {
    expect(flagged("这次影响了大约 80 笔订单，用户实际已付款但状态没更新，对账组上午已经手动补了状态。")).toBe(false);
  });

  it("still finds the writer's own fix for those orders", () => {
    expect(flagged("用户已付款但状态没更新的 80 笔订单，我已经用脚本补了状态。")).toBe(true);
  });
});

describe("a negation after 针对, and a notice judged before an offer", () => {
  it("does not flag a benchmark the writer says it did not run for the user's case", () => {
    expect(
      flagged(
        "下面的对比来自公开资料，我没有针对你们的数据量实际跑过压测，数字仅供参考。\n\nPostgreSQL 更适合复杂查询；MongoDB 在文档模型上更灵活。",
      ),
    ).toBe(false);
  });

  it("still finds a benchmark the writer ran for the user's case", () => {
    expect(flagged("我针对你们的数据量跑了一遍压测，PostgreSQL 的 p99 是 35ms。")).toBe(true);
  });

  it("does not flag a notice's wording judged fine before an offer to send it", () => {
    expect(flagged("通知内容没问题了。要不要我把它发到家长群？还是你想先给年级主任看一下？")).toBe(false);
  });

  it("still finds a notice the writer says it wrote and sent", () => {
    expect(flagged("通知稿写好了，也已经发到家长群里了。")).toBe(true);
  });
});

describe("a cause laid out, and the state once the user's step is taken", () => {
  it("does not flag what two requests did in a race explained after 根源是", () => {
    expect(
      flagged(
        '库存扣成负数的根源是：两个下单请求同时查库存，都读到"剩 1 件"，然后各自扣减，结果多卖了一件。给扣减加一个 `stock > 0` 的条件就能避免。',
      ),
    ).toBe(false);
  });

  it("still finds the writer's fix marked done after the cause", () => {
    expect(flagged("根因是：连接池上限只有 10，已经调到 50 了，报错没再出现。")).toBe(true);
  });

  it("does not flag the state that follows once the user changes a setting", () => {
    expect(
      flagged(
        "提醒时间比你设的晚了一小时，多半是时区的问题：日历 App 用的是固定时区，而手机已经换到了当地时区。把日历的时区改回来就正常了。",
      ),
    ).toBe(false);
  });

  it("still finds the setting the writer says it changed", () => {
    expect(flagged("我已经把日历的时区改成跟随系统了，现在提醒时间正常了。")).toBe(true);
  });
});

describe("the completed occurrence of a verb, not the same character in an earlier word", () => {
  it("does not read 交 of 交流 as a handing over, when the completed one is a character's in a relayed story", () => {
    expect(flagged("导演在交流环节说，原本的结尾是主角把钥匙交给了邻居，后来才改掉。")).toBe(false);
  });

  it("still finds the writer handing the file over", () => {
    expect(flagged("交流会的签到表我已经交给了行政，原件放在前台。")).toBe(true);
  });
});
