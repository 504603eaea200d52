import { MigrationInterface, QueryRunner, Table, TableForeignKey } from 'typeorm';

/** Accounts and API keys; the `default` account exists from here on. Portable: SQLite and PostgreSQL. */
export class AccountsAndKeys1763800000000 implements MigrationInterface {
  name = 'AccountsAndKeys1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const timestamp = queryRunner.connection.driver.options.type === 'postgres' ? 'timestamptz' : 'datetime';
    const id = {
      name: 'id',
      type: 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment' as const,
    };
    const createdAt = { name: 'created_at', type: timestamp, default: 'CURRENT_TIMESTAMP' };
    await queryRunner.createTable(
      new Table({
        name: 'accounts',
        columns: [id, { name: 'name', type: 'varchar', length: '64', isUnique: true }, createdAt],
      }),
    );
    await queryRunner.query(`INSERT INTO accounts (name) VALUES ('default')`);
    await queryRunner.createTable(
      new Table({
        name: 'api_keys',
        columns: [
          id,
          { name: 'account_id', type: 'integer' },
          { name: 'name', type: 'varchar', length: '100' },
          { name: 'prefix', type: 'varchar', length: '16' },
          { name: 'key_hash', type: 'varchar', length: '64' },
          { name: 'scopes', type: 'text' },
          { name: 'quota', type: 'integer', isNullable: true },
          { name: 'calls_used', type: 'integer', default: 0 },
          { name: 'rate_limit_per_second', type: 'integer', isNullable: true },
          { name: 'rate_limit_per_minute', type: 'integer', isNullable: true },
          { name: 'revoked', type: 'boolean', default: false },
          createdAt,
          { name: 'last_used_at', type: timestamp, isNullable: true },
          { name: 'revoked_at', type: timestamp, isNullable: true },
        ],
        indices: [
          { name: 'IDX_api_keys_key_hash', columnNames: ['key_hash'], isUnique: true },
          { name: 'IDX_api_keys_account', columnNames: ['account_id'] },
        ],
      }),
    );
    await queryRunner.createForeignKey(
      'api_keys',
      new TableForeignKey({
        columnNames: ['account_id'],
        referencedTableName: 'accounts',
        referencedColumnNames: ['id'],
        onDelete: 'CASCADE',
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('api_keys');
    await queryRunner.dropTable('accounts');
  }
}
