import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { ResizingDto } from './resizing.dto';

/**
 * The operations of one edit. Groups that hold a union (resizing, background) are walked by
 * operations.resolver.ts; every group is an object with no other members.
 */
export class OperationsDto {
  @ApiPropertyOptional({
    type: () => ResizingDto,
    description: 'Both width and height absent: the size is unchanged.',
  })
  @Allow()
  resizing?: ResizingDto;
}
