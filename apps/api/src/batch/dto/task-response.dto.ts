import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { TASK_STATUSES, type TaskStatus } from '@app/database';
import {
  RETRYING_SHOWN,
  type TaskError,
  type TaskInputInfo,
  type TaskPause,
  type TaskProgress,
  type TaskResult,
  type TaskRetry,
  type TaskView,
} from '@app/editing';
import { EditNoticeDto, ImageInfoDto, OutputImageInfoDto } from '../../image-edit/dto/edit-response.dto';

export class TaskInputInfoDto extends ImageInfoDto implements TaskInputInfo {
  @ApiProperty({
    description:
      'The input as listed (URL or storage reference). When its header could not be read, the ImageInfo fields are empty or 0.',
    example: 'storage://catalogue/raw/shoe.jpg',
  })
  input: string;
}

export class TaskResultDto implements TaskResult {
  @ApiProperty({ type: TaskInputInfoDto })
  input_object: TaskInputInfoDto;

  @ApiProperty({ type: OutputImageInfoDto })
  output_object: OutputImageInfoDto;

  @ApiPropertyOptional({
    type: [EditNoticeDto],
    description:
      "As an edit's `notices` (an extension): present only when an operation asked for left the image as it was.",
  })
  notices?: EditNoticeDto[];
}

export class TaskErrorDto implements TaskError {
  @ApiProperty({ example: 'The input image cannot be decoded: ...' })
  error: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: TaskInputInfoDto })
  input_object: TaskInputInfoDto;
}

export class TaskProgressDto implements TaskProgress {
  @ApiProperty({
    description:
      'Images of the task. A list of files or URLs (or one file) counts from the first answer on; a folder counts the images listed so far, final once it is listed.',
  })
  total: number;

  @ApiProperty()
  done: number;

  @ApiProperty()
  failed: number;

  @ApiProperty({
    description:
      'Images whose last run failed for a reason that may pass (network, timeout, 5xx) and that run again after a pause (TASK_ATTEMPTS runs at most); counted among neither done nor failed. 0 once the task is final. An extension.',
    example: 0,
  })
  retrying: number;

  @ApiPropertyOptional({
    description:
      'On a CANCELLED task only: its images a cancellation dropped (DELETE on the task, or its key revoked), which never ran. An extension.',
    example: 12,
  })
  cancelled?: number;
}

/** An image in retry: its input, the runs so far and why the last one failed. */
export class TaskRetryDto implements TaskRetry {
  @ApiProperty({ description: 'The input as the request named it.', example: 'https://images.example.com/shoe.jpg' })
  input: string;

  @ApiProperty({ description: 'Runs started so far, a run in progress included.', example: 2 })
  attempts: number;

  @ApiProperty({
    description:
      "Why the last run failed: the text `errors` shows if the image fails for good (no URL's query or credentials).",
    example: 'The URL answered HTTP 503.',
  })
  error: string;
}

/** Why a task is PAUSED, and since when. */
export class TaskPauseDto implements TaskPause {
  @ApiProperty({
    description: 'Which output store fails, with its failure, and what happens next (resume, or ERROR by a time).',
    example:
      'Paused: the output storage "out2" failed several writes in a row (The storage cannot be reached). The task resumes by itself once the store answers again; its images not written by 2026-11-28T19:00:00.000Z then end in ERROR.',
  })
  reason: string;

  @ApiProperty({ format: 'date-time', description: 'When the task was paused.' })
  since: string;
}

export class TaskDto implements TaskView {
  @ApiProperty({ example: 42 })
  id: number;

  @ApiProperty({
    enum: TASK_STATUSES,
    description:
      "ACCEPTED -> PROCESSING -> DONE | ERROR, or CANCELLED from any status before (DELETE on the task, or its key revoked); never backwards, except PROCESSING <-> PAUSED: PAUSED while its output store fails (see `pause`), back to PROCESSING once the store answers again. ERROR: the task could not run (missing or empty folder, the key's quota spent) or an image failed.",
  })
  status: TaskStatus;

  @ApiProperty({ example: 'http://localhost:3000/v1/image/edit/batch/42' })
  result_url: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  finished_at: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The request body as sent.' })
  request: Record<string, unknown>;

  @ApiProperty({ type: TaskProgressDto })
  progress: TaskProgressDto;

  @ApiPropertyOptional({ type: TaskPauseDto, description: 'On a PAUSED task only: why, and since when.' })
  pause?: TaskPauseDto;

  @ApiProperty({ type: [TaskErrorDto], description: 'Every image that failed (and why a task could not run).' })
  errors: TaskErrorDto[];

  @ApiProperty({ type: [TaskResultDto], description: 'Every image that succeeded, also when the status is ERROR.' })
  results: TaskResultDto[];

  @ApiProperty({
    type: [TaskRetryDto],
    description: `Images in retry (\`progress.retrying\` of them), the first ${RETRYING_SHOWN} in input order; empty once the task is final. An extension.`,
  })
  retrying: TaskRetryDto[];

  @ApiPropertyOptional({
    type: TaskResultDto,
    description:
      'Asynchronous edits only: the one result once done; absent while ACCEPTED or PROCESSING and when the edit failed (never null, never `{}`). Batch tasks have no `result`: their answer is `results`.',
  })
  result?: TaskResultDto;
}
