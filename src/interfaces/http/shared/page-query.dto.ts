import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { PAGE_LIMIT_MAX } from '../../../domain/shared/pagination';

/** The default page size of every paged list. */
export const PAGE_LIMIT_DEFAULT = 20;

/** `?limit&cursor` of every paged list. */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: PAGE_LIMIT_MAX, default: PAGE_LIMIT_DEFAULT })
  @IsOptional()
  @Type(() => Number)
  @Max(PAGE_LIMIT_MAX)
  @Min(1)
  @IsInt()
  limit?: number;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page' })
  @IsOptional()
  @MaxLength(200)
  @IsString()
  cursor?: string;
}
