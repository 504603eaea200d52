import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Claims of a run (TaskItemRows.startItem, TaskRows.claimWebhook): `edit_task_items.claimed_until` and
 * `edit_tasks.webhook_claimed_until`, milliseconds since the epoch until which a run holds the item or the webhook's
 * delivery (renewed while it runs), so that a job added twice (the reconciler, a stalled job) never runs the same
 * work beside itself. Null: not held.
 */
export class RunClaims1764700000000 implements MigrationInterface {
  name = 'RunClaims1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE edit_task_items ADD COLUMN claimed_until bigint NULL');
    await queryRunner.query('ALTER TABLE edit_tasks ADD COLUMN webhook_claimed_until bigint NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE edit_tasks DROP COLUMN webhook_claimed_until');
    await queryRunner.query('ALTER TABLE edit_task_items DROP COLUMN claimed_until');
  }
}
