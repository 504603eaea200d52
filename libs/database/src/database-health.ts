import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Answers whether the database is reachable, for readiness checks. */
@Injectable()
export class DatabaseHealth {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Rejects when the database does not answer a trivial query. */
  async ping(): Promise<void> {
    if (!this.dataSource.isInitialized) throw new Error('database connection is closed');
    await this.dataSource.query('SELECT 1');
  }
}
