import { ApiProperty } from '@nestjs/swagger';

/** The contract's Error object, as every error response carries it. */
export class ErrorBodyDto {
  @ApiProperty({ example: '9000', description: 'Stable code; the catalogue is docs/errors.md.' })
  error_code: string;

  @ApiProperty({ example: 'validation', description: 'Group of the error.' })
  error_type: string;

  @ApiProperty({
    example: 'Validation failed.',
    description: 'Human-readable; several reasons are sentences, each ending with a dot. Branch on the code.',
  })
  error_message: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: {},
    description: 'For validation errors: dotted field path to messages. For 5xx: the request id.',
  })
  error_details: Record<string, unknown>;
}

/** 429 wraps the Error object in `detail`. */
export class RateLimitErrorDto {
  @ApiProperty({ type: ErrorBodyDto })
  detail: ErrorBodyDto;
}
