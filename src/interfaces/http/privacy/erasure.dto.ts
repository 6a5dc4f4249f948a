import { ApiProperty } from '@nestjs/swagger';
import { IsString, IsUUID, MaxLength } from 'class-validator';
import type { ErasureCounts } from '../../../domain/privacy/erasure';
import { CampaignPathDto } from '../outreach/campaign.dto';

export class LeadPathDto extends CampaignPathDto {
  @ApiProperty({ format: 'uuid', description: "One of the campaign's leads" })
  @IsUUID(undefined, { message: 'leadId must be a UUID' })
  leadId!: string;
}

export class AdminLeadPathDto {
  @ApiProperty({ format: 'uuid', description: 'Any campaign' })
  @IsUUID(undefined, { message: 'campaignId must be a UUID' })
  campaignId!: string;

  @ApiProperty({ format: 'uuid', description: "One of the campaign's leads" })
  @IsUUID(undefined, { message: 'leadId must be a UUID' })
  leadId!: string;
}

export class AccountPathDto {
  @ApiProperty({ format: 'uuid', description: 'The account to erase' })
  @IsUUID(undefined, { message: 'userId must be a UUID' })
  userId!: string;
}

export class EraseEmailRequestDto {
  @ApiProperty({ example: 'jane@example.com', description: 'Compared in canonical form: Jane@Example.COM is jane@example.com' })
  @IsString({ message: 'email must be a string' })
  @MaxLength(320, { message: 'email must be at most 320 characters' })
  email!: string;
}

/** How many rows an erasure touched, per place: never the data. */
export class ErasureCountsDto {
  @ApiProperty({ description: 'Audit rows whose personal fields were emptied; their links and public fields stay' })
  auditRows!: number;
  @ApiProperty({ description: 'Decision-log rows whose text was emptied' })
  decisionLogs!: number;
  @ApiProperty({ description: 'Chat messages and summaries elsewhere that named them, emptied' })
  messages!: number;
  @ApiProperty({ description: 'Leads deleted with their tasks, actions and drafts' })
  leads!: number;
  @ApiProperty({ description: 'Accounts deleted with their conversations, campaigns, tasks and tokens' })
  accounts!: number;
  @ApiProperty({ description: 'Other records deleted: pending confirmations, MCP input requests, sandbox channel records' })
  other!: number;
  @ApiProperty({
    description:
      'Do-not-contact entries (on any list) of the erased addresses and profile URLs, now kept as a keyed hash: the person is ' +
      'still never contacted, and the value is gone',
  })
  doNotContact!: number;

  static of(counts: ErasureCounts): ErasureCountsDto {
    return { ...counts };
  }
}
