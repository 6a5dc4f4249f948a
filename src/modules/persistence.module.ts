import { type BeforeApplicationShutdown, Global, Injectable, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DatabaseProbe } from '../application/health/ports/database-probe.port';
import { UnitOfWork } from '../application/shared/ports/unit-of-work.port';
import { AppConfig, type DatabaseSettings } from '../infrastructure/config/app-config';
import { dataSourceOptions, openDatabase } from '../infrastructure/persistence/database';
import { DatabaseUnitOfWork } from '../infrastructure/persistence/database-unit-of-work';
import { PostgresDatabaseProbe } from '../infrastructure/persistence/postgres-database-probe';
import { FleetBus } from '../application/shared/ports/fleet-bus.port';
import { InProcessFleetBus } from '../infrastructure/events/in-process-fleet-bus';
import { PostgresFleetBus } from '../infrastructure/events/postgres-fleet-bus';
import { PolicyCounters } from '../application/policy/ports/policy-counters.port';
import { DatabasePolicyCounters } from '../infrastructure/persistence/repositories/database-policy-counters';

/** What TypeOrmModule's useFactory returns, and so what it hands dataSourceFactory: TypeORM's options and the settings they came from. */
type DatabaseModuleOptions = ReturnType<typeof databaseModuleOptions>;

function databaseModuleOptions(settings: DatabaseSettings) {
  return {
    ...dataSourceOptions(settings),
    // What openDatabase needs besides TypeORM's options: the data folder, DATABASE_PREPARED_STATEMENTS.
    settings,
    // One attempt, not TypeOrmModule's ten 3 s apart: a start that cannot open its database
    // stops with the reason (the data folder in use, a server refusing), as before.
    toRetry: () => false,
  };
}

/**
 * Closes the fleet bus's own connection before the database goes. Not in onApplicationShutdown:
 * TypeOrmModule destroys the DataSource in its own, which Nest calls before this global
 * module's. What the bus is given to send after this (an in-process worker's last cycle) still
 * goes out, on the DataSource.
 */
@Injectable()
class FleetBusLifecycle implements BeforeApplicationShutdown {
  constructor(private readonly bus: FleetBus) {}

  async beforeApplicationShutdown(): Promise<void> {
    if (this.bus instanceof PostgresFleetBus) await this.bus.close();
  }
}

/** The fleet's bus: NOTIFY/LISTEN on a PostgreSQL server, the process itself on the embedded database. */
function fleetBus(config: AppConfig, dataSource: DataSource): FleetBus {
  return config.database.kind === 'server'
    ? new PostgresFleetBus(config.database.listenUrl ?? config.database.url, dataSource)
    : new InProcessFleetBus();
}

/**
 * The database. TypeOrmModule provides the DataSource, under TypeORM's `DataSource` class (the
 * token adapters inject), and destroys it at shutdown once the feature modules' hooks have run;
 * openDatabase opens it, runs the migrations, and ties PGlite and the data folder's lock to it.
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => databaseModuleOptions(config.database),
      dataSourceFactory: (options) => {
        const { settings, ...typeOrm } = options as DatabaseModuleOptions;
        return openDatabase(settings, typeOrm);
      },
    }),
  ],
  providers: [
    { provide: FleetBus, useFactory: fleetBus, inject: [AppConfig, DataSource] },
    { provide: DatabaseProbe, useClass: PostgresDatabaseProbe },
    { provide: UnitOfWork, useClass: DatabaseUnitOfWork },
    { provide: PolicyCounters, useClass: DatabasePolicyCounters },
    FleetBusLifecycle,
  ],
  exports: [DatabaseProbe, UnitOfWork, FleetBus, PolicyCounters],
})
export class PersistenceModule {}
