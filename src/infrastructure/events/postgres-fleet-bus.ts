import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { checkedPayload, FleetBus, type FleetChannel } from '../../application/shared/ports/fleet-bus.port';
import { run, sql } from '../persistence/sql';

/**
 * Messages published within this long go out together, one NOTIFY a channel (lines of one
 * payload): however many turns a second a replica serves, it sends at most a few dozen
 * NOTIFYs, off the turns' transactions and their connections. PostgreSQL serialises the
 * commits of transactions that notify, so a NOTIFY inside each turn's transaction would
 * make every write of the fleet wait for the one before it.
 */
const FLUSH_AFTER_MS = 20;

/** After a lost connection, the first retry waits this long, each next one twice as long up to the cap. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 10_000;

/**
 * The bus of a fleet on one PostgreSQL server: NOTIFY to publish, one LISTEN connection per
 * process to hear (and to send on). It needs nothing the replicas do not already share.
 *
 * Written here rather than taken from a package: the maintained choices (pg-listen, last
 * released in 2021) add little over node-postgres's own `notification` event, and what is
 * ours is the part that matters: reconnecting with backoff, LISTENing again, and telling
 * subscribers to re-read (`onResync`) because notifications sent meanwhile are gone.
 */
export class PostgresFleetBus extends FleetBus {
  private readonly logger = new Logger('FleetBus');
  private readonly events = new EventEmitter().setMaxListeners(0);
  private readonly channels = new Set<FleetChannel>();
  private client: Client | undefined;
  private retryMs = RETRY_FIRST_MS;
  private retry: NodeJS.Timeout | undefined;
  private connecting = false;
  private closed = false;
  private pending = new Map<FleetChannel, Set<string>>();
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly url: string,
    private readonly dataSource: DataSource,
  ) {
    super();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  publish(channel: FleetChannel, payload: string): Promise<void> {
    let payloads = this.pending.get(channel);
    if (!payloads) this.pending.set(channel, (payloads = new Set()));
    payloads.add(checkedPayload(channel, payload));
    this.flushing ??= new Promise<void>((resolve) => setTimeout(resolve, FLUSH_AFTER_MS).unref()).then(() => this.flush());
    return this.flushing;
  }

  /** Sends what was published since the last flush: one NOTIFY per channel and 7 500 bytes, on the bus's own connection when it has one. */
  private async flush(): Promise<void> {
    const batches = this.pending;
    this.pending = new Map();
    this.flushing = undefined;
    for (const [channel, payloads] of batches) {
      for (const lines of chunks([...payloads])) {
        const statement = sql`SELECT pg_notify(${channel}, ${lines})`;
        // eslint-disable-next-line no-restricted-syntax -- the sql tag's statement, on the bus's own connection (not a DataSource's)
        if (this.client) await this.client.query(statement);
        else await run(this.dataSource, statement);
      }
    }
  }

  subscribe(channel: FleetChannel, listener: (payload: string) => void): () => void {
    this.events.on(channel, listener);
    if (!this.channels.has(channel)) {
      this.channels.add(channel);
      const client = this.client;
      // eslint-disable-next-line no-restricted-syntax -- LISTEN on the bus's own connection, outside any DataSource; it takes no parameters
      if (client) void client.query(listenTo(channel)).catch((error: unknown) => this.lost(client, error));
      else this.reconnect(0, false);
    }
    return () => this.events.off(channel, listener);
  }

  onResync(listener: () => void): () => void {
    this.events.on(RESYNC, listener);
    return () => this.events.off(RESYNC, listener);
  }

  private async connect(): Promise<Client> {
    const client = new Client({ connectionString: this.url, keepAlive: true, application_name: 'bridle-fleet-bus' });
    client.on('notification', ({ channel, payload }) => {
      for (const line of payload?.split('\n') ?? []) this.deliver(channel, line);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, undefined));
    try {
      await client.connect();
      // eslint-disable-next-line no-restricted-syntax -- as in subscribe
      for (const channel of this.channels) await client.query(listenTo(channel));
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw error;
    }
    return client;
  }

  private deliver(event: string, payload?: string): void {
    for (const listener of this.events.listeners(event) as ((payload?: string) => void)[]) {
      try {
        listener(payload);
      } catch (error) {
        this.logger.error({ err: error, channel: event }, 'a fleet bus subscriber failed');
      }
    }
  }

  private lost(client: Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    void client.end().catch(() => undefined);
    if (this.closed) return;
    this.logger.warn({ err: error, retryInMs: this.retryMs }, 'lost the fleet bus connection; reconnecting');
    this.reconnect(this.retryMs, true);
  }

  /**
   * Opens the listening connection after `delayMs`, and retries with backoff until it has one.
   * The first is opened by the first subscription (a process that only publishes, such as an
   * outreach worker, never holds one); after a lost one, subscribers are told to re-read.
   */
  private reconnect(delayMs: number, resync: boolean): void {
    if (this.connecting || this.client || this.closed) return;
    this.connecting = true;
    this.retry = setTimeout(() => {
      this.connect().then(
        (client) => {
          this.connecting = false;
          if (this.closed) return void client.end().catch(() => undefined);
          this.client = client;
          this.retryMs = RETRY_FIRST_MS;
          if (!resync) return;
          this.logger.log('fleet bus connection back; subscribers re-read what they show');
          this.deliver(RESYNC);
        },
        (error: unknown) => {
          this.connecting = false;
          this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
          this.logger.warn({ err: error, retryInMs: this.retryMs }, 'could not connect the fleet bus; retrying');
          this.reconnect(this.retryMs, true);
        },
      );
    }, delayMs);
    this.retry.unref();
  }
}

const RESYNC = 'resync';

/** Payloads joined by newlines (which none holds: checkedPayload), each join within the limit of one NOTIFY. */
function chunks(payloads: readonly string[]): string[] {
  const joined: string[] = [];
  let current = '';
  for (const payload of payloads) {
    const next = current === '' ? payload : `${current}\n${payload}`;
    if (Buffer.byteLength(next) <= FleetBus.MAX_PAYLOAD_BYTES) current = next;
    else {
      joined.push(current);
      current = payload;
    }
  }
  if (current !== '') joined.push(current);
  return joined;
}

/** Channel names are the code's own constants (FleetChannel), checked anyway since LISTEN takes no parameter. */
function listenTo(channel: FleetChannel): string {
  if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  return `LISTEN ${channel}`;
}
