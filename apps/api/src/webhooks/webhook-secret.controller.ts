import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WebhookSecrets } from '@app/editing';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { RequireScopes } from '../auth/require-scopes.decorator';
import { ApiEnvelope } from '../openapi/api-envelope.decorator';
import {
  CreatedWebhookSecretResponseDto,
  toWebhookSecretResponse,
  WebhookSecretResponseDto,
} from './dto/webhook-secret-response.dto';

const SIGNING =
  'Every task webhook of your account is signed with this secret: headers `webhook-id`, `webhook-timestamp` and ' +
  '`webhook-signature` (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">`, the Standard Webhooks form). ' +
  'See docs/batch.md for how a receiver verifies.';

/** The caller's account's webhook signing secret. `admin`: whoever holds it can forge the account's webhooks. */
@ApiTags('Webhooks')
@Controller('v1/webhooks/secret')
@RequireScopes('admin')
export class WebhookSecretController {
  constructor(private readonly secrets: WebhookSecrets) {}

  @Get()
  @ApiOperation({ summary: 'Show the webhook signing secret (metadata only)', description: SIGNING })
  @ApiEnvelope(WebhookSecretResponseDto)
  async show(@CurrentPrincipal() caller: Principal): Promise<WebhookSecretResponseDto> {
    const { entity, previous } = await this.secrets.find(caller.accountId);
    return toWebhookSecretResponse(entity, previous);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create or rotate the webhook signing secret',
    description:
      `${SIGNING} The response holds the new secret once. The secret it replaces goes on signing beside it for ` +
      'WEBHOOK_SECRET_OVERLAP_MS (a day by default: `previous`), each delivery carrying both signatures; a second ' +
      'rotation within that time stops the older secret at once (`dropped_previous` names it).',
  })
  @ApiEnvelope(CreatedWebhookSecretResponseDto)
  async rotate(@CurrentPrincipal() caller: Principal): Promise<CreatedWebhookSecretResponseDto> {
    const { entity, secret, previous, dropped } = await this.secrets.rotate(caller.accountId);
    return { ...toWebhookSecretResponse(entity, previous), secret, dropped_previous: dropped };
  }
}
