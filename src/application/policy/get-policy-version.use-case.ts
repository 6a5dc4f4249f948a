import { Injectable } from '@nestjs/common';
import { DEFAULT_POLICY_VERSION } from '../../domain/policy/default-policy';
import { PolicyBasis } from './policy-provider';
import { builtInView, PolicyVersionNotFoundError, type PolicyVersionView, storedView } from './policy-version-view';
import { PolicyStore } from './ports/policy-store.port';

/** One version of the policy, whole: a stored one, or version 0, the built-in rules of the running code. */
@Injectable()
export class GetPolicyVersionUseCase {
  constructor(
    private readonly basis: PolicyBasis,
    private readonly store: PolicyStore,
  ) {}

  /** @throws PolicyVersionNotFoundError */
  async execute(version: number): Promise<PolicyVersionView> {
    if (version === DEFAULT_POLICY_VERSION) return builtInView(this.basis);
    const stored = await this.store.version(version);
    if (!stored) throw new PolicyVersionNotFoundError(version);
    return storedView(stored);
  }
}
