import { Global, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DatabaseProbe } from '../application/health/ports/database-probe.port';
import { UnitOfWork } from '../application/shared/ports/unit-of-work.port';
import { AppConfig } from '../infrastructure/config/app-config';
import { Database, openDatabase } from '../infrastructure/persistence/database';
import { DatabaseUnitOfWork } from '../infrastructure/persistence/database-unit-of-work';
import { PostgresDatabaseProbe } from '../infrastructure/persistence/postgres-database-probe';
import { FleetBus } from '../application/shared/ports/fleet-bus.port';
import { InProcessFleetBus } from '../infrastructure/events/in-process-fleet-bus';
import { PostgresFleetBus } from '../infrastructure/events/postgres-fleet-bus';

@Injectable()
class DatabaseLifecycle implements OnApplicationShutdown {
  constructor(
    private readonly database: Database,
    private readonly bus: FleetBus,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.bus instanceof PostgresFleetBus) await this.bus.close();
    await this.database.close();
  }
}

/** The fleet's bus: NOTIFY/LISTEN on a PostgreSQL server, the process itself on the embedded database. */
function fleetBus(config: AppConfig, dataSource: DataSource): FleetBus {
  return config.database.kind === 'server'
    ? new PostgresFleetBus(config.database.listenUrl ?? config.database.url, dataSource)
    : new InProcessFleetBus();
}

@Global()
@Module({
  providers: [
    { provide: Database, useFactory: (config: AppConfig) => openDatabase(config.database), inject: [AppConfig] },
    { provide: DataSource, useFactory: (database: Database) => database.dataSource, inject: [Database] },
    { provide: FleetBus, useFactory: fleetBus, inject: [AppConfig, DataSource] },
    { provide: DatabaseProbe, useClass: PostgresDatabaseProbe },
    { provide: UnitOfWork, useClass: DatabaseUnitOfWork },
    DatabaseLifecycle,
  ],
  exports: [DataSource, DatabaseProbe, UnitOfWork, FleetBus],
})
export class PersistenceModule {}
