import { ApiProperty } from '@nestjs/swagger';
import type { CampaignDetails, KindUsage, ScopeUsage } from '../../../application/outreach/campaigns/get-campaign.use-case';
import { CampaignResponseDto } from './campaign.dto';

export class TaskCountsDto {
  @ApiProperty() Pending!: number;
  @ApiProperty() InProgress!: number;
  @ApiProperty({ description: 'Held as drafts for review' }) AwaitingReview!: number;
  @ApiProperty() Completed!: number;
  @ApiProperty() Failed!: number;
  @ApiProperty() Cancelled!: number;
}

export class WeekUseDto {
  @ApiProperty({ description: 'Slots taken in the rolling week: today and the 6 days before' })
  used!: number;

  @ApiProperty({ type: Number, nullable: true, description: 'The weekly limit; null: none in this scope' })
  limit!: number | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'At the limit: the UTC midnight when the next slot frees (its oldest counted day leaves the week); null while there is room',
  })
  freesAt!: string | null;
}

export class QuotaUseDto {
  @ApiProperty({ description: 'Slots taken today (an action that may have happened keeps its slot)' })
  used!: number;

  @ApiProperty()
  limit!: number;

  @ApiProperty({ type: WeekUseDto, description: "The rolling week's use against the weekly limit" })
  week!: WeekUseDto;
}

export class KindUsageDto {
  @ApiProperty({ type: QuotaUseDto, description: "This campaign's use against its own limit" })
  campaign!: QuotaUseDto;

  @ApiProperty({ type: QuotaUseDto, description: "The owner's use across all campaigns against the owner's limit" })
  owner!: QuotaUseDto;

  @ApiProperty({ description: 'What the campaign may still do today: the smallest room of any limit, daily or weekly, in either scope' })
  remaining!: number;
}

export class KindsUsageDto {
  @ApiProperty({ type: KindUsageDto }) profile_lookup!: KindUsageDto;
  @ApiProperty({ type: KindUsageDto }) linkedin_message!: KindUsageDto;
  @ApiProperty({ type: KindUsageDto }) email!: KindUsageDto;
}

export class CampaignUsageDto {
  @ApiProperty({ format: 'date', example: '2026-11-22', description: 'The UTC day counted' })
  day!: string;

  @ApiProperty({ type: String, format: 'date-time', description: 'The next UTC midnight' })
  resetsAt!: string;

  @ApiProperty({ format: 'date', example: '2026-11-16', description: 'The first UTC day the rolling week counts (6 days before day)' })
  weekFrom!: string;

  @ApiProperty({ type: KindsUsageDto })
  kinds!: KindsUsageDto;
}

export class CampaignDetailsResponseDto extends CampaignResponseDto {
  @ApiProperty({ description: 'Leads imported' })
  leads!: number;

  @ApiProperty({ type: TaskCountsDto, description: 'Tasks by status' })
  tasks!: TaskCountsDto;

  @ApiProperty({ type: CampaignUsageDto, description: "Today's and the rolling week's quota use, and what remains" })
  usage!: CampaignUsageDto;

  static ofDetails(details: CampaignDetails): CampaignDetailsResponseDto {
    const { counts, usage } = details;
    return {
      ...CampaignResponseDto.of(details.campaign),
      leads: counts.leads,
      tasks: { ...counts.tasks },
      usage: { day: usage.day, resetsAt: usage.resetsAt.toISOString(), weekFrom: usage.weekFrom, kinds: kindsUsageOf(usage.kinds) },
    };
  }
}

function kindsUsageOf(kinds: CampaignDetails['usage']['kinds']): KindsUsageDto {
  const scope = (use: ScopeUsage): QuotaUseDto => ({
    used: use.used,
    limit: use.limit,
    week: { used: use.week.used, limit: use.week.limit, freesAt: use.week.freesAt?.toISOString() ?? null },
  });
  const kind = (usage: KindUsage): KindUsageDto => ({
    campaign: scope(usage.campaign),
    owner: scope(usage.owner),
    remaining: usage.remaining,
  });
  return { profile_lookup: kind(kinds.profile_lookup), linkedin_message: kind(kinds.linkedin_message), email: kind(kinds.email) };
}
