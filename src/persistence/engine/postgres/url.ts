/**
 * How a PostgreSQL ledger is named, apart from the client: deciding the engine and writing a URL
 * into a message must not load `pg` for a host that only ever opens SQLite files.
 */

export const isPostgresUrl = (database: string): boolean => /^postgres(ql)?:\/\//i.test(database);

/** The URL without its password, for messages and logs. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres://(unparsable URL)";
  }
}
