import { CompiledPolicy, peopleNamed, unknownPeople } from '../../domain/policy/compiled-policy';
import { DEFAULT_POLICY_VERSION } from '../../domain/policy/default-policy';
import type { PolicyDocument, PolicyTool } from '../../domain/policy/policy';
import { readPolicy } from '../../domain/policy/policy-document';
import { PolicyRefusedError } from '../../domain/policy/policy-refused-error';
import type { PolicyAccounts } from './ports/policy-accounts.port';

/** What every policy is read against (the tools there are), and the built-in policy in force until an admin stores one. */
export class PolicyBasis {
  constructor(
    readonly catalogue: readonly PolicyTool[],
    readonly builtIn: PolicyDocument,
  ) {}

  /**
   * A policy an admin sent (to store, or to try), read against the tools there are, with the
   * accounts of the emails it names. @throws PolicyRefusedError with every problem at once.
   */
  async read(input: unknown, accounts: PolicyAccounts): Promise<{ document: PolicyDocument; accounts: ReadonlyMap<string, string> }> {
    const reading = readPolicy(input, this.catalogue);
    if (!reading.ok) throw new PolicyRefusedError(reading.problems);
    const found = await accounts.idsByEmail(peopleNamed(reading.document));
    const unknown = unknownPeople(reading.document, found);
    if (unknown.length > 0) throw new PolicyRefusedError(unknown);
    return { document: reading.document, accounts: found };
  }
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
