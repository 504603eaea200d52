import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `edit_tasks.item_total`: how many items a task's input names when that is known as the task is created (a list
 * of files or URLs, one file), so that the task shows its total at once; null for a folder, counted as it is
 * listed. Tasks created before it have null and show the count of their recorded items, as they did.
 */
export class TaskItemTotal1764400000000 implements MigrationInterface {
  name = 'TaskItemTotal1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE edit_tasks ADD COLUMN item_total integer NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE edit_tasks DROP COLUMN item_total');
  }
}
