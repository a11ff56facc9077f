/** The names of a run's spans (one tree per run, rooted at `agent.run`). */
export const SPAN = {
  run: "agent.run",
  open: "agent.ledger.open",
  provider: "agent.provider.call",
  tool: "agent.tool.call",
  append: "agent.ledger.append",
  toolResults: "agent.ledger.tool_results",
  finish: "agent.ledger.finish",
  delivery: "agent.delivery.send",
} as const;
