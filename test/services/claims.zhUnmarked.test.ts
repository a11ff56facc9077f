import { describe, expect, it } from "vitest";
import { detectClaims } from "../../src/services/claims.js";

const claims = (answer: string) => detectClaims(answer).length > 0;

describe("Chinese claims without 已/了 markers", () => {
  it("takes a clause that ends in a completion status after its object as a claim", () => {
    expect(claims("API key 轮换完成，新 key 写进 Vault。")).toBe(true);
    expect(claims("核对无误，订单金额与银行回单一致。")).toBe(true);
  });

  it("takes a result complement without 了 at the end of a clause as a claim", () => {
    expect(claims("Issue 开好：#1902，label 打的 bug。")).toBe(true);
    expect(claims("缺的单元测试补上，覆盖率到 78%。")).toBe(true);
  });

  it("does not take a completion status inside a rule, a condition or a time to come as a claim", () => {
    expect(claims("重启后生效。")).toBe(false);
    expect(claims("如果数据库备份完成，就可以开始迁移。")).toBe(false);
    expect(claims("预计 23:00 前恢复。")).toBe(false);
  });

  it("takes a topic followed by a bare verb that ends its clause or reaches a destination as a claim", () => {
    expect(claims("旧的 v1 优惠券接口下线，网关路由删除。")).toBe(true);
    expect(claims("文案修改合入 `release/6.2`，CI 通过。")).toBe(true);
    expect(claims("行程单打包发您邮箱。")).toBe(true);
  });

  it("does not take a verb-first, 把 or capability clause with a bare verb as a claim", () => {
    expect(claims("把出差照片上传到相册。")).toBe(false);
    expect(claims("通知销售团队停止在旧系统录入。")).toBe(false);
    expect(claims("该功能支持一键发送。")).toBe(false);
  });

  it("does not take a verbal noun at the end of a clause as a claim", () => {
    expect(claims("这是行政刚发的通知。")).toBe(false);
    expect(claims("今晚 22:00 开始升级。")).toBe(false);
  });

  it("does not take a bare verb after a temporal clause as a claim", () => {
    expect(claims("候补订单兑现后，12306 短信通知。")).toBe(false);
  });

  it("does not take a bare verb in a question or a future day as a claim", () => {
    expect(claims("确认一下：是把 dev 合并到 main，还是反过来？")).toBe(false);
    expect(claims("周五接口下线，请各调用方提前迁移。")).toBe(false);
  });

  it("takes a header that reports the result of a lookup as a claim", () => {
    expect(claims("查询结果：用户近 90 天共 17 笔订单。")).toBe(true);
    expect(claims("压测结论：单机能扛 1,200 QPS。")).toBe(true);
  });

  it("does not take a line that opens with a plan's header as a claim", () => {
    expect(claims("本周计划：上线新版收银台，下线 v1 优惠券接口。")).toBe(false);
  });

  it("does not take a list under a plan's intro as claims", () => {
    expect(claims("接下来：\n- 修复登录页空指针\n- 推送到 `origin/dev`")).toBe(false);
  });

  it("takes the list under a summary of changes as claims", () => {
    expect(claims("改动摘要：\n- 修复登录页空指针\n- 删除废弃的 `legacyAuth.ts`")).toBe(true);
  });

  it("does not take done rows owned by someone else in a table as claims", () => {
    const table = "| 任务 | 负责人 | 状态 |\n|---|---|---|\n| 备份数据库 | 运维-小周 | 已完成 |";
    expect(claims(table)).toBe(false);
  });

  it("takes done rows owned by the assistant in a table as claims", () => {
    const table = "| 任务 | 负责人 | 状态 |\n|---|---|---|\n| 备份数据库 | 我 | 已完成 |";
    expect(claims(table)).toBe(true);
  });

  it("does not take a status quoted after 写的是 as a claim", () => {
    expect(claims("文档里写的是：部署完成。")).toBe(false);
  });
});

describe("Chinese claims: verbs, subjects and nouns", () => {
  it("takes a verb of the table that holds its own complement as completed", () => {
    expect(claims("Terraform plan 看过，只有 2 个 resource 变更。")).toBe(true);
  });

  it("does not take a self-completing verb followed by a requirement as a claim", () => {
    expect(claims("跑通这个 demo 需要 Node 18 以上。")).toBe(false);
  });

  it("takes inline code followed by 过 after the assistant as a claim", () => {
    expect(claims("我这边 `kubectl describe` 过那个 Pod，Events 里是内存不足。")).toBe(true);
  });

  it("takes 知会 as a verb and not 会 as the future", () => {
    expect(claims("这件事我知会了部门负责人。")).toBe(true);
  });

  it("takes 抄送给了 as a completed delivery", () => {
    expect(claims("邮件抄送给了法务 Lily 和财务 Kevin。")).toBe(true);
  });

  it("does not take a system after 在 as the subject", () => {
    expect(claims("我在合同管理系统登记了续签任务。")).toBe(true);
  });

  it("does not take a completion complement inside a noun as a claim", () => {
    expect(claims("提交成功率是一个指标。")).toBe(false);
  });

  it("does not take 都 before an English state word as a completion marker", () => {
    expect(claims("deploy 完成的标志是所有 Pod 都 Ready 且 readiness probe 通过。")).toBe(false);
  });

  it("does not take an action the user did, named after the topic, as a claim", () => {
    expect(claims("退款申请您已经提交了，状态是「审核中」。")).toBe(false);
  });

  it("does not take what follows an agent introduced by 已由 as the assistant's", () => {
    expect(claims("该工单已由二线技术支持接手，后续进展他们通过邮件同步给你。")).toBe(false);
  });

  it("does not take a studio or a company as the assistant", () => {
    expect(claims("欧阳娜娜的工作室已经发了声明。")).toBe(false);
  });

  it("does not take a colleague whose name the segmenter splits as the assistant when 把 follows", () => {
    expect(claims("看起来同事钟离秋已经在企业微信上把报销单转交给你了。")).toBe(false);
  });

  it("takes an action after a consequence of what the user pasted as a claim", () => {
    expect(claims("用户截图里看不出问题，所以去 Kibana 搜了 traceId `7f3a9c`。")).toBe(true);
  });

  it("does not take copy written for the user after a 文案 intro as a claim", () => {
    expect(claims("小红书风格文案：\n\n✨ 搞定！终于把家里的网络升级到千兆啦～")).toBe(false);
  });
});

describe("Chinese claims: rules from the fifth tuning round", () => {
  it("takes a separable verb split by 了 and its object's modifiers as a claim", () => {
    expect(claims("已经在德邦下了上门取件单，师傅明天来取。")).toBe(true);
    expect(claims("下了顺丰取件单，单号 SF1428865023117。")).toBe(true);
    expect(claims("要不要我帮你下了这单？")).toBe(false);
  });

  it("does not take 会员 as someone else acting", () => {
    expect(claims("会员已续费。")).toBe(true);
  });

  it("takes the assistant's action after an automatic-renewal topic as its own, and a bot's action as not", () => {
    expect(claims("那几个自动续费我已经都退订了。")).toBe(true);
    expect(claims("系统自动开了一个 PR。")).toBe(false);
  });

  it("keeps a marked statement whose clause ends in a noun and 了", () => {
    expect(claims("发票已经开好并发到您的邮箱了。")).toBe(true);
    expect(claims("适合已经推送到远端的分支")).toBe(false);
  });

  it("reads document nouns ending in 说明 as nouns, not as 'which shows'", () => {
    expect(claims("发布说明我翻成了日语和韩语。")).toBe(true);
    expect(claims("日志说明部署结束了")).toBe(false);
  });

  it("takes a state the task left behind a short topic after 现在 as a claim, not a general one", () => {
    expect(claims("现在 crontab 里只剩两条任务：每天 2 点备份。")).toBe(true);
    expect(claims("好了，页面已经能打开了。")).toBe(true);
    expect(claims("现在很多人只剩下一个选择。")).toBe(false);
  });
});

describe("Chinese claims: rules from the sixth development set", () => {
  it("takes a sentence that opens with a bare verb and gives an id only a done action has as a claim", () => {
    expect(claims("续费阿里云 ECS 一年，到期日 2025-06-30，确认号 88120473。")).toBe(true);
    expect(claims("冻结账户 u_55821，冻结期 72 小时。")).toBe(false);
  });

  it("does not take a result header followed by a pending result as a claim", () => {
    expect(claims("处理结果：待定。退款要等仓库确认收到退货。")).toBe(false);
  });

  it("does not take a definition list entry that opens with a code term as a claim", () => {
    expect(claims("`--hard`：三者都重置，工作区改动会丢")).toBe(false);
  });

  it("takes a code term entry under a summary of changes as a claim", () => {
    expect(claims("改动摘要：\n- `src/api/client.test.ts`：新增 4 个用例")).toBe(true);
  });

  it("does not take the user's own 本人 as the assistant", () => {
    expect(claims("这个账户的异常登录是用户本人换了新设备，风控误报。")).toBe(false);
  });

  it("does not take what the user forwarded, a list of points to update or a long steps header as claims", () => {
    expect(claims("根据你转过来的物业回复，郑凯师傅明早 9 点上门。")).toBe(false);
    expect(claims("「On-call 手册」需要更新的点：\n- 新增支付故障 SOP\n- 值班表换成 7 月版")).toBe(false);
    expect(claims("rebase 冲突的处理步骤：改完文件 → `git add` → `git rebase --continue`。")).toBe(false);
  });
});
