import { CompiledPolicy } from '../../domain/policy/compiled-policy';
import { DEFAULT_POLICY_VERSION } from '../../domain/policy/default-policy';
import type { PolicyDocument, PolicyTool } from '../../domain/policy/policy';

/** What every policy is read against (the tools there are), and the built-in policy in force until an admin stores one. */
export class PolicyBasis {
  constructor(
    readonly catalogue: readonly PolicyTool[],
    readonly builtIn: PolicyDocument,
  ) {}
}

/** The policy in force: every tool call's evaluation reads it, so it answers at once, from memory. */
export abstract class PolicyProvider {
  abstract current(): CompiledPolicy;
}

/** The built-in policy, version 0, and nothing else: what a deployment that never stores a policy runs on. */
export class BuiltInPolicy extends PolicyProvider {
  private readonly policy: CompiledPolicy;

  constructor(basis: PolicyBasis) {
    super();
    this.policy = new CompiledPolicy(DEFAULT_POLICY_VERSION, basis.builtIn, basis.catalogue);
  }

  current(): CompiledPolicy {
    return this.policy;
  }
}
