import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DatabaseProbe } from '../../application/health/ports/database-probe.port';
import { run, sql } from './sql';

@Injectable()
export class PostgresDatabaseProbe extends DatabaseProbe {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async ping(): Promise<void> {
    await run(this.dataSource, sql`SELECT 1`);
  }
}
