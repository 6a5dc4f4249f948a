import { MonthlyBudgets, type MonthlyBudgetUse } from '../../src/application/agent/ports/monthly-budgets.port';
import { PolicyGate } from '../../src/application/policy/policy-gate';
import type { Amount } from '../../src/domain/agent/money';
import { BuiltInPolicy, PolicyBasis, PolicyProvider } from '../../src/application/policy/policy-provider';
import type { Clock } from '../../src/application/shared/ports/clock.port';
import { FixedClock } from './fixed-clock';
import { PolicyAccounts } from '../../src/application/policy/ports/policy-accounts.port';
import { type LimitReached, PolicyCounters } from '../../src/application/policy/ports/policy-counters.port';
import type { McpDestructiveToolMode } from '../../src/domain/agent/confirmation';
import type { ToolDefinition } from '../../src/domain/agent/tools';
import { CompiledPolicy } from '../../src/domain/policy/compiled-policy';
import { defaultPolicy, policyCatalogue } from '../../src/domain/policy/default-policy';
import type { PolicyLimit, PolicyRule, PolicySource } from '../../src/domain/policy/policy';
import { problemInWords, readPolicy } from '../../src/domain/policy/policy-document';
import type { Role } from '../../src/domain/identity/user';

/**
 * The catalogue of these tools: a todo tool's definition names its sources; a test's own stub
 * tool is called from the chat and MCP, and from the API when it changes data.
 */
function catalogueOf(tools: readonly (ToolDefinition & { readonly sources?: readonly PolicySource[] })[]) {
  return policyCatalogue(
    tools.map((tool) => ({ ...tool, sources: tool.sources ?? (tool.mutates ? ['chat', 'mcp', 'api'] : ['chat', 'mcp']) })),
  );
}

/** The built-in policy for these tools, as a deployment that never stored one runs. */
export function builtInPolicy(
  tools: readonly ToolDefinition[],
  mcpDestructiveTools: McpDestructiveToolMode = 'confirm-in-chat',
): PolicyProvider {
  const catalogue = catalogueOf(tools);
  return new BuiltInPolicy(new PolicyBasis(catalogue, defaultPolicy(catalogue, mcpDestructiveTools)));
}

/** A stored policy of these rules (read as an admin's would be), at `version`. */
export function policyOf(tools: readonly ToolDefinition[], rules: readonly PolicyRule[], version = 1): PolicyProvider {
  const catalogue = catalogueOf(tools);
  const reading = readPolicy({ rules }, catalogue);
  if (!reading.ok) throw new Error(reading.problems.map(problemInWords).join('\n'));
  const policy = new CompiledPolicy(version, reading.document, catalogue);
  return new (class extends PolicyProvider {
    current(): CompiledPolicy {
      return policy;
    }
  })();
}

/** The limits' counters in memory, one window per key that never ends: enough for a test that stays inside it. */
export class InMemoryPolicyCounters extends PolicyCounters {
  readonly counts = new Map<string, number>();

  /** One limit after the other, as the database counts them: the same counter twice counts twice; a full one takes back what was counted. */
  take(limits: readonly PolicyLimit[]): Promise<LimitReached | null> {
    const counted: PolicyLimit[] = [];
    for (const limit of limits) {
      const count = this.counts.get(limit.key) ?? 0;
      if (count + 1 > limit.max) {
        for (const taken of counted) this.counts.set(taken.key, (this.counts.get(taken.key) ?? 1) - 1);
        return Promise.resolve({ limit, retryAfterSeconds: limit.windowMs / 1000 });
      }
      this.counts.set(limit.key, count + 1);
      counted.push(limit);
    }
    return Promise.resolve(null);
  }

  full(limits: readonly PolicyLimit[]): Promise<LimitReached | null> {
    const over = limits.find((limit) => (this.counts.get(limit.key) ?? 0) >= limit.max);
    return Promise.resolve(over ? { limit: over, retryAfterSeconds: over.windowMs / 1000 } : null);
  }
}

/** Accounts as the test sets them: ids by email, and roles (everyone else a user). */
export class FixedPolicyAccounts extends PolicyAccounts {
  constructor(
    private readonly roles: Readonly<Record<string, Role>> = {},
    private readonly byEmail: Readonly<Record<string, string>> = {},
  ) {
    super();
  }

  idsByEmail(emails: readonly string[]): Promise<ReadonlyMap<string, string>> {
    return Promise.resolve(new Map(emails.filter((email) => email in this.byEmail).map((email) => [email, this.byEmail[email]])));
  }

  roleOf(userId: string): Promise<Role | null> {
    return Promise.resolve(this.roles[userId] ?? 'user');
  }
}

/** The gate on `policy`, counting in memory, with callers' roles as given (everyone else a user). */
export function policyGate(
  policy: PolicyProvider,
  options: {
    readonly roles?: Readonly<Record<string, Role>>;
    readonly clock?: Clock;
    readonly counters?: PolicyCounters;
    readonly budgets?: MonthlyBudgets;
  } = {},
): PolicyGate {
  return new PolicyGate(
    policy,
    options.counters ?? new InMemoryPolicyCounters(),
    new FixedPolicyAccounts(options.roles),
    options.clock ?? new FixedClock(),
    options.budgets ?? new FixedMonthlyBudgets(),
  );
}

/** Each person's month as the test sets it (`spent`, `budget` by user id); no currency (calls not priced) unless given. */
export class FixedMonthlyBudgets extends MonthlyBudgets {
  constructor(
    readonly currency: string | null = null,
    private readonly months: Readonly<Record<string, { readonly spent: Amount; readonly budget: Amount | null }>> = {},
    readonly defaultBudget: Amount | null = null,
  ) {
    super();
  }

  use(userId: string, month: string): Promise<MonthlyBudgetUse | null> {
    const set = this.months[userId];
    return Promise.resolve({
      month,
      spent: set?.spent ?? 0n,
      reserved: 0n,
      own: set?.budget ?? null,
      budget: set?.budget ?? this.defaultBudget,
    });
  }

  setOwn(_userId: string, _monthly: Amount | null): Promise<boolean> {
    return Promise.reject(new Error('FixedMonthlyBudgets: set the months in the constructor'));
  }
}
