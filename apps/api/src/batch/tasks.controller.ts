import { Controller, Delete, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ParseIdPipe } from '@app/common';
import { TaskService } from '@app/editing';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { RequireScopes } from '../auth/require-scopes.decorator';
import { ApiEnvelope } from '../openapi/api-envelope.decorator';
import { ApiErrorResponse } from '../openapi/api-errors.decorator';
import {
  PageQueryDto,
  pageOf,
  TaskErrorPageDto,
  TaskListQueryDto,
  TaskPageDto,
  TaskResultPageDto,
  TaskSummaryDto,
} from './dto/task-list.dto';

/** Results and errors per page unless asked otherwise: a page of thumbnails, a screenful of errors. */
const ITEMS_PER_PAGE = 50;
const TASKS_PER_PAGE = 20;

/**
 * The account's tasks, batch and asynchronous, page by page: a listing to browse, and a task's results and errors
 * in pages, so that a task of thousands of items is read without one huge body (GET by id still returns all).
 */
@ApiTags('Tasks')
@Controller('v1/tasks')
@RequireScopes('image_editing')
export class TasksController {
  constructor(private readonly tasks: TaskService) {}

  @Get()
  @ApiOperation({
    summary: "Your account's tasks, newest first",
    description: 'Batch tasks and asynchronous edits, with their progress.',
  })
  @ApiEnvelope(TaskPageDto)
  list(@Query() query: TaskListQueryDto, @CurrentPrincipal() caller: Principal): Promise<TaskPageDto> {
    const { page, perPage } = pageOf(query, TASKS_PER_PAGE);
    return this.tasks.list(caller.accountId, { status: query.status, kind: query.kind }, page, perPage);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'One task, without its items',
    description:
      'Its status and progress, cheap to poll whatever its size; its results and errors are the routes below.',
  })
  @ApiEnvelope(TaskSummaryDto)
  @ApiErrorResponse(['TASK_NOT_FOUND'], 'No task with this id in your account.')
  summary(
    @Param('id', new ParseIdPipe('task_id')) id: number,
    @CurrentPrincipal() caller: Principal,
  ): Promise<TaskSummaryDto> {
    return this.tasks.summary(caller.accountId, id);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Cancel a task of either kind',
    description:
      'Items not started are dropped, items being edited may finish; the task ends `CANCELLED` and its webhook, if any, is sent. Answers as GET does.',
  })
  @ApiEnvelope(TaskSummaryDto)
  @ApiErrorResponse(['TASK_NOT_FOUND'], 'No task with this id in your account.')
  @ApiErrorResponse(['TASK_ENDED'], 'The task has ended already.')
  async cancel(
    @Param('id', new ParseIdPipe('task_id')) id: number,
    @CurrentPrincipal() caller: Principal,
  ): Promise<TaskSummaryDto> {
    await this.tasks.cancel(caller.accountId, undefined, id);
    return this.tasks.summary(caller.accountId, id);
  }

  @Get(':id/results')
  @ApiOperation({ summary: "A page of a task's results" })
  @ApiEnvelope(TaskResultPageDto)
  @ApiErrorResponse(['TASK_NOT_FOUND'], 'No task with this id in your account.')
  async results(
    @Param('id', new ParseIdPipe('task_id')) id: number,
    @Query() query: PageQueryDto,
    @CurrentPrincipal() caller: Principal,
  ): Promise<TaskResultPageDto> {
    const { page, perPage } = pageOf(query, ITEMS_PER_PAGE);
    return (await this.tasks.itemsPage(caller.accountId, id, 'results', page, perPage)) as TaskResultPageDto;
  }

  @Get(':id/errors')
  @ApiOperation({ summary: "A page of a task's errors" })
  @ApiEnvelope(TaskErrorPageDto)
  @ApiErrorResponse(['TASK_NOT_FOUND'], 'No task with this id in your account.')
  async errors(
    @Param('id', new ParseIdPipe('task_id')) id: number,
    @Query() query: PageQueryDto,
    @CurrentPrincipal() caller: Principal,
  ): Promise<TaskErrorPageDto> {
    const { page, perPage } = pageOf(query, ITEMS_PER_PAGE);
    return (await this.tasks.itemsPage(caller.accountId, id, 'errors', page, perPage)) as TaskErrorPageDto;
  }
}
