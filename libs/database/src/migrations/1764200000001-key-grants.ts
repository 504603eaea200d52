import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `api_keys.grant_key_id`: on a key that an account's own admin key created, the operator-made key above it,
 * whose rate limits it shares; null on keys an operator made.
 */
export class KeyGrants1764200000001 implements MigrationInterface {
  name = 'KeyGrants1764200000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE api_keys ADD COLUMN grant_key_id integer NULL REFERENCES api_keys (id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE api_keys DROP COLUMN grant_key_id');
  }
}
