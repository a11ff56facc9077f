import { fromPromise } from "xstate";
import type { ExecutorResult } from "../domain/index.js";
import type {
  FinishRunInput,
  FinishRunOutput,
  LedgerWriteInput,
  LedgerWriteOutput,
  OpenRunInput,
  SampleInput,
  SampleOutcome,
  ToolResultsInput,
  ToolResultsOutput,
  Verdict,
  VerifyInput,
} from "../machines/protocol.js";
import { runMachine } from "../machines/run.machine.js";
import { toolBatchMachine } from "../machines/toolBatch.machine.js";
import { type ExecuteToolInput, toolCallMachine } from "../machines/toolCall.machine.js";
import type { runOperations } from "./runActors.js";

export type RunOperations = ReturnType<typeof runOperations>;

/**
 * The run machine with its actors, provided once per runtime: each actor finds its run's
 * operations by the run id in its input (`machine.provide` per run costs more than a step).
 */
export function provideRunMachine(operationsOf: (runId: string) => RunOperations) {
  const executeTool = fromPromise<ExecutorResult, ExecuteToolInput>(({ input, signal }) =>
    operationsOf(input.runId).executeTool(input, signal),
  );
  return runMachine.provide({
    actors: {
      openRun: fromPromise<LedgerWriteOutput, OpenRunInput>(({ input }) => operationsOf(input.runId).openRun(input)),
      sampleModel: fromPromise<SampleOutcome, SampleInput>(({ input, signal }) =>
        operationsOf(input.runId).sampleModel(input, signal),
      ),
      appendLedger: fromPromise<LedgerWriteOutput, LedgerWriteInput>(({ input }) =>
        operationsOf(input.runId).appendLedger(input),
      ),
      recordToolResults: fromPromise<ToolResultsOutput, ToolResultsInput>(({ input }) =>
        operationsOf(input.runId).recordToolResults(input),
      ),
      verifyAnswer: fromPromise<Verdict, VerifyInput>(({ input }) => operationsOf(input.runId).verifyAnswer(input)),
      finishRun: fromPromise<FinishRunOutput, FinishRunInput>(({ input }) =>
        operationsOf(input.runId).finishRun(input),
      ),
      toolBatch: toolBatchMachine.provide({
        actors: { toolCall: toolCallMachine.provide({ actors: { executeTool } }) },
      }),
    },
  });
}
