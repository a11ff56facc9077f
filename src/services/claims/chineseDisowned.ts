import type { Attribution } from "./agentContext.js";

/**
 * Chinese: an answer that opens by saying the work is not the writer's but someone's it names
 * (昨晚的切换不是我操作的，是值班的同事处理的; ## 已经有人修了), whose later lines with the subject left out report that
 * person's steps. A line that names the writer (我已经…) is still the writer's. (An answer that says
 * only what it did not touch — 没有改任何代码，跑了一遍测试 — still reports the steps it did take.)
 */

/**
 * The work disowned and handed to someone named (不是我操作的，是…), or said at the top to be done by
 * someone already (## 已经有人修了).
 */
const DONE_BY_OTHER =
  /不是我(?:这边|本人)?(?:亲自)?(?:操作|做|处理|执行|改|弄|动|提交|合并|发|切换|部署)的[，,。]?\s*(?:是|而是|由)|(?:^|\n)\s*(?:#{1,6}\s*|\*\*)?(?:已经|早就)有(?:人|同事|别的同事)(?:修|做|处理|改|提交|合并|解决)(?:好|掉|完)?了/;
/**
 * The handling given to someone else, or the writer set apart from it, in an opening that relays the
 * work: 处理都是值班的老周做的, 处理人都是值班同事, 我当时没有参与, 我这边只是整理, 这两天是小林在改.
 */
const HANDLED_BY_OTHER =
  /(?:处理|操作|排查|改动|修改)(?:人|的人)(?:都|全)?是(?!我)|(?:处理|操作|排查|改动|修改)(?:都|全|全部)?是(?!我)[^，,。；;（(\n]{1,12}?(?:做|处理|操作|改|执行|负责)的|我(?:当时|这边|本人|自己)?(?:并)?(?:没有|没|未)(?:参与|经手|操作|动手)|我(?:这边|这里)?只是(?:整理|汇总|转述|转达|记录|归纳)|是(?!我)[\u4e00-\u9fff]{1,4}在(?:改|处理|操作|跟进|负责)[，,]/;

/** Whether the answer gives its work to someone else in its opening lines. */
export function disownedWork(answer: string): boolean {
  const opening = answer.slice(0, 300);
  return DONE_BY_OTHER.test(opening) || HANDLED_BY_OTHER.test(opening.split("\n")[0] ?? "");
}

/** Who did a step with its subject left out, in an answer that disowns its work. */
export function disownedLine(plain: string): Attribution | undefined {
  if (/[我咱]|(?:帮|替|为)(?:你|您)/.test(plain)) return undefined;
  return { agent: "third party", reason: "an answer that names another as the doer" };
}
