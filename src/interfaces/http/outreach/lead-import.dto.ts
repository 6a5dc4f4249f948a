import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, ArrayMaxSize, ArrayMinSize, IsArray, ValidateNested } from 'class-validator';
import { LEAD_IMPORT_MAX, type LeadImportReport } from '../../../application/outreach/campaigns/import-leads.use-case';
import { LEAD_NAME_MAX_LENGTH } from '../../../domain/outreach/lead';

/**
 * Checked by the import use case, which names the lead that is wrong (`leads[3]: …`);
 * `@Allow` only admits the fields, so that any other is refused by name.
 */
export class LeadInputDto {
  @ApiProperty({ example: 'Ada Lovelace', minLength: 1, maxLength: LEAD_NAME_MAX_LENGTH })
  @Allow()
  name!: string;

  @ApiProperty({ example: 'https://www.linkedin.com/in/ada-lovelace/', description: 'https://www.linkedin.com/in/<name>/' })
  @Allow()
  linkedinUrl!: string;

  @ApiPropertyOptional({ type: String, format: 'email', nullable: true, example: 'ada@example.com' })
  @Allow()
  email?: string | null;
}

export class ImportLeadsRequestDto {
  @ApiProperty({ type: [LeadInputDto], minItems: 1, maxItems: LEAD_IMPORT_MAX })
  @ValidateNested({ each: true })
  @Type(() => LeadInputDto)
  @ArrayMaxSize(LEAD_IMPORT_MAX)
  @ArrayMinSize(1)
  @IsArray()
  leads!: LeadInputDto[];

  @ApiPropertyOptional({
    type: [String],
    example: ['ScrapeProfile', 'SendLinkedInMessage', 'SendEmail'],
    description:
      'The task types each new lead gets, in order: built-in ones and those of the channels in service (checked by the ' +
      'import, 400 naming steps[n]). Default: ScrapeProfile, SendLinkedInMessage, SendEmail. An email step is skipped for a lead without email.',
  })
  @Allow()
  steps?: unknown;
}

export class LeadDuplicateDto {
  @ApiProperty({ type: Number, nullable: true, description: 'The CSV line; null for JSON' })
  line!: number | null;

  @ApiProperty({ example: 'https://www.linkedin.com/in/ada-lovelace/', description: 'Canonical form' })
  linkedinUrl!: string;
}

export class LeadRowErrorDto {
  @ApiProperty({ example: 7, description: 'The CSV line where the row starts, counting the header as line 1' })
  line!: number;

  @ApiProperty({ type: String, nullable: true, example: 'linkedinUrl', description: 'null when the whole row or file is wrong' })
  field!: string | null;

  @ApiProperty({ example: 'linkedinUrl must look like https://www.linkedin.com/in/<name>/' })
  message!: string;
}

export class LeadImportReportDto {
  @ApiProperty({ description: 'Leads added, each with its tasks' })
  imported!: number;

  @ApiProperty({ type: [LeadDuplicateDto], description: 'Profiles the campaign already had (or the request repeated): skipped' })
  duplicates!: LeadDuplicateDto[];

  @ApiProperty({ type: [LeadRowErrorDto], description: 'CSV rows not imported; always empty for JSON' })
  errors!: LeadRowErrorDto[];

  static of(report: LeadImportReport): LeadImportReportDto {
    return {
      imported: report.imported,
      duplicates: report.duplicates.map((duplicate) => ({ ...duplicate })),
      errors: report.errors.map((error) => ({ ...error })),
    };
  }
}
