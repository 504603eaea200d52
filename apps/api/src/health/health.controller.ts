import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { REDIS, ServiceException, type RedisClient } from '@app/common';
import { DatabaseHealth } from '@app/database';
import { VisionCapabilities, type ModelState } from '@app/vision';
import { Public } from '../auth/require-scopes.decorator';
import { ApiErrorResponse } from '../openapi/api-errors.decorator';

type CheckResult = 'ok' | 'not_configured' | 'failing';

const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS).unref()),
  ]);
}

/** The probes' path: `/health/live` and `/health/ready`. */
export const HEALTH_PATH = 'health';

@ApiTags('Health')
@Public({ probe: true })
@Controller(HEALTH_PATH)
export class HealthController {
  constructor(
    private readonly database: DatabaseHealth,
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly vision: VisionCapabilities,
  ) {}

  @Get('live')
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiOkResponse({ schema: { example: { data: { status: 'ok' } } } })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    summary: 'Readiness: the database (and Redis, when configured) answer',
    description:
      '`models` gives the state of each vision model: `loaded`, `loading`, `not_loaded` (verified, loads at its ' +
      'first use), `failed` or `not_installed` (its operations answer 501). No model state fails readiness.',
  })
  @ApiOkResponse({
    schema: {
      example: {
        data: {
          status: 'ok',
          checks: { database: 'ok', redis: 'not_configured' },
          models: {
            segmentation: 'not_loaded',
            'face-detection': 'not_loaded',
            'text-detection': 'not_loaded',
            'super-resolution': 'not_loaded',
          },
        },
      },
    },
  })
  @ApiErrorResponse(['NOT_READY'], 'A dependency does not answer (`error_details.checks` says which).')
  async ready(): Promise<{
    status: 'ok';
    checks: Record<string, CheckResult>;
    models: Record<string, ModelState>;
  }> {
    const [database, redis] = await Promise.all([
      withTimeout(this.database.ping()).then(
        (): CheckResult => 'ok',
        (): CheckResult => 'failing',
      ),
      this.redis
        ? withTimeout(this.redis.ping()).then(
            (): CheckResult => 'ok',
            (): CheckResult => 'failing',
          )
        : Promise.resolve<CheckResult>('not_configured'),
    ]);
    const checks = { database, redis };
    if (database === 'failing' || redis === 'failing') {
      throw new ServiceException('NOT_READY', 'The service is not ready: a dependency does not answer.', { checks });
    }
    return { status: 'ok', checks, models: this.vision.models() };
  }
}
