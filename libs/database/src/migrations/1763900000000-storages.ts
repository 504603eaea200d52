import { MigrationInterface, QueryRunner, Table, TableForeignKey } from 'typeorm';

/** Storage connections, one name per account. Portable: SQLite and PostgreSQL. */
export class Storages1763900000000 implements MigrationInterface {
  name = 'Storages1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const timestamp = queryRunner.connection.driver.options.type === 'postgres' ? 'timestamptz' : 'datetime';
    await queryRunner.createTable(
      new Table({
        name: 'storages',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'account_id', type: 'integer' },
          { name: 'name', type: 'varchar', length: '50' },
          { name: 'type', type: 'varchar', length: '16' },
          { name: 'parameters', type: 'text' },
          { name: 'secret', type: 'text', isNullable: true },
          { name: 'created_at', type: timestamp, default: 'CURRENT_TIMESTAMP' },
          { name: 'updated_at', type: timestamp, default: 'CURRENT_TIMESTAMP' },
        ],
        indices: [{ name: 'IDX_storages_account_name', columnNames: ['account_id', 'name'], isUnique: true }],
      }),
    );
    await queryRunner.createForeignKey(
      'storages',
      new TableForeignKey({
        columnNames: ['account_id'],
        referencedTableName: 'accounts',
        referencedColumnNames: ['id'],
        onDelete: 'CASCADE',
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('storages');
  }
}
