import { Option } from "commander";

/** The ledger every command reads or writes unless `--db` names another: a file in the working directory. */
export const DEFAULT_DB = "./agentloop.db";

/** `--db FILE|URL`, defaulting to DEFAULT_DB: the same option on every command that opens the ledger. */
export const dbOption = (): Option =>
  new Option("--db <file>", "SQLite ledger file or postgres:// URL").default(DEFAULT_DB);
