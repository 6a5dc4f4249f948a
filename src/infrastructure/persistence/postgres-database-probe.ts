import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DatabaseProbe } from '../../application/health/ports/database-probe.port';

@Injectable()
export class PostgresDatabaseProbe extends DatabaseProbe {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }
}
