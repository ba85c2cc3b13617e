import type { Db } from 'mongodb';

/**
 * The one place the server's kind matters: FerretDB answers `buildInfo` with `ferretdbVersion`.
 * It decides the database guard's concurrency (SQLite admits one writer: src/plugins/database.ts)
 * and whether the event log creates its search indexes (FerretDB reads through none of them, and
 * each insert would update all seven: src/db/event-log/database.ts). Writes do not depend on it.
 */
export async function isFerretDB(db: Db): Promise<boolean> {
  const info = await db.admin().command({ buildInfo: 1 });
  return 'ferretdbVersion' in info;
}
