import { ApiProperty } from '@nestjs/swagger';
import { IsString, IsUUID, MaxLength } from 'class-validator';
import { DO_NOT_CONTACT_KINDS, type DoNotContactEntry, type DoNotContactKind } from '../../../domain/outreach/do-not-contact';
import { UserPathDto } from '../todo/task.dto';

export class DoNotContactPathDto extends UserPathDto {
  @ApiProperty({ format: 'uuid', description: "An entry of the user's do-not-contact list" })
  @IsUUID(undefined, { message: 'entryId must be a UUID' })
  entryId!: string;
}

export class DoNotContactRequestDto {
  @ApiProperty({
    example: 'ada@example.com',
    description: 'An email address or a https://www.linkedin.com/in/<name>/ profile URL',
    maxLength: 254,
  })
  @MaxLength(254)
  @IsString()
  value!: string;
}

export class DoNotContactEntryDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ enum: DO_NOT_CONTACT_KINDS })
  kind!: DoNotContactKind;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'ada@example.com',
    description:
      'Canonical form: lower-case email, https://www.linkedin.com/in/<name>/. Null for an erased address: an erasure of the ' +
      'person keeps the entry as a keyed hash, still checked before every contact, never shown',
  })
  value!: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt!: string;

  static of(entry: DoNotContactEntry): DoNotContactEntryDto {
    return { id: entry.id, kind: entry.kind, value: entry.value, createdAt: entry.createdAt.toISOString() };
  }
}
