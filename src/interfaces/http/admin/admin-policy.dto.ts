import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsIn, IsInt, IsString, Length, Max, Min } from 'class-validator';
import type { PolicyVersionView } from '../../../application/policy/policy-version-view';
import { POLICY_REASON_MAX_CHARS, type PolicyVersionSummary } from '../../../application/policy/ports/policy-store.port';
import { POLICY_RULES_MAX } from '../../../domain/policy/policy-document';
import { Optional, ToInteger } from '../shared/fields';
import { PolicyRuleInputDto } from './admin-policy-dry-run.dto';

/** The largest version number the table holds (a PostgreSQL integer). */
const VERSION_MAX = 2_147_483_647;

/** The media type of a policy file: the same fields as the JSON body. */
export const POLICY_YAML = 'application/yaml';
/** The media types a policy file may come as; application/yaml is the registered one (RFC 9512). */
export const POLICY_YAML_TYPES: readonly string[] = [POLICY_YAML, 'application/x-yaml', 'text/yaml'];
/** The one path that takes a policy file (PUT /admin/policy), where configureHttpApp parses one. */
export const POLICY_FILE_PATH = '/admin/policy';
export const POLICY_FORMATS = ['json', 'yaml'] as const;
export type PolicyFormat = (typeof POLICY_FORMATS)[number];

/** `PUT /admin/policy`, as JSON or as a YAML file (application/yaml) with the same two fields. */
export class ChangePolicyRequestDto {
  @ApiProperty({
    type: [PolicyRuleInputDto],
    maxItems: POLICY_RULES_MAX,
    description: 'The whole new policy, in the order evaluation reads it; an empty list allows every call',
  })
  // readPolicy reads it and names every problem at once (see PolicyRuleInputDto).
  @Allow()
  rules!: unknown;

  @ApiProperty({
    minLength: 1,
    maxLength: POLICY_REASON_MAX_CHARS,
    example: 'Outreach may only write to our customers’ domains from now on',
    description: 'Why: kept with the version and in its audit row',
  })
  @Length(1, POLICY_REASON_MAX_CHARS, { message: `reason must be 1 to ${POLICY_REASON_MAX_CHARS} characters` })
  @IsString({ message: 'reason must be text' })
  reason!: string;
}

/** `?format` of the routes that answer with a policy. */
export class PolicyFormatQueryDto {
  @ApiPropertyOptional({
    enum: POLICY_FORMATS,
    description: `yaml: the rules as a policy file (${POLICY_YAML}), as \`Accept: ${POLICY_YAML}\` asks too; json by default`,
  })
  @Optional()
  @IsIn(POLICY_FORMATS, { message: `format must be one of ${POLICY_FORMATS.join(', ')}` })
  format?: PolicyFormat;
}

export class PolicyVersionPathDto {
  @ApiProperty({ minimum: 0, maximum: VERSION_MAX, example: 3, description: 'The version; 0 is the built-in policy' })
  @ToInteger()
  @Max(VERSION_MAX, { message: `version must be a whole number from 0 to ${VERSION_MAX}` })
  @Min(0, { message: `version must be a whole number from 0 to ${VERSION_MAX}` })
  @IsInt({ message: 'version must be a whole number' })
  version!: number;
}

/** One version of the policy, with its rules. */
export class PolicyVersionDto {
  @ApiProperty({ example: 3, description: 'Stored versions are 1, 2, … in the order they were saved; 0 is the built-in policy' })
  version!: number;

  @ApiProperty({ description: 'True for version 0: the rules the server holds, in force until an admin stores a policy' })
  builtIn!: boolean;

  @ApiProperty({ type: [PolicyRuleInputDto], description: 'The rules, in the order evaluation reads them' })
  rules!: PolicyRuleInputDto[];

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', format: 'uuid' },
    example: { 'ann@example.com': '3f2b9c1e-8d4a-4e6b-9a7c-1d2e3f4a5b6c' },
    description:
      "The account each email the rules name was when the version was stored (email → account id): what every server reads the rules' " +
      '`people` as, whatever has become of the accounts since; `rules` keep the emails as written. Empty for version 0',
  })
  people!: Record<string, string>;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The admin who stored it; null for version 0' })
  authorId!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The admin's email when they stored it; null for version 0" })
  authorEmail!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Why, in their words; null for version 0' })
  reason!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When it was stored; null for version 0' })
  createdAt!: string | null;

  static of(view: PolicyVersionView): PolicyVersionDto {
    return {
      version: view.version,
      builtIn: view.builtIn,
      rules: view.document.rules as unknown as PolicyRuleInputDto[],
      people: { ...view.people },
      authorId: view.authorId,
      authorEmail: view.authorEmail,
      reason: view.reason,
      createdAt: view.createdAt?.toISOString() ?? null,
    };
  }
}

/** A stored version in a list: who, when, why, and how many rules. */
export class PolicyVersionSummaryDto {
  @ApiProperty({ example: 3 })
  version!: number;

  @ApiProperty({ example: 4, description: 'How many rules it has (GET /admin/policy/versions/{version} lists them)' })
  rules!: number;

  @ApiProperty({ format: 'uuid', description: 'The admin who stored it' })
  authorId!: string;

  @ApiProperty({ description: "The admin's email when they stored it" })
  authorEmail!: string;

  @ApiProperty({ description: 'Why, in their words' })
  reason!: string;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  static of(summary: PolicyVersionSummary): PolicyVersionSummaryDto {
    return { ...summary, createdAt: summary.createdAt.toISOString() };
  }
}

export class PolicyVersionPageDto {
  @ApiProperty({ type: [PolicyVersionSummaryDto], description: 'Newest first; version 0, the built-in policy, is not listed' })
  items!: PolicyVersionSummaryDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the older versions' })
  nextCursor!: string | null;
}
