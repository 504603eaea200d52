import { MigrationInterface, QueryRunner, Table, TableForeignKey } from 'typeorm';

/** Batch and asynchronous edit tasks and their items. Portable: SQLite and PostgreSQL. */
export class EditTasks1764000000000 implements MigrationInterface {
  name = 'EditTasks1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.driver.options.type === 'postgres';
    const timestamp = postgres ? 'timestamptz' : 'datetime';
    await queryRunner.createTable(
      new Table({
        name: 'edit_tasks',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'account_id', type: 'integer' },
          { name: 'kind', type: 'varchar', length: '8' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'request', type: 'text' },
          { name: 'error', type: 'text', isNullable: true },
          { name: 'expanded', type: 'boolean', default: false },
          { name: 'webhook_url', type: 'text', isNullable: true },
          { name: 'webhook_state', type: 'varchar', length: '8', default: "'none'" },
          { name: 'created_at', type: timestamp, default: 'CURRENT_TIMESTAMP' },
          { name: 'finished_at', type: timestamp, isNullable: true },
        ],
        indices: [{ name: 'IDX_edit_tasks_status', columnNames: ['status'] }],
      }),
    );
    await queryRunner.createForeignKey(
      'edit_tasks',
      new TableForeignKey({
        columnNames: ['account_id'],
        referencedTableName: 'accounts',
        referencedColumnNames: ['id'],
        onDelete: 'CASCADE',
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'edit_task_items',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'task_id', type: 'integer' },
          { name: 'seq', type: 'integer' },
          { name: 'input', type: 'text' },
          { name: 'sub_path', type: 'text', default: "''" },
          { name: 'status', type: 'varchar', length: '8', default: "'PENDING'" },
          { name: 'attempts', type: 'integer', default: 0 },
          { name: 'input_info', type: 'text', isNullable: true },
          { name: 'output_info', type: 'text', isNullable: true },
          { name: 'error', type: 'text', isNullable: true },
          { name: 'finished_at', type: timestamp, isNullable: true },
        ],
        indices: [
          { name: 'IDX_edit_task_items_task_seq', columnNames: ['task_id', 'seq'], isUnique: true },
          { name: 'IDX_edit_task_items_task_status', columnNames: ['task_id', 'status'] },
        ],
      }),
    );
    await queryRunner.createForeignKey(
      'edit_task_items',
      new TableForeignKey({
        columnNames: ['task_id'],
        referencedTableName: 'edit_tasks',
        referencedColumnNames: ['id'],
        onDelete: 'CASCADE',
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('edit_task_items');
    await queryRunner.dropTable('edit_tasks');
  }
}
