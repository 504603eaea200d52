import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair scheduling between accounts (docs/batch.md, "Scheduling"): `edit_tasks.key_id`, the key that created a
 * task (null for older tasks: revoking a key cannot find them, and nothing is charged for them), an index to find
 * an account's running tasks, and `edit_task_items.queued`, whether an item was handed to the queue (with an index
 * for the scheduler's lookups). Items pending
 * when it runs are not marked queued: the next top-up hands them over again, and their deterministic job ids keep
 * one that is still queued from running twice. Plain ALTER TABLE (both databases), as TaskItemTotal: TypeORM's
 * SQLite addColumn rebuilds the table from a cached shape that misses columns added by earlier raw statements.
 */
export class FairScheduling1764500000000 implements MigrationInterface {
  name = 'FairScheduling1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.driver.options.type === 'postgres';
    await queryRunner.query('ALTER TABLE edit_tasks ADD COLUMN key_id integer NULL');
    await queryRunner.query('CREATE INDEX "IDX_edit_tasks_account_status" ON edit_tasks (account_id, status)');
    await queryRunner.query(
      `ALTER TABLE edit_task_items ADD COLUMN queued boolean NOT NULL DEFAULT ${postgres ? 'false' : '0'}`,
    );
    // The scheduler's lookups (a task's items in the queue, the next ones waiting) stay a few index rows however
    // large the task.
    await queryRunner.query(
      'CREATE INDEX "IDX_edit_task_items_task_queue" ON edit_task_items (task_id, status, queued, seq)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "IDX_edit_task_items_task_queue"');
    await queryRunner.query('ALTER TABLE edit_task_items DROP COLUMN queued');
    await queryRunner.query('DROP INDEX "IDX_edit_tasks_account_status"');
    await queryRunner.query('ALTER TABLE edit_tasks DROP COLUMN key_id');
  }
}
