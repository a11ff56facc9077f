/** `agentloop/machines`: the pure statecharts, for the Stately visualizer and model-based tests. */
export { deliveryMachine } from "../machines/delivery.machine.js";
export { type RunContext, runMachine } from "../machines/run.machine.js";
export { type ToolBatchContext, toolBatchMachine } from "../machines/toolBatch.machine.js";
export { type ToolCallContext, toolCallMachine } from "../machines/toolCall.machine.js";
