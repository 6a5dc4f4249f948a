import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import type { EscalatedDraft } from '../../../application/outreach/ports/outreach-draft-store.port';
import { DraftResponseDto } from '../outreach/draft.dto';

export class EscalatedDraftPathDto {
  @ApiProperty({ format: 'uuid', description: 'An escalated draft, of any owner' })
  @IsUUID(undefined, { message: 'draftId must be a UUID' })
  draftId!: string;
}

/** A draft in the admins' review queue: the owner's draft as the owner reads it, and whose it is. */
export class EscalatedDraftResponseDto extends DraftResponseDto {
  @ApiProperty({ format: 'uuid', description: 'The campaign owner whose review it was' })
  ownerId!: string;

  @ApiProperty({ type: String, nullable: true, description: "The owner's email; null when the account no longer exists" })
  ownerEmail!: string | null;

  static ofEscalated(draft: EscalatedDraft): EscalatedDraftResponseDto {
    return { ...DraftResponseDto.of(draft), ownerId: draft.ownerId, ownerEmail: draft.ownerEmail };
  }
}

export class EscalatedDraftPageDto {
  @ApiProperty({ type: [EscalatedDraftResponseDto], description: 'The latest escalated first' })
  items!: EscalatedDraftResponseDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page' })
  nextCursor!: string | null;
}
