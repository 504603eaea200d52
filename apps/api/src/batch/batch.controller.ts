import type { Readable } from 'node:stream';
import { applyDecorators, Body, Controller, Delete, Get, Header, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ParseIdPipe, RawResponse } from '@app/common';
import { asyncTaskKind, batchTaskKind, JSON_CONTENT_TYPE, TaskBodies, TaskService } from '@app/editing';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { RequireScopes, Uncounted } from '../auth/require-scopes.decorator';
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
/** A task route's answers to DELETE besides the task. */
const ApiTaskCancel = () =>
  applyDecorators(ApiTaskNotFound(), ApiErrorResponse(['TASK_ENDED'], 'The task has ended already.'));
/** The quota of a key is charged per image by these routes (docs/batch.md, "Quota"), not one call per request. */
const ChargedPerImage = () =>
  applyDecorators(
    Uncounted(),
    ApiErrorResponse(['QUOTA_EXHAUSTED'], "The key's calls left cannot cover the request's images (one per image)."),
    // One 429 per route in the document: the class's (RequireScopes) is replaced, so its codes are named again.
    ApiErrorResponse(
      ['RATE_LIMITED', 'ADDRESS_RATE_LIMITED', 'AUTH_FAILURES_LIMITED', 'ACTIVE_TASKS_LIMITED'],
      "Rate limit exceeded: the key's, the client address's, or the address's failed authentications; or the " +
        'account has TASK_ACTIVE_PER_ACCOUNT tasks that have not ended.',
    ),
  );

/**
 * Batch and asynchronous edits (scope `image_editing`): create a task, read it by id, cancel it. A task read by id
 * (or answered to its cancellation) is streamed, already enveloped, page by page from the database (TaskBodies):
 * its size does not weigh on memory.
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
  @ChargedPerImage()
  createBatch(@Body() body: unknown, @CurrentPrincipal() caller: Principal): Promise<TaskDto> {
    return this.tasks.create(caller, batchTaskKind, body);
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
    return this.bodies.open(caller.accountId, batchTaskKind, id);
  }

  @Delete('batch/:id')
  @ApiOperation({
    summary: 'Cancel a batch task',
    description:
      'Items not started are dropped (never run; `progress.cancelled` counts them), items being edited may finish; the task ends `CANCELLED` and its webhook, if any, is sent. Answers with the task.',
  })
  @ApiEnvelope(TaskDto)
  @ApiTaskCancel()
  @RawResponse()
  @Header('content-type', JSON_CONTENT_TYPE)
  async cancelBatch(
    @Param('id', new ParseIdPipe('task_id')) id: number,
    @CurrentPrincipal() caller: Principal,
  ): Promise<Readable> {
    await this.tasks.cancel(caller.accountId, batchTaskKind, id);
    return this.bodies.open(caller.accountId, batchTaskKind, id);
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
  @ChargedPerImage()
  createAsync(@Body() body: unknown, @CurrentPrincipal() caller: Principal): Promise<TaskDto> {
    return this.tasks.create(caller, asyncTaskKind, body);
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
    return this.bodies.open(caller.accountId, asyncTaskKind, id);
  }

  @Delete('async/:id')
  @ApiOperation({
    summary: 'Cancel an asynchronous edit',
    description: 'As DELETE on a batch task: the edit is dropped unless it has started; the task ends `CANCELLED`.',
  })
  @ApiEnvelope(TaskDto)
  @ApiTaskCancel()
  @RawResponse()
  @Header('content-type', JSON_CONTENT_TYPE)
  async cancelAsync(
    @Param('id', new ParseIdPipe('task_id')) id: number,
    @CurrentPrincipal() caller: Principal,
  ): Promise<Readable> {
    await this.tasks.cancel(caller.accountId, asyncTaskKind, id);
    return this.bodies.open(caller.accountId, asyncTaskKind, id);
  }
}
