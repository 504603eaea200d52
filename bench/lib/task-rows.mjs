// Finished tasks written straight into the service's database (PostgreSQL, or the SQLite file of embedded mode),
// for the memory measurement of the soak suite: 50,000 results in a second, without 50,000 edits. The rows are
// what the task runner would leave (test/helpers/task-rows.ts writes the same kind through TypeORM).
import Database from 'better-sqlite3';
import pg from 'pg';

const INPUT = { ext: 'jpg', mps: 0.48, mime: 'image/jpeg', format: 'jpeg', width: 800, height: 600 };
const OUTPUT = { ext: 'webp', mps: 0.0064, mime: 'image/webp', format: 'webp', width: 80, height: 80 };

const quote = (text) => `'${text.replaceAll("'", "''")}'`;

/**
 * A connection to the service's database: `databaseUrl` (PostgreSQL) or the SQLite file under `dataDir`.
 * `query(sql)` returns the rows; values are written into the SQL by this module only (numbers, constants).
 */
export async function openDatabase({ databaseUrl, sqliteFile }) {
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    return { postgres: true, query: async (sql) => (await client.query(sql)).rows, close: () => client.end() };
  }
  const db = new Database(sqliteFile);
  db.pragma('busy_timeout = 5000');
  return {
    postgres: false,
    query: async (sql) => {
      const statement = db.prepare(sql);
      // a statement that returns rows (SELECT, or INSERT ... RETURNING) is read, any other is run
      if (statement.reader) return statement.all();
      statement.run();
      return [];
    },
    close: async () => db.close(),
  };
}

/** Inserts a DONE batch task of `count` results for the account named `account`; returns its id. */
export async function insertFinishedTask(db, account, count) {
  const [{ id: accountId }] = await db.query(`SELECT id FROM accounts WHERE name = ${quote(account)}`);
  const request = JSON.stringify({ input: 'storage://bench/in/', operations: { resizing: { width: 80 } } });
  const now = db.postgres ? 'now()' : "strftime('%Y-%m-%d %H:%M:%f', 'now')";
  const [task] = await db.query(
    `INSERT INTO edit_tasks (account_id, kind, status, request, error, expanded, item_total, webhook_state, finished_at)
     VALUES (${accountId}, 'batch', 'DONE', ${quote(request)}, NULL, ${db.postgres ? 'true' : 1}, ${count}, 'none', ${now})
     RETURNING id`,
  );
  const input = `'https://images.example.com/folder/' || s || '.jpg'`;
  const output = `${quote(JSON.stringify(OUTPUT).slice(0, -1))} || ',"tmp_url":"https://files.example.com/tmp/' || s || '.webp"}'`;
  const series = db.postgres
    ? `generate_series(0, ${count - 1}) AS s`
    : `(WITH RECURSIVE n(s) AS (SELECT 0 UNION ALL SELECT s + 1 FROM n WHERE s < ${count - 1}) SELECT s FROM n)`;
  await db.query(
    `INSERT INTO edit_task_items (task_id, seq, input, sub_path, status, attempts, input_info, output_info, error, finished_at)
     SELECT ${task.id}, s, ${input}, '', 'DONE', 1, ${quote(JSON.stringify(INPUT))}, ${output}, NULL, ${now} FROM ${series}`,
  );
  return task.id;
}
