import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { REDIS, ServiceException, type RedisClient } from '@app/common';
import { DatabaseHealth } from '@app/database';
import { VisionCapabilities, type ModelState } from '@app/vision';
import { Public } from '../auth/require-scopes.decorator';
import { ApiErrorResponse } from '../openapi/api-errors.decorator';

type CheckResult = 'ok' | 'not_configured' | 'failing';

const CHECK_TIMEOUT_MS = 2000;
/**
 * How long one readiness check answers every probe: probes skip every budget (orchestrators share addresses),
 * so a flood of /health/ready costs at most one database and one Redis ping a second.
 */
const READY_CACHE_MS = 1000;

type Checks = {
  database: CheckResult;
  redis: CheckResult;
};

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

  /** The latest readiness check (in flight or done) and when it began. */
  private lastCheck?: { at: number; checks: Promise<Checks> };

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
    const checks = await this.checks();
    if (checks.database === 'failing' || checks.redis === 'failing') {
      throw new ServiceException('NOT_READY', 'The service is not ready: a dependency does not answer.', { checks });
    }
    return { status: 'ok', checks, models: this.vision.models() };
  }

  /** The dependencies' state, checked at most once per READY_CACHE_MS (concurrent probes share one check). */
  private checks(): Promise<Checks> {
    const now = performance.now();
    if (!this.lastCheck || now - this.lastCheck.at >= READY_CACHE_MS) {
      this.lastCheck = { at: now, checks: this.check() };
    }
    return this.lastCheck.checks;
  }

  private async check(): Promise<Checks> {
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
    return { database, redis };
  }
}
