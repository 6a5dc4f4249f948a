import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import type { ConsistencyProofAnswer, InclusionProofAnswer } from '../../../application/audit/audit-proofs.use-case';
import { Optional, ToInteger } from '../shared/fields';

export class InclusionProofQueryDto {
  @ApiProperty({ description: "The row's position in the chain (its link), from 1", minimum: 1, example: 42 })
  @ToInteger()
  @Max(Number.MAX_SAFE_INTEGER, { message: 'position must be at most 2^53 − 1' })
  @Min(1, { message: 'position must be 1 or more' })
  @IsInt({ message: 'position must be a whole number' })
  position!: number;

  @ApiPropertyOptional({ description: "A checkpoint's tree size (its position); the newest checkpoint's when absent", minimum: 1 })
  @Optional()
  @ToInteger()
  @Max(Number.MAX_SAFE_INTEGER, { message: 'treeSize must be at most 2^53 − 1' })
  @Min(1, { message: 'treeSize must be 1 or more' })
  @IsInt({ message: 'treeSize must be a whole number' })
  treeSize?: number;
}

export class ConsistencyProofQueryDto {
  @ApiProperty({ description: "The older checkpoint's tree size", minimum: 1 })
  @ToInteger()
  @Max(Number.MAX_SAFE_INTEGER, { message: 'from must be at most 2^53 − 1' })
  @Min(1, { message: 'from must be 1 or more' })
  @IsInt({ message: 'from must be a whole number' })
  from!: number;

  @ApiProperty({ description: "The newer checkpoint's tree size", minimum: 1 })
  @ToInteger()
  @Max(Number.MAX_SAFE_INTEGER, { message: 'to must be at most 2^53 − 1' })
  @Min(1, { message: 'to must be 1 or more' })
  @IsInt({ message: 'to must be a whole number' })
  to!: number;
}

export class InclusionProofDto implements InclusionProofAnswer {
  @ApiProperty({ description: "The row's chain position" })
  position!: number;
  @ApiProperty({ description: "The row's sequence number" })
  seq!: number;
  @ApiProperty({ description: "The link's hash (hex): the leaf's data" })
  linkHash!: string;
  @ApiProperty({ description: 'position − 1' })
  leafIndex!: number;
  @ApiProperty({ description: "The checkpoint's tree size" })
  treeSize!: number;
  @ApiProperty({ description: 'SHA-256(0x00 ‖ link hash), base64' })
  leafHash!: string;
  @ApiProperty({ type: [String], description: 'RFC 9162 inclusion path, base64, the leaf’s sibling first' })
  proof!: string[];
  @ApiProperty({ description: "The tree's root, base64" })
  rootHash!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The checkpoint as a C2SP signed note (tlog-checkpoint body, Ed25519); null for a checkpoint from before the tree',
  })
  checkpoint!: string | null;

  static of(answer: InclusionProofAnswer): InclusionProofDto {
    return { ...answer, proof: [...answer.proof] };
  }
}

export class ConsistencyProofDto implements ConsistencyProofAnswer {
  @ApiProperty()
  from!: number;
  @ApiProperty()
  to!: number;
  @ApiProperty({ type: [String], description: 'RFC 9162 consistency proof, base64; empty when from equals to' })
  proof!: string[];
  @ApiProperty({ type: String, nullable: true, description: "The older checkpoint's signed note" })
  fromCheckpoint!: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The newer checkpoint's signed note" })
  toCheckpoint!: string | null;

  static of(answer: ConsistencyProofAnswer): ConsistencyProofDto {
    return { ...answer, proof: [...answer.proof] };
  }
}
