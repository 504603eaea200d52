import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { describeDatabase } from './data-source';

/** Answers whether the database is reachable, for readiness checks, and which database it is. */
@Injectable()
export class DatabaseHealth {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Rejects when the database does not answer a trivial query. */
  async ping(): Promise<void> {
    if (!this.dataSource.isInitialized) throw new Error('database connection is closed');
    await this.dataSource.query('SELECT 1');
  }

  /** Which database this process uses, for an operator (no credentials): `PostgreSQL database "x" on host:port`. */
  describe(): string {
    const { options } = this.dataSource;
    const where = options.type === 'postgres' ? 'PostgreSQL ' : 'the SQLite database ';
    return `${where}${describeDatabase(options)}`;
  }
}
