import { FleetBus, PayloadTooLargeError } from '../../src/application/shared/ports/fleet-bus.port';
import { InProcessFleetBus } from '../../src/infrastructure/events/in-process-fleet-bus';
import { PostgresFleetBus } from '../../src/infrastructure/events/postgres-fleet-bus';
import { countStatements } from '../support/statement-counter';
import { usingPostgresServer } from '../support/test-database';
import { useOpenDatabase } from '../support/persistence';

const describeOnPostgres = usingPostgresServer ? describe : describe.skip;

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('InProcessFleetBus', () => {
  it('delivers to this process’s subscribers, later and not during publish', async () => {
    const bus = new InProcessFleetBus();
    const heard: string[] = [];
    const stop = bus.subscribe('bridle_task_changes', (payload) => heard.push(payload));
    await bus.publish('bridle_task_changes', 'a');
    expect(heard).toEqual([]);
    await waitFor(() => heard.length === 1);
    stop();
    await bus.publish('bridle_task_changes', 'b');
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual(['a']);
    expect(() => bus.publish('bridle_task_changes', 'x'.repeat(FleetBus.MAX_PAYLOAD_BYTES + 1))).toThrow(PayloadTooLargeError);
  });
});

// Two buses on one database are two replicas: each hears what either publishes.
describeOnPostgres('PostgresFleetBus', () => {
  let buses: PostgresFleetBus[];
  const heard: string[][] = [[], []];
  let resyncs = 0;
  const db = useOpenDatabase({
    beforeClose: async () => {
      for (const bus of buses ?? []) await bus.close();
    },
  });

  beforeAll(async () => {
    if (db.settings.kind !== 'server') throw new Error('needs a server');
    const url = db.settings.url;
    buses = [new PostgresFleetBus(url, db.database), new PostgresFleetBus(url, db.database)];
    buses.forEach((bus, i) => bus.subscribe('bridle_mcp_sessions', (payload) => heard[i].push(payload)));
    buses[1].onResync(() => (resyncs += 1));
    await waitFor(async () => (await listening()) === 2);
  });

  /** The buses' LISTEN connections open on this database. */
  async function listening(): Promise<number> {
    const rows = await db.database.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'bridle-fleet-bus' AND datname = current_database()`,
    );
    return rows[0].n;
  }

  it('delivers each message to every bus, this one included, and sends what is published together in one NOTIFY', async () => {
    const counter = countStatements();
    try {
      await Promise.all([
        buses[0].publish('bridle_mcp_sessions', 'one'),
        buses[0].publish('bridle_mcp_sessions', 'two'),
        buses[0].publish('bridle_mcp_sessions', 'one'),
      ]);
    } finally {
      counter.stop();
    }
    await waitFor(() => heard[0].length === 2 && heard[1].length === 2);
    expect(heard).toEqual([
      ['one', 'two'],
      ['one', 'two'],
    ]);
    expect(counter.statements.filter((statement) => statement.includes('pg_notify'))).toHaveLength(1);
  });

  it('refuses a payload over the limit or over one line', () => {
    expect(() => buses[0].publish('bridle_mcp_sessions', 'é'.repeat(FleetBus.MAX_PAYLOAD_BYTES / 2 + 1))).toThrow(PayloadTooLargeError);
    expect(() => buses[0].publish('bridle_mcp_sessions', 'a\nb')).toThrow(/one line/);
  });

  it('listens again after its connection is cut, and tells its subscribers to re-read', async () => {
    heard[1].length = 0;
    await db.database.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'bridle-fleet-bus' AND datname = current_database() AND pid <> pg_backend_pid()`,
    );
    await waitFor(() => resyncs === 1);
    await buses[0].publish('bridle_mcp_sessions', 'after');
    await waitFor(() => heard[1].includes('after'));
  });
});
