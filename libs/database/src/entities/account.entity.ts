import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The owner of keys, storages and tasks; one account never sees another's. */
@Entity({ name: 'accounts' })
export class AccountEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 64, unique: true })
  name: string;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;
}

/** Name of the account that exists from the first migration on. */
export const DEFAULT_ACCOUNT_NAME = 'default';

/** Account names: 1 to 64 lower-case letters, digits, "_" or "-", starting with a letter or digit. */
export const ACCOUNT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const ACCOUNT_NAME_RULE = 'account must be 1 to 64 lower-case letters, digits, "_" or "-"';
