import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsInt, Max, Min } from 'class-validator';
import {
  DRY_RUN_CALLS_DEFAULT,
  DRY_RUN_CALLS_MAX,
  DRY_RUN_EXAMPLES_MAX,
  type DryRunChange,
  type DryRunExample,
  type DryRunReport,
  type DryRunVerdict,
} from '../../../application/policy/dry-run-policy.use-case';
import { ROLES, type Role } from '../../../domain/identity/user';
import {
  LIMIT_SUBJECTS,
  LIMIT_WINDOWS_MS,
  POLICY_EFFECTS,
  POLICY_SOURCES,
  type PolicyEffect,
  type PolicySource,
} from '../../../domain/policy/policy';
import { POLICY_RULES_MAX } from '../../../domain/policy/policy-document';
import { Optional } from '../shared/fields';

/**
 * A rule as the document describes it. Only described: the whole policy is checked by
 * readPolicy, which names every problem with its rule's position (a 400 POLICY.INVALID),
 * rather than by field decorators that would stop at the first.
 */
export class PolicyRuleInputDto {
  @ApiProperty({ example: 'no-deletes', description: 'Unique in the policy: 1 to 64 lowercase letters, digits and dashes' })
  name!: string;

  @ApiProperty({ type: [String], example: ['delete_task'], description: 'Tool names or globs (`*`, `?`); at least one' })
  tools!: string[];

  @ApiPropertyOptional({ enum: POLICY_SOURCES, isArray: true, description: 'Where the call comes from; every source when absent' })
  sources?: PolicySource[];

  @ApiPropertyOptional({
    type: [String],
    description: "Whose calls: emails (each must be an account's) or account ids; everyone's when absent",
  })
  people?: string[];

  @ApiPropertyOptional({ enum: ROLES, isArray: true, description: 'Whose calls, by their role now; every role when absent' })
  roles?: Role[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { items: { over: 3 }, days: ['sat', 'sun'], hours: { from: '22:00', to: '06:00' } },
    description: 'What must also hold (UTC times): `items` {over, atMost}, `recipientDomain` {in, notIn}, `days`, `hours` {from, to}',
  })
  when?: Record<string, unknown>;

  @ApiProperty({ enum: POLICY_EFFECTS, description: 'What the rule does with a call it matches; `limit` goes on to the next rules' })
  effect!: PolicyEffect;

  @ApiPropertyOptional({ description: 'What the person reads when the rule refuses a call; required for deny' })
  reason?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: false,
    properties: {
      max: { type: 'integer', minimum: 1 },
      per: { type: 'string', enum: [...LIMIT_SUBJECTS] },
      window: { type: 'string', enum: Object.keys(LIMIT_WINDOWS_MS) },
    },
    example: { max: 20, per: 'person', window: 'day' },
    description: 'For the limit effect: at most `max` such calls a `window`, per person or for everyone',
  })
  limit?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: false,
    properties: { timeoutMinutes: { type: 'integer', minimum: 1 }, fallback: { type: 'string', enum: ['reject', 'escalate'] } },
    description: 'For ask-reviewer: how long the review queue waits, and what then',
  })
  reviewer?: Record<string, unknown>;
}

export class PolicyDryRunRequestDto {
  @ApiProperty({
    type: [PolicyRuleInputDto],
    maxItems: POLICY_RULES_MAX,
    description: 'The whole candidate policy, as storing it takes it, in the order evaluation reads it',
  })
  // readPolicy reads it, every problem at once (see PolicyRuleInputDto).
  @Allow()
  rules!: unknown;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: DRY_RUN_CALLS_MAX,
    default: DRY_RUN_CALLS_DEFAULT,
    description: 'How many recorded tool calls, the newest',
  })
  @Optional()
  @IsInt({ message: 'limit must be a whole number' })
  @Min(1, { message: `limit must be from 1 to ${DRY_RUN_CALLS_MAX}` })
  @Max(DRY_RUN_CALLS_MAX, { message: `limit must be from 1 to ${DRY_RUN_CALLS_MAX}` })
  limit?: number;
}

export class PolicyDryRunVerdictDto {
  @ApiProperty({ enum: POLICY_EFFECTS, description: '`limit` when one of the policy’s limits would have stopped the call' })
  effect!: PolicyEffect;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'no-deletes',
    description: 'The deciding rule; null when no rule matched (allowed)',
  })
  rule!: string | null;

  static of(verdict: DryRunVerdict): PolicyDryRunVerdictDto {
    return { effect: verdict.effect, rule: verdict.rule };
  }
}

/** A call that would be decided differently. Never its arguments: they may hold personal data. */
export class PolicyDryRunExampleDto {
  @ApiProperty({ example: 42, description: "The call's audit row (its pending row, for a call that changes something)" })
  seq!: number;

  @ApiProperty({ type: String, format: 'date-time', description: 'When it was recorded: the time its rules were tested at' })
  at!: string;

  @ApiProperty({ enum: POLICY_SOURCES })
  source!: PolicySource;

  @ApiProperty({ example: 'delete_task' })
  tool!: string;

  @ApiProperty({ format: 'uuid' })
  actorId!: string;

  @ApiProperty({ type: String, nullable: true, description: "The actor's email as it is now; null when the account no longer exists" })
  actorEmail!: string | null;

  @ApiProperty({ type: PolicyDryRunVerdictDto, description: 'What the policy in force decides' })
  now!: PolicyDryRunVerdictDto;

  @ApiProperty({ type: PolicyDryRunVerdictDto, description: 'What the candidate decides' })
  candidate!: PolicyDryRunVerdictDto;

  static of(example: DryRunExample): PolicyDryRunExampleDto {
    return {
      seq: example.seq,
      at: example.at.toISOString(),
      source: example.source,
      tool: example.tool,
      actorId: example.actorId,
      actorEmail: example.actorEmail,
      now: PolicyDryRunVerdictDto.of(example.now),
      candidate: PolicyDryRunVerdictDto.of(example.candidate),
    };
  }
}

export class PolicyDryRunChangeDto {
  @ApiProperty({ enum: POLICY_EFFECTS, description: 'The effect under the policy in force' })
  from!: PolicyEffect;

  @ApiProperty({ enum: POLICY_EFFECTS, description: 'The effect under the candidate' })
  to!: PolicyEffect;

  @ApiProperty({ type: String, nullable: true, description: "The candidate's deciding rule; null when no rule matched (allowed)" })
  rule!: string | null;

  @ApiProperty({ example: 12, description: 'How many of the calls change so' })
  calls!: number;

  @ApiProperty({ type: [PolicyDryRunExampleDto], maxItems: DRY_RUN_EXAMPLES_MAX, description: 'The newest of them, newest first' })
  examples!: PolicyDryRunExampleDto[];

  static of(change: DryRunChange): PolicyDryRunChangeDto {
    return {
      from: change.from,
      to: change.to,
      rule: change.rule,
      calls: change.calls,
      examples: change.examples.map((example) => PolicyDryRunExampleDto.of(example)),
    };
  }
}

/** Calls by effect. */
export class PolicyEffectCountsDto {
  @ApiProperty()
  allow!: number;

  @ApiProperty()
  'ask-person'!: number;

  @ApiProperty()
  'ask-reviewer'!: number;

  @ApiProperty()
  limit!: number;

  @ApiProperty()
  deny!: number;
}

export class PolicyDryRunEffectsDto {
  @ApiProperty({ type: PolicyEffectCountsDto, description: 'Under the policy in force' })
  now!: PolicyEffectCountsDto;

  @ApiProperty({ type: PolicyEffectCountsDto, description: 'Under the candidate' })
  candidate!: PolicyEffectCountsDto;
}

/** What the report says of how it was made, in its own words (also in the document). */
export const DRY_RUN_NOTES: readonly string[] = [
  "No call's arguments are shown: they may hold personal data.",
  'Each tool call counts once (a call that changes something has a pending and an outcome row).',
  'Limits are counted over these calls alone, in time order, from empty counters: calls older than the sample count toward no window.',
  'A call is decided at its recorded time (for days and hours), with its actor’s role as it is now.',
  'Nothing was stored, counted or recorded: not even this dry run.',
];

export class PolicyDryRunReportDto {
  @ApiProperty({ example: 0, description: 'The version of the policy in force the candidate was compared with; 0 is the built-in policy' })
  versionInForce!: number;

  @ApiProperty({ example: 1000, description: 'Recorded tool calls read: `limit`, or fewer when the log holds fewer' })
  calls!: number;

  @ApiProperty({ example: 1000, description: 'The limit asked for' })
  limit!: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: "The oldest call's time; null when none was read" })
  from!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: "The newest call's time; null when none was read" })
  to!: string | null;

  @ApiProperty({ example: 12, description: 'Calls whose effect the candidate changes' })
  changed!: number;

  @ApiProperty({ type: PolicyDryRunEffectsDto, description: 'How many of the calls each policy gives each effect' })
  effects!: PolicyDryRunEffectsDto;

  @ApiProperty({
    type: [PolicyDryRunChangeDto],
    description: 'The changes by (from, to, candidate rule), most calls first, each with examples',
  })
  changes!: PolicyDryRunChangeDto[];

  @ApiProperty({ type: [String], description: 'How the report was made, in words' })
  notes!: string[];

  static of(report: DryRunReport): PolicyDryRunReportDto {
    return {
      versionInForce: report.versionInForce,
      calls: report.calls,
      limit: report.limit,
      from: report.from?.toISOString() ?? null,
      to: report.to?.toISOString() ?? null,
      changed: report.changed,
      effects: { now: { ...report.effects.now }, candidate: { ...report.effects.candidate } },
      changes: report.changes.map((change) => PolicyDryRunChangeDto.of(change)),
      notes: [...DRY_RUN_NOTES],
    };
  }
}
