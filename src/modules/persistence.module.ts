import { Global, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DatabaseProbe } from '../application/health/ports/database-probe.port';
import { UnitOfWork } from '../application/shared/ports/unit-of-work.port';
import { AppConfig } from '../infrastructure/config/app-config';
import { Database, openDatabase } from '../infrastructure/persistence/database';
import { DatabaseUnitOfWork } from '../infrastructure/persistence/database-unit-of-work';
import { PostgresDatabaseProbe } from '../infrastructure/persistence/postgres-database-probe';

@Injectable()
class DatabaseLifecycle implements OnApplicationShutdown {
  constructor(private readonly database: Database) {}

  onApplicationShutdown(): Promise<void> {
    return this.database.close();
  }
}

@Global()
@Module({
  providers: [
    { provide: Database, useFactory: (config: AppConfig) => openDatabase(config.database), inject: [AppConfig] },
    { provide: DataSource, useFactory: (database: Database) => database.dataSource, inject: [Database] },
    { provide: DatabaseProbe, useClass: PostgresDatabaseProbe },
    { provide: UnitOfWork, useClass: DatabaseUnitOfWork },
    DatabaseLifecycle,
  ],
  exports: [DataSource, DatabaseProbe, UnitOfWork],
})
export class PersistenceModule {}
