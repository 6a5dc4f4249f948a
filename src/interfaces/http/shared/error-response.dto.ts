import { ApiProperty } from '@nestjs/swagger';
import { type ErrorCode, ERROR_CODES } from './error-codes';

export class ErrorResponseDto {
  @ApiProperty({ example: 400 })
  statusCode!: number;

  @ApiProperty({
    enum: ERROR_CODES,
    enumName: 'ErrorCode',
    example: 'VALIDATION.FAILED',
    description: 'Stable machine-readable error code; each response names the ones it gives',
  })
  code!: ErrorCode;

  @ApiProperty({ example: 'title must be 1 to 200 characters long' })
  message!: string;

  @ApiProperty({ example: '6f1c2b8e-6a43-4c1e-9a55-3f0f6f0a7f0e', description: 'Equals the X-Request-Id response header' })
  correlationId!: string;
}
