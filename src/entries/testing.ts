/** `agentloop/testing`: the scripted provider and the cassette format (shared/spec/cassette.md). */
export { Cassette, CassetteModelStep, CassetteTool } from "../domain/cassette.js";
export { CassetteError, type LoadedCase, loadCassettes } from "../host/eval/loadCassettes.js";
export {
  type CaseResult,
  type EvalOptions,
  type EvalReport,
  type EvalSummary,
  runEval,
} from "../host/eval/runEval.js";
export { type RunEnding, runEndings, type StandInRunScript, standInResult, standInRun } from "../host/standInRun.js";
export { scriptedProvider } from "../services/providers/scripted.js";
export { fixtureTool } from "../services/tools/fixtureTool.js";
