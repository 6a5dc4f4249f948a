import { Injectable } from '@nestjs/common';
import { CompiledPolicy, unknownPeople } from '../../domain/policy/compiled-policy';
import { DEFAULT_POLICY_VERSION } from '../../domain/policy/default-policy';
import type { PolicyDocument } from '../../domain/policy/policy';
import { problemInWords, readPolicy } from '../../domain/policy/policy-document';
import { FleetBus } from '../shared/ports/fleet-bus.port';
import { Logger } from '../shared/ports/logger.port';
import { PolicyBasis, PolicyProvider } from './policy-provider';
import { PolicyStore, type StoredPolicyVersion } from './ports/policy-store.port';

/** How often every process checks for a newer version anyway, in case it missed the bus's message. */
export const POLICY_RECHECK_INTERVAL_MS = 30_000;

/** Problems of a stored version a log line lists at most. */
const LOGGED_PROBLEMS_MAX = 10;

/**
 * The policy in force: the newest version an admin stored, else the built-in one (version 0).
 * Every tool call's evaluation reads it, so `current()` answers from memory: the version is
 * read and compiled once, at start (`start`, which the module awaits before the app serves
 * anything) and again whenever there is a newer one. Each version is compiled once, and only
 * the one in force is kept.
 *
 * How a process learns of a newer version, soonest first: the process that stored it reads it
 * before its admin gets the answer (ChangePolicyUseCase); every process, that one included,
 * hears the version's number on the fleet bus (`bridle_policy`) and reads the newest, within
 * a moment; after the bus lost its connection and got it back (`onResync`) it reads the newest
 * too; and a timer checks the newest number every POLICY_RECHECK_INTERVAL_MS (PolicyModule),
 * for a message that was lost anyway (the bus delivers at most once).
 */
@Injectable()
export class StoredPolicy extends PolicyProvider {
  private inForce: CompiledPolicy;
  private readonly logger: Logger;
  private readonly subscriptions: (() => void)[] = [];
  /** The read under way, and the one waiting for it to end (which every caller meanwhile joins). */
  private running: Promise<CompiledPolicy> | null = null;
  private queued: Promise<CompiledPolicy> | null = null;

  constructor(
    private readonly basis: PolicyBasis,
    private readonly store: PolicyStore,
    private readonly bus: FleetBus,
    logger: Logger,
  ) {
    super();
    this.inForce = new CompiledPolicy(DEFAULT_POLICY_VERSION, basis.builtIn, basis.catalogue);
    this.logger = logger.withContext(StoredPolicy.name);
  }

  current(): CompiledPolicy {
    return this.inForce;
  }

  /**
   * Listens on the bus, then reads the version in force. In that order: a version stored
   * between the read and the subscription would otherwise wait for the timer.
   */
  async start(): Promise<void> {
    this.subscriptions.push(
      this.bus.subscribe('bridle_policy', (payload) => {
        // The number says whether there is anything to read; a process that has it already reads nothing.
        const version = Number(payload);
        if (Number.isSafeInteger(version) && version <= this.inForce.version) return;
        this.refreshSoon('notified');
      }),
      this.bus.onResync(() => this.refreshSoon('resync')),
    );
    await this.refresh();
  }

  stop(): void {
    for (const unsubscribe of this.subscriptions.splice(0)) unsubscribe();
  }

  /**
   * Reads the newest version and puts it in force if it is newer than the one in force.
   * Reads run one at a time; a call while one runs waits for the next one, which starts after
   * it and so sees whatever was stored before the call (callers meanwhile share that read).
   * @returns the policy in force after it.
   */
  refresh(): Promise<CompiledPolicy> {
    if (this.queued) return this.queued;
    const previous = this.running;
    const read = (async () => {
      // Always awaits (a tick at least), so `queued` is set below before it is cleared here.
      await previous?.catch(() => undefined);
      this.queued = null;
      return this.readNewest();
    })();
    this.queued = read;
    this.running = read;
    void read.then(
      () => this.settled(read),
      () => this.settled(read),
    );
    return read;
  }

  private settled(read: Promise<CompiledPolicy>): void {
    if (this.running === read) this.running = null;
  }

  private refreshSoon(why: 'notified' | 'resync'): void {
    this.refresh().catch((error: unknown) => {
      // The version in force stays; the next message or the timer reads again.
      this.logger.error({ msg: 'could not read the policy in force', why, version: this.inForce.version, err: error });
    });
  }

  private async readNewest(): Promise<CompiledPolicy> {
    // Versions only grow (rows are never deleted): a number no higher than ours means nothing to read.
    if ((await this.store.latestVersion()) <= this.inForce.version) return this.inForce;
    const stored = await this.store.latest();
    if (!stored || stored.version <= this.inForce.version) return this.inForce;
    const previous = this.inForce.version;
    this.inForce = this.compile(stored);
    this.logger.info({ msg: 'policy version in force', version: stored.version, previous });
    return this.inForce;
  }

  /**
   * A stored version, read again against the tools of the code that runs now. It was read
   * cleanly when it was stored; if a release has since changed the tools (or what their rules
   * may say), it stays in force as stored and the problems are logged: falling back to the
   * built-in policy instead could lift a `deny` the admin wrote. Its rules' emails are the
   * accounts it was stored with (`people`), never looked up again, so every process reads a
   * version alike whatever has become of the accounts since; an email it holds no account for
   * (a version stored before, whose account was gone then) matches nobody.
   */
  private compile(stored: StoredPolicyVersion): CompiledPolicy {
    const reading = readPolicy(stored.document, this.basis.catalogue);
    const document: PolicyDocument = reading.ok ? reading.document : stored.document;
    if (!reading.ok) {
      this.logger.error({
        msg: 'the stored policy does not read cleanly against the tools of this version of Bridle; in force as stored',
        version: stored.version,
        problems: reading.problems.slice(0, LOGGED_PROBLEMS_MAX).map(problemInWords),
      });
    }
    const accounts = new Map(Object.entries(stored.people));
    const unknown = unknownPeople(document, accounts);
    if (unknown.length > 0) {
      this.logger.warn({
        msg: 'the stored policy names emails it holds no account for; those rules match nobody by them',
        version: stored.version,
        fields: unknown.slice(0, LOGGED_PROBLEMS_MAX).map((problem) => problem.field),
      });
    }
    return new CompiledPolicy(stored.version, document, this.basis.catalogue, accounts);
  }
}
