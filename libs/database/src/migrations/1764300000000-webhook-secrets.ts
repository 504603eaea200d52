import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/** The webhook signing secret of each account (encrypted). Portable: SQLite and PostgreSQL. */
export class WebhookSecrets1764300000000 implements MigrationInterface {
  name = 'WebhookSecrets1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const timestamp = queryRunner.connection.driver.options.type === 'postgres' ? 'timestamptz' : 'datetime';
    await queryRunner.createTable(
      new Table({
        name: 'webhook_secrets',
        columns: [
          { name: 'account_id', type: 'integer', isPrimary: true },
          { name: 'secret', type: 'text' },
          { name: 'prefix', type: 'varchar', length: '16' },
          { name: 'shown', type: 'boolean', default: false },
          { name: 'created_at', type: timestamp },
        ],
        foreignKeys: [
          {
            columnNames: ['account_id'],
            referencedTableName: 'accounts',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhook_secrets');
  }
}
