import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `api_keys.bootstrap`: true on the admin key a first start creates, null on every other key. Its unique index
 * admits one such row, so instances starting together on one database create one key between them.
 */
export class BootstrapKeyMarker1764200000000 implements MigrationInterface {
  name = 'BootstrapKeyMarker1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE api_keys ADD COLUMN bootstrap boolean NULL');
    await queryRunner.query('CREATE UNIQUE INDEX "IDX_api_keys_bootstrap" ON api_keys (bootstrap)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "IDX_api_keys_bootstrap"');
    await queryRunner.query('ALTER TABLE api_keys DROP COLUMN bootstrap');
  }
}
