import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tasks whose webhook waits for delivery, as a partial index (both databases have them): the reconciler
 * (TaskReconciler; docs/operations.md, "Backups") looks for ended tasks whose webhook job Redis lost. The index holds
 * the tasks with a webhook that have not ended (`pending` from the start) and the ended ones whose webhook waits: its
 * size follows the running tasks, however many have ended.
 */
export class WebhookPendingIndex1764600000000 implements MigrationInterface {
  name = 'WebhookPendingIndex1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_edit_tasks_webhook_pending" ON edit_tasks (id) WHERE webhook_state = 'pending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "IDX_edit_tasks_webhook_pending"');
  }
}
