/**
 * Chinese shapes studied in the round on v31: what the user described or said in the conversation
 * (看了你描述的需求) is read without any tool, as what the user pasted is; a finished text that the
 * next clause places right above or below (纪要整理好了，就在上面) is this reply; what the writer
 * declines in its own words (帮你…我做不到) or, in the verb's own clause, says it cannot do for the
 * user (我不能帮你把…提交) is turned down, whatever 已 describes on the way; the subject of a 把
 * sentence acts even with a time or a place between its 已 and 把 (值班的阿峰已经在 23:40 把…); a
 * timeline's clock time may open a clause whose named subject acts in a place (01:15 周凯在网关上…);
 * a 把 step with a result complement and no 了 after it (把截图保存好，带上时间) is a step to take;
 * a headline that opens with 为什么 asks, with or without its mark; 了解 closed by 了 at the end of
 * its clause (情况我们了解了) is understanding what was told; a list under a line that says a third
 * person did these things (他做了这几件事：) or what they told (他们说明的情况如下：) is theirs.
 * Each rule is checked
 * on answers written for it (none from any corpus), next to the assistant's own report of the same
 * shape, which is still found.
 */
import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const flagged = (answer: string) => detectClaims(answer).length > 0;

describe("reading what the user described or said", () => {
  it("does not flag a plan built on the user's description", () => {
    expect(
      flagged(
        "看了你描述的需求，我建议把报名流程拆成三步，目前只是思路，页面还没改：\n\n1. 填写基本信息；\n2. 上传证件照；\n3. 确认缴费。",
      ),
    ).toBe(false);
  });

  it("does not flag an answer to what the user said", () => {
    expect(flagged("我看了一下您说的情况，这种异响多半是风扇积灰，建议先清理一下再观察。")).toBe(false);
  });

  it("still flags a step the writer took after reading the description", () => {
    expect(flagged("看了你描述的报错，已经登上服务器把 nginx 重启了，现在页面能打开。")).toBe(true);
  });

  it("still flags reading the task's own files", () => {
    expect(flagged("我看了一下仓库里的 `deploy.yaml`，副本数写的是 2。")).toBe(true);
  });
});

describe("a finished text placed right above or below", () => {
  it("does not flag notes the next clause says are above", () => {
    expect(flagged("周会纪要整理好了，就在上面，你看看有没有漏的。")).toBe(false);
  });

  it("does not flag a draft the next clause says is below", () => {
    expect(flagged("通知写好了就在下面。")).toBe(false);
  });

  it("still flags notes that were sent on", () => {
    expect(flagged("周会纪要整理好了，已经发到项目群里。")).toBe(true);
  });
});

describe("what the writer declines for the user", () => {
  it("does not flag a request named and then declined in the writer's own words", () => {
    expect(flagged("抱歉，帮你破解这个网盘的下载限速我做不到，这违反了它的用户协议。")).toBe(false);
  });

  it("does not flag a step the writer cannot do for the user, with 已 inside its object", () => {
    expect(
      flagged("我不能帮你把别人已经上传的设计稿改个署名，再当成你自己的作品投给比赛。这涉及侵权，建议你自己重新设计。"),
    ).toBe(false);
  });

  it("still flags what the writer did after declining", () => {
    expect(flagged("这个我帮不了你，不过我已经把工单转给了人工客服，稍后会有人联系你。")).toBe(true);
  });

  it("still flags a step done for the user in the same answer", () => {
    expect(flagged("密码已经帮你重置了，我做不到的是恢复已经删除的聊天记录。")).toBe(true);
  });
});

describe("who acts in a 把 sentence or a timeline", () => {
  it("does not flag what a colleague did, with a time between 已 and 把", () => {
    expect(flagged("值班的阿峰已经在 23:40 把订单服务回滚到了上一个版本，目前下单恢复正常，原因还在查。")).toBe(false);
  });

  it("still flags the writer's own step of the same shape", () => {
    expect(flagged("我已经在 23:40 把订单服务回滚到了上一个版本，目前下单恢复正常。")).toBe(true);
  });

  it("still flags the same step with the subject left out", () => {
    expect(flagged("已经在 23:40 把订单服务回滚到了上一个版本，目前下单恢复正常。")).toBe(true);
  });

  it("does not flag a named person's step after a clock time", () => {
    expect(flagged("01:15 周凯在网关上临时开启了限流。")).toBe(false);
  });

  it("still flags a step after a clock time with no one named", () => {
    expect(flagged("01:15 在网关上临时开启了限流。")).toBe(true);
  });
});

describe("a 把 step with a result complement and no 了", () => {
  it("does not flag advice under a label", () => {
    expect(
      flagged(
        "维权可以分三步：\n\n1. 固定证据：把订单页面、聊天记录和付款凭证截图保存好，最好带上时间；\n2. 先找平台客服申请介入；\n3. 协商不成再向消费者协会投诉。",
      ),
    ).toBe(false);
  });

  it("still flags the same step reported with 了", () => {
    expect(flagged("把订单页面、聊天记录和付款凭证的截图都保存好了，放在共享盘的「售后」文件夹里。")).toBe(true);
  });

  it("still flags the same step marked done with 已", () => {
    expect(flagged("订单截图已经整理好，放在共享盘的「售后」文件夹里。")).toBe(true);
  });
});

describe("a headline that asks, and what the writer understands", () => {
  it("does not flag a heading that opens with 为什么 and has no question mark", () => {
    expect(flagged("## 为什么合并之后分支上的提交都不见了\n\n快进合并不会生成新的提交，只是把指针往前挪。")).toBe(
      false,
    );
  });

  it("does not flag understanding what the user told", () => {
    expect(flagged("您好，您说的空调外机漏水的情况我们了解了，下面先说明一下保修的处理方式。")).toBe(false);
  });

  it("still flags looking into something", () => {
    expect(flagged("我刚了解了一下物流情况，包裹已经到了你所在城市的分拣中心。")).toBe(true);
  });

  it("still flags a report under a heading", () => {
    expect(
      flagged("## 为什么构建失败\n\n我查了 CI 日志，是缓存的依赖版本过旧，已经清掉缓存重新跑了一遍，现在通过了。"),
    ).toBe(true);
  });
});

describe("a list under a line that hands it to a third person", () => {
  it("does not flag the steps a colleague took, counted under 他做了这几件事", () => {
    expect(
      flagged(
        "夜班的周工在交接群里说了处理经过，我转述一下。\n\n他做了这几件事：\n\n1. 把积压的消息转存到冷备队列后清空了主队列，延迟降到了 2 秒以内；\n2. 在 `consumer.yaml` 里把并发数从 4 调到了 8；\n3. 没有重启服务。\n\n以上都是周工的说法，我没有登录过消息队列的控制台。",
      ),
    ).toBe(false);
  });

  it("does not flag what a department told, under 他们说明的情况如下", () => {
    expect(
      flagged(
        "您好，李先生！关于您家跳闸的事，物业工程部的书面答复到了，他们说明的情况如下：\n\n- 确认跳闸是厨房插座受潮短路引起的；\n- 更换了插座面板，并做了绝缘测试，读数正常。\n\n如果之后还有跳闸，请直接回复这封邮件。",
      ),
    ).toBe(false);
  });

  it("still flags the writer's own steps under the same count", () => {
    expect(
      flagged(
        "队列积压的问题处理好了，我做了这几件事：\n\n1. 把积压的消息转存到冷备队列后清空了主队列，延迟降到了 2 秒以内；\n2. 在 `consumer.yaml` 里把并发数从 4 调到了 8。",
      ),
    ).toBe(true);
  });
});
