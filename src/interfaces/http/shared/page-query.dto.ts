import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { PAGE_LIMIT_MAX } from '../../../domain/shared/pagination';
import { Optional, ToInteger } from './fields';

/** The default page size of every paged list. */
export const PAGE_LIMIT_DEFAULT = 20;

/** `?limit&cursor` of every paged list. */
export class PageQueryDto {
  @ApiPropertyOptional({
    minimum: 1,
    maximum: PAGE_LIMIT_MAX,
    default: PAGE_LIMIT_DEFAULT,
    description: 'How many items a page holds at most',
  })
  @Optional()
  @ToInteger()
  @Max(PAGE_LIMIT_MAX)
  @Min(1)
  @IsInt({ message: 'limit must be a whole number' })
  limit?: number;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page' })
  @Optional()
  @MaxLength(200)
  @IsString()
  cursor?: string;
}
