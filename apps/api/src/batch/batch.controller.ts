import type { Readable } from 'node:stream';
import { Body, Controller, Get, Header, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ParseIdPipe, RawResponse } from '@app/common';
import { JSON_CONTENT_TYPE, TaskBodies, TaskService } from '@app/editing';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { RequireScopes } from '../auth/require-scopes.decorator';
import { ApiEnvelope } from '../openapi/api-envelope.decorator';
import { ApiErrorResponse } from '../openapi/api-errors.decorator';
import { AsyncEditRequestDto, BatchRequestDto } from './dto/task-request.dto';
import { TaskDto } from './dto/task-response.dto';

const ApiTaskNotFound = () =>
  ApiErrorResponse(['TASK_NOT_FOUND'], 'No task of this kind with this id in your account.');
/** The 422s of a task request besides the schema's: a storage it names, and its webhook URL. */
const ApiTaskRefused = () =>
  ApiErrorResponse(
    ['STORAGE_REFERENCE_INVALID', 'WEBHOOK_URL_REFUSED'],
    'A storage reference names no storage of your account, or the address policy refuses `webhook_url`.',
  );

/**
 * Batch and asynchronous edits (scope `image_editing`): create a task, read it by id. A task read by id is
 * streamed, already enveloped, page by page from the database (TaskBodies): its size does not weigh on memory.
 */
@ApiTags('Image editing')
@Controller('v1/image/edit')
@RequireScopes('image_editing')
export class BatchController {
  constructor(
    private readonly tasks: TaskService,
    private readonly bodies: TaskBodies,
  ) {}

  @Post('batch')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Edit a folder or a list of images in the background',
    description:
      'Answers at once with the task (`ACCEPTED`); read its progress and results with GET by id or at `result_url`.',
  })
  @ApiBody({ type: BatchRequestDto })
  @ApiEnvelope(TaskDto)
  @ApiTaskRefused()
  createBatch(@Body() body: unknown, @CurrentPrincipal() caller: Principal): Promise<TaskDto> {
    return this.tasks.create(caller.accountId, 'batch', body);
  }

  @Get('batch/:id')
  @ApiOperation({ summary: 'A batch task: status, progress, results and errors' })
  @ApiEnvelope(TaskDto)
  @ApiTaskNotFound()
  @RawResponse()
  @Header('content-type', JSON_CONTENT_TYPE)
  getBatch(
    @Param('id', new ParseIdPipe('task_id')) id: number,
    @CurrentPrincipal() caller: Principal,
  ): Promise<Readable> {
    return this.bodies.open(caller.accountId, 'batch', id);
  }

  @Post('async')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Edit one image in the background',
    description: 'The body of POST /v1/image/edit (plus `webhook_url`); answers at once with the task.',
  })
  @ApiBody({ type: AsyncEditRequestDto })
  @ApiEnvelope(TaskDto)
  @ApiTaskRefused()
  createAsync(@Body() body: unknown, @CurrentPrincipal() caller: Principal): Promise<TaskDto> {
    return this.tasks.create(caller.accountId, 'async', body);
  }

  @Get('async/:id')
  @ApiOperation({ summary: 'An asynchronous edit: its task, with `result` once done' })
  @ApiEnvelope(TaskDto)
  @ApiTaskNotFound()
  @RawResponse()
  @Header('content-type', JSON_CONTENT_TYPE)
  getAsync(
    @Param('id', new ParseIdPipe('task_id')) id: number,
    @CurrentPrincipal() caller: Principal,
  ): Promise<Readable> {
    return this.bodies.open(caller.accountId, 'async', id);
  }
}
