import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { DatabaseModule } from '@app/database';
import { RateLimitGuard } from '../rate-limit/rate-limit.guard';
import { AddressLimiter } from '../rate-limit/address-limiter';
import { RateLimitStore, rateLimitStoreProvider } from '../rate-limit/rate-limit.store';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { ApiKeyGuard } from './api-key.guard';
import { BootstrapKeyService } from './bootstrap-key.service';
import { KeysController } from './keys.controller';
import { KeysService } from './keys.service';
import { QuotaGuard } from './quota.guard';

/**
 * Keys, scopes, rate limits and quotas. The guards run in this order on every route:
 * authentication and scope (401/403), rate limit (429), quota (402).
 */
@Module({
  imports: [DatabaseModule],
  controllers: [KeysController],
  providers: [
    KeysService,
    rateLimitStoreProvider,
    RateLimiter,
    AddressLimiter,
    BootstrapKeyService,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: QuotaGuard },
  ],
  exports: [KeysService, AddressLimiter, RateLimitStore],
})
export class AuthModule {}
