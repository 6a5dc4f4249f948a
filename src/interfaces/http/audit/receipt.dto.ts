import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import type { DigestLine } from '../../../domain/audit/checkpoint';
import type { Receipt } from '../../../domain/audit/receipt';
import { Optional, ToInteger } from '../shared/fields';
import { PageQueryDto } from '../shared/page-query.dto';
import { UserPathDto } from '../todo/task.dto';
import type { AuditRecord } from '../../../application/audit/ports/audit-reader.port';

export class ReceiptQueryDto {
  @ApiPropertyOptional({ description: "A checkpoint's tree size to prove against; the newest checkpoint's when absent", minimum: 1 })
  @Optional()
  @ToInteger()
  @Max(Number.MAX_SAFE_INTEGER, { message: 'treeSize must be at most 2^53 − 1' })
  @Min(1, { message: 'treeSize must be 1 or more' })
  @IsInt({ message: 'treeSize must be a whole number' })
  treeSize?: number;
}

export class PersonalReceiptQueryDto extends ReceiptQueryDto {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: "Include the salt and the row's personal fields (arguments, result, error message), which open its commitment",
  })
  @Optional()
  @IsIn(['true', 'false'], { message: 'personal must be true or false' })
  personal?: 'true' | 'false';
}

export class ReceiptDto implements Receipt {
  @ApiProperty({ enum: ['bridle-receipt/v1'] })
  format!: 'bridle-receipt/v1';
  @ApiProperty({ description: "The row's sequence number" })
  seq!: number;
  @ApiProperty({ enum: ['committed', 'legacy', 'erased-legacy'], description: 'How the link hashes the row (docs/audit-log.md#receipts)' })
  form!: Receipt['form'];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The exact text the link hashes; null for an erased row from before commitments',
  })
  canonical!: string | null;
  @ApiProperty({ type: Object, nullable: true, description: "canonical, parsed: the row's public fields and its commitment (personal)" })
  row!: Record<string, unknown> | null;
  @ApiProperty({ type: Object, nullable: true, description: '{at, by} when the row was erased' })
  erased!: Receipt['erased'];
  @ApiProperty({ type: Object, description: '{position, prevHash, hash, rule}' })
  link!: Receipt['link'];
  @ApiProperty({ type: Object, description: '{index, hash (base64), rule}' })
  leaf!: Receipt['leaf'];
  @ApiProperty({ type: Object, description: '{treeSize, proof}: RFC 9162 inclusion path, base64' })
  inclusion!: Receipt['inclusion'];
  @ApiProperty({ type: Object, description: 'The checkpoint as a digest line, with its v1 signature, root and C2SP signed note' })
  checkpoint!: DigestLine;
  @ApiPropertyOptional({
    type: Object,
    description: 'Asked for by the row’s own person: {salt, text, arguments, result, errorMessage, rule}',
  })
  personal?: Receipt['personal'];
}

export class OwnAuditRowDto {
  @ApiProperty() seq!: number;
  @ApiProperty() createdAt!: string;
  @ApiProperty() source!: string;
  @ApiProperty() tool!: string;
  @ApiProperty() status!: string;
  @ApiProperty({ enum: ['linked', 'queued', 'outside'], description: 'A receipt needs a linked row under a checkpoint' })
  chain!: string;

  static of(row: AuditRecord): OwnAuditRowDto {
    return {
      seq: row.seq,
      createdAt: row.createdAt.toISOString(),
      source: row.source,
      tool: row.tool,
      status: row.status,
      chain: row.chain,
    };
  }
}

export class OwnAuditRowPageDto {
  @ApiProperty({ type: [OwnAuditRowDto] }) items!: OwnAuditRowDto[];
  @ApiProperty({ type: String, nullable: true }) nextCursor!: string | null;
}

export class OwnAuditRowsQueryDto extends PageQueryDto {}

export class ReceiptPathDto extends UserPathDto {
  @ApiProperty({ description: 'The row sequence number', minimum: 1, example: 42 })
  @ToInteger()
  @Max(Number.MAX_SAFE_INTEGER)
  @Min(1)
  @IsInt({ message: 'seq must be a whole number' })
  seq!: number;
}
