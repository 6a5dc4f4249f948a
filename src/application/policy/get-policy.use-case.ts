import { Injectable } from '@nestjs/common';
import { PolicyBasis } from './policy-provider';
import { builtInView, type PolicyVersionView, storedView } from './policy-version-view';
import { PolicyStore } from './ports/policy-store.port';

/**
 * The policy in force: the newest stored version, else the built-in one. Read from the
 * database, not from this process's memory, so that an admin reads back what they just
 * stored whichever replica answers; every process enforces that version within a moment of
 * its save (StoredPolicy).
 */
@Injectable()
export class GetPolicyUseCase {
  constructor(
    private readonly basis: PolicyBasis,
    private readonly store: PolicyStore,
  ) {}

  async execute(): Promise<PolicyVersionView> {
    const latest = await this.store.latest();
    return latest ? storedView(latest) : builtInView(this.basis);
  }
}
