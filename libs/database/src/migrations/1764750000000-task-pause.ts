import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `edit_tasks.paused_at` and `pause_reason`: a task whose output store stopped answering is PAUSED (docs/batch.md,
 * "When the output store is down") since `paused_at`, for the reason its body shows; both null otherwise.
 */
export class TaskPause1764750000000 implements MigrationInterface {
  name = 'TaskPause1764750000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const timestamp = queryRunner.connection.options.type === 'postgres' ? 'timestamptz' : 'datetime';
    await queryRunner.query(`ALTER TABLE edit_tasks ADD COLUMN paused_at ${timestamp} NULL`);
    await queryRunner.query('ALTER TABLE edit_tasks ADD COLUMN pause_reason text NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE edit_tasks DROP COLUMN pause_reason');
    await queryRunner.query('ALTER TABLE edit_tasks DROP COLUMN paused_at');
  }
}
