import { Injectable } from '@nestjs/common';
import { PolicyRefusedError } from '../../domain/policy/policy-refused-error';
import { auditedChange } from '../audit/audited-change';
import { AuditLog, type ToolAuditEntry } from '../audit/ports/audit-log.port';
import { Clock } from '../shared/ports/clock.port';
import { FleetBus } from '../shared/ports/fleet-bus.port';
import { Logger } from '../shared/ports/logger.port';
import { PolicyBasis } from './policy-provider';
import { type PolicyVersionView, storedView } from './policy-version-view';
import { PolicyAccounts } from './ports/policy-accounts.port';
import { POLICY_REASON_MAX_CHARS, PolicyStore } from './ports/policy-store.port';
import { StoredPolicy } from './stored-policy';

export interface ChangePolicyInput {
  readonly adminId: string;
  /** The admin's email as their account has it now: the version keeps it, whatever becomes of the account. */
  readonly adminEmail: string;
  /** The new rules, as they came (a request body, a file): read here. */
  readonly rules: unknown;
  readonly reason: string;
}

/**
 * Stores a new version of the policy, which every process then enforces.
 *
 * The rules are read against the tools there are (readPolicy), and every email they name must
 * be an account's, which the version stores with it (`people`: every process reads the emails
 * as the accounts they were now): a policy with any problem is refused whole with all of them
 * (PolicyRefusedError), and nothing of it is stored or audited, since nothing was attempted.
 *
 * A policy that reads is stored audited like any admin change (auditedChange): the pending
 * row, committed before the version is, names the admin, the reason, how many rules and the
 * version it replaces (`basedOn`); its outcome row carries the new version's number, which ties
 * the pair to the stored rules (GET /admin/policy/versions/{version}). The number is not known
 * before the save takes it (racing saves each take the next), so it is not in the pending row.
 *
 * Then this process puts the version in force before the admin gets the answer, and the bus
 * tells every other process, each of which reads it within a moment.
 */
@Injectable()
export class ChangePolicyUseCase {
  private readonly logger: Logger;

  constructor(
    private readonly basis: PolicyBasis,
    private readonly store: PolicyStore,
    private readonly accounts: PolicyAccounts,
    private readonly policy: StoredPolicy,
    private readonly bus: FleetBus,
    private readonly auditLog: AuditLog,
    private readonly clock: Clock,
    logger: Logger,
  ) {
    this.logger = logger.withContext(ChangePolicyUseCase.name);
  }

  /** @throws PolicyRefusedError with every problem of the rules (and of the reason). */
  async execute(input: ChangePolicyInput): Promise<PolicyVersionView> {
    const reason = input.reason.trim();
    if (reason.length === 0 || reason.length > POLICY_REASON_MAX_CHARS) {
      throw new PolicyRefusedError([{ position: null, field: 'reason', message: `must be 1 to ${POLICY_REASON_MAX_CHARS} characters` }]);
    }
    // The emails the rules name are resolved now, once: the version carries the accounts they are.
    const { document, accounts } = await this.basis.read({ rules: input.rules }, this.accounts);

    const entry: ToolAuditEntry = {
      source: 'admin',
      actorId: input.adminId,
      tool: 'change_policy',
      // The rules' count, not the rules: the version holds them, and a large policy would crowd the row.
      arguments: { reason, rules: document.rules.length, basedOn: await this.store.latestVersion() },
      securityEvents: [],
    };
    const stored = await auditedChange({ auditLog: this.auditLog, clock: this.clock }, entry, async () => {
      const saved = await this.store.save({
        document,
        people: Object.fromEntries(accounts),
        authorId: input.adminId,
        authorEmail: input.adminEmail,
        reason,
      });
      return { result: { version: saved.version }, value: saved };
    });

    // Stored and audited: what follows only hastens what the bus's listeners and the timer would do anyway.
    await this.policy.refresh().catch((error: unknown) => {
      this.logger.error({ msg: 'stored a policy version but could not put it in force here', version: stored.version, err: error });
    });
    await this.bus.publish('bridle_policy', String(stored.version)).catch((error: unknown) => {
      this.logger.warn({ msg: 'could not tell the other processes of a new policy version', version: stored.version, err: error });
    });
    return storedView(stored);
  }
}
