import { getDataSourceToken, getEntityManagerToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { UserRepository } from '../../src/application/identity/ports/user-repository.port';
import { FleetBus } from '../../src/application/shared/ports/fleet-bus.port';
import { PostgresFleetBus } from '../../src/infrastructure/events/postgres-fleet-bus';
import { openDatabase } from '../../src/infrastructure/persistence/database';
import { inTransaction } from '../../src/infrastructure/persistence/sql';
import { useTestApp } from '../support/test-app';
import { usingPostgresServer } from '../support/test-database';
import { aNewUser } from '../factories/users';

/** The app's database comes from @nestjs/typeorm's TypeOrmModule, and every adapter runs on it. */
describe(`the app's DataSource on ${usingPostgresServer ? 'PostgreSQL' : 'PGlite'}`, () => {
  const sut = useTestApp();

  it('is the one TypeOrmModule provides, under the token adapters inject', () => {
    expect(getDataSourceToken()).toBe(DataSource);
    const provided = sut.app.get<DataSource>(getDataSourceToken(), { each: true });
    expect(provided).toHaveLength(1);
    const [dataSource] = provided;
    expect(dataSource.isInitialized).toBe(true);
    // Nothing but TypeOrmModule provides an EntityManager: the one of the DataSource it made.
    expect(sut.app.get(getEntityManagerToken())).toBe(dataSource.manager);
  });

  it('is what the repositories run on: their statements join a transaction opened on it', async () => {
    const dataSource = sut.app.get<DataSource>(getDataSourceToken());
    const users = sut.app.get(UserRepository);
    const rolledBack = new Error('rolled back');
    const email = 'joined@example.com';
    await expect(
      inTransaction(dataSource, async () => {
        const user = await users.create(aNewUser({ email }));
        await expect(users.findById(user.id)).resolves.toMatchObject({ email });
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    await expect(users.findByEmail(email)).resolves.toBeNull();
  });

  it('is destroyed when the app closes, after the fleet bus, with what it ran on: the database opens again from here', async () => {
    const dataSource = sut.app.get<DataSource>(getDataSourceToken());
    const bus = sut.app.get(FleetBus);
    const destroyed = jest.spyOn(dataSource, 'destroy');
    // On a server the bus has a connection of its own, and may send on the DataSource until closed.
    const busClosed = bus instanceof PostgresFleetBus ? jest.spyOn(bus, 'close') : undefined;
    await sut.close();
    expect(destroyed).toHaveBeenCalledTimes(1);
    expect(dataSource.isInitialized).toBe(false);
    if (busClosed) expect(busClosed.mock.invocationCallOrder[0]).toBeLessThan(destroyed.mock.invocationCallOrder[0]);
    // On PGlite only a closed instance and a released folder let another opener in.
    const reopened = await openDatabase(sut.db.settings);
    await reopened.destroy();
  });
});
