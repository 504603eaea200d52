import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { TASK_STATUSES, type TaskStatus } from '@app/database';
import { TASK_KIND_NAMES, TASK_KINDS_DESCRIBED, type Page, type RecentFailure, type TaskSummary } from '@app/editing';
import { TaskErrorDto, TaskPauseDto, TaskProgressDto, TaskResultDto } from './task-response.dto';

const PAGE_RULE = { message: '$property must be a whole number from 1' };

/** `?page=&per_page=`: pages from 1; `per_page` 1..100 (checked by {@link pageOf}). */
export class PageQueryDto {
  @ApiPropertyOptional({ description: 'Page number, from 1.', default: 1, type: 'integer', minimum: 1 })
  @IsOptional()
  @Matches(/^[1-9]\d{0,8}$/, PAGE_RULE)
  page?: string;

  @ApiPropertyOptional({ description: 'Entries per page, 1 to 100.', type: 'integer', minimum: 1, maximum: 100 })
  @IsOptional()
  @Matches(/^([1-9]|[1-9]\d|100)$/, { message: '$property must be a whole number from 1 to 100' })
  per_page?: string;
}

export class TaskListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: TASK_STATUSES, description: 'Only tasks in this status.' })
  @IsOptional()
  @IsIn(TASK_STATUSES)
  status?: TaskStatus;

  @ApiPropertyOptional({ enum: TASK_KIND_NAMES, description: `Only tasks of this kind. ${TASK_KINDS_DESCRIBED}` })
  @IsOptional()
  @IsIn(TASK_KIND_NAMES)
  kind?: string;
}

/** The page a query asks for, with the route's default page size. */
export function pageOf(query: PageQueryDto, defaultPerPage: number): { page: number; perPage: number } {
  return { page: Number(query.page ?? 1), perPage: Number(query.per_page ?? defaultPerPage) };
}

export class TaskSummaryDto implements TaskSummary {
  @ApiProperty()
  id: number;

  @ApiProperty({ enum: TASK_KIND_NAMES, description: TASK_KINDS_DESCRIBED })
  kind: string;

  @ApiProperty({ enum: TASK_STATUSES })
  status: TaskStatus;

  @ApiProperty({ type: TaskProgressDto })
  progress: TaskProgressDto;

  @ApiPropertyOptional({ type: TaskPauseDto, description: 'On a PAUSED task only: why, and since when.' })
  pause?: TaskPauseDto;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  finished_at: string | null;

  @ApiProperty({ description: 'The task itself, with all its results and errors: GET this URL.' })
  result_url: string;
}

class PageDto {
  @ApiProperty({ example: 1 })
  page: number;

  @ApiProperty({ example: 20 })
  per_page: number;

  @ApiProperty({ description: 'Entries in all, on every page.', example: 57 })
  total: number;
}

export class TaskPageDto extends PageDto implements Page<TaskSummary> {
  @ApiProperty({ type: [TaskSummaryDto], description: 'Newest first.' })
  items: TaskSummaryDto[];
}

export class TaskResultPageDto extends PageDto implements Page<TaskResultDto> {
  @ApiProperty({ type: [TaskResultDto], description: "The task's results, in the order of its inputs." })
  items: TaskResultDto[];
}

export class TaskErrorPageDto extends PageDto implements Page<TaskErrorDto> {
  @ApiProperty({
    type: [TaskErrorDto],
    description: "The task's errors, in the order of its inputs (a task-level error first).",
  })
  items: TaskErrorDto[];
}

export class RecentFailureDto implements RecentFailure {
  @ApiProperty()
  task_id: number;

  @ApiProperty({ example: 'storage://catalogue/raw/broken.jpg' })
  input: string;

  @ApiProperty({ example: 'The input image cannot be decoded.' })
  error: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}
