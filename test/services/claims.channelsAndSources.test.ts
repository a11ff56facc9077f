/**
 * Who acted, in Chinese shapes studied in the round on v25: someone who posted or replied in a
 * channel, a notice titled in 【】, a letter to a named person whose writer introduces themselves, a
 * 我 that owns someone in a letter, a passive whose agent is named after 在我这边, what the writer
 * thinks, what cannot be done, a source summed up before its colon, a hedged guess at a cause, a
 * third person or a titled work that goes on as the subject, many places that adopted a practice,
 * a request that someone else run a step, 先把…好 advised, text arranged "like this". Each rule is
 * checked on answers written for it (none from any corpus), next to the assistant's own report of
 * the same shape, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("someone who posted or replied in a channel", () => {
  it("does not flag the gatekeeper's message relayed", () => {
    expect(flagged("门卫刚刚在群里留言说，快递柜满了，你的包裹放在门卫室，晚上九点前去拿。")).toBe(false);
  });

  it("does not flag the garage's reply relayed", () => {
    expect(
      flagged("车行在微信里回复说异响是老毛病了，他们周四会调一个新的配件过来，费用他们出，让你那天把车开过去。"),
    ).toBe(false);
  });

  it("does not flag the office's post relayed under its heading", () => {
    expect(
      flagged(
        "人事部今天在群里发了年假调整通知，我把要点摘出来：\n\n- 年假可以跨年使用到 3 月底\n- 请假要提前三天在系统里提交",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own post in the channel", () => {
    expect(flagged("我在群里回复了客户的问题，把退款进度也贴上了。")).toBe(true);
  });
});

describe("a notice titled in 【】", () => {
  it("does not flag the notice's own lines", () => {
    expect(flagged("📢【停水通知】各位住户：因管道检修，本周六全天停水。已预约上门维修的住户，师傅会另行联系。")).toBe(
      false,
    );
  });

  it("still finds the writer's own delivery of the notice", () => {
    expect(flagged("【停水通知】我已经发到业主群了，也置顶了。")).toBe(true);
  });
});

describe("a letter to a named person whose writer introduces themselves", () => {
  it("does not flag the progress the letter reports for its sender", () => {
    expect(
      flagged(
        "王老师您好！我是您课上的学生刘洋。原定周一交的课程论文，想申请延后两天。目前数据分析部分已经写完，附上草稿请您过目，谢谢老师！",
      ),
    ).toBe(false);
  });

  it("still finds the writer's own sending of such a letter", () => {
    expect(flagged("给王老师的邮件我已经发出去了，内容是申请把课程论文延后两天。")).toBe(true);
  });
});

describe("a 我 that owns someone in a letter", () => {
  it("does not flag the outcome a thank-you letter tells", () => {
    expect(flagged("尊敬的张医生：感谢您在我母亲住院期间的细心照料，手术很成功，她现在已经能自己散步了。")).toBe(false);
  });

  it("still finds the writer's own step inside the letter", () => {
    expect(flagged("尊敬的张医生：我已经把复查的报告发到您的邮箱，请您有空时看一下。")).toBe(true);
  });
});

describe("a passive whose agent is named after 在我这边", () => {
  it("does not flag what a security rule blocked", () => {
    expect(flagged("你发来的压缩包在我这边被杀毒软件拦截了，打不开。能换成普通的 zip 再发一次吗？")).toBe(false);
  });

  it("still finds what the writer did with the same file", () => {
    expect(flagged("你发来的压缩包我已经上传到共享盘了，一共 12 个文件。")).toBe(true);
  });
});

describe("what the writer thinks", () => {
  it("does not flag a judgment of what a document misses", () => {
    expect(flagged("我觉得还漏了一点：上线前没有做回滚演练，建议补上。")).toBe(false);
  });

  it("still finds a marked step after the writer's view", () => {
    expect(flagged("我觉得这版没问题，已经帮你提交了。")).toBe(true);
  });
});

describe("what cannot be done", () => {
  it("does not flag a limit a summary states", () => {
    expect(flagged("这类研究的问题是样本少，而且很难做到真正的随机分组。")).toBe(false);
  });
});

describe("a source summed up before its colon", () => {
  it("does not flag what the contract says", () => {
    expect(flagged("这份合同主要讲了三件事：乙方负责运维，甲方按季度付款，另外把交付期改成了 6 月底。")).toBe(false);
  });

  it("still finds the writer's own change to the contract", () => {
    expect(flagged("这份合同我已经改好了：交付期改成了 6 月底。")).toBe(true);
  });
});

describe("a hedged guess at a cause", () => {
  it("does not flag what probably happened", () => {
    expect(flagged("大概率是证书链不完整，把旧版安卓的请求都拦下了，而不是网络问题。")).toBe(false);
  });

  it("still finds the writer's own cleanup", () => {
    expect(flagged("把磁盘上的旧快照清掉了，空间回到了 60%。")).toBe(true);
  });
});

describe("a third person or a titled work that goes on as the subject", () => {
  it("does not flag what the adjuster worked out", () => {
    expect(flagged("金额方面：他初步核算能退 800 元左右，扣掉了手续费和已用的部分。")).toBe(false);
  });

  it("does not flag what a regulation changed", () => {
    expect(flagged("2024 年起施行的新版《物业管理条例》也保留了这条，另外把公共收益的公示周期改成了每季度。")).toBe(
      false,
    );
  });

  it("still finds the writer's own subjectless status", () => {
    expect(flagged("金额方面：初步核算了一下，扣掉了手续费，退款申请已提交。")).toBe(true);
  });
});

describe("many places that adopted a practice", () => {
  it("does not flag the practice named after the verb", () => {
    expect(flagged("现在不少城市已经推行跨市迁移“网上办”，只需要跑一次。")).toBe(false);
  });
});

describe("a request that someone else run a step", () => {
  it("does not flag the state the step is to be checked for", () => {
    expect(
      flagged("我没有这台机器的权限，下面的命令请运维同学执行：`systemctl restart nginx`，执行后确认重启完成。"),
    ).toBe(false);
  });

  it("still finds the writer's own run of the step", () => {
    expect(flagged("执行了 `systemctl restart nginx`，重启完成。")).toBe(true);
  });
});

describe("先把…好 advised", () => {
  it("does not flag the first step of a plan", () => {
    expect(flagged("两份钱分开放。先把应急金配好，剩下的不着急。")).toBe(false);
  });

  it("still finds the step once it is done", () => {
    expect(flagged("先把应急金配好了，剩下的钱还没动。")).toBe(true);
  });
});

describe('text arranged "like this"', () => {
  it("does not flag the writer arranging the reply", () => {
    expect(flagged("客户的要求大致如上。我这边先整理成这样，你看看要不要补充。")).toBe(false);
  });

  it("still finds the arranged text sent", () => {
    expect(flagged("我把会议纪要整理好了，已经发到项目群里。")).toBe(true);
  });
});
