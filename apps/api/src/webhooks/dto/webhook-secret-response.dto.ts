import { ApiProperty } from '@nestjs/swagger';
import type { WebhookSecretEntity } from '@app/database';
import type { PreviousWebhookSecret } from '@app/editing';

export class PreviousWebhookSecretDto {
  @ApiProperty({ description: 'Start of the replaced secret.', example: 'whsec_Zr81PqWe' })
  prefix: string;

  @ApiProperty({
    format: 'date-time',
    description: 'Until when it goes on signing beside the current one (WEBHOOK_SECRET_OVERLAP_MS after the rotation).',
  })
  until: string;
}

export class WebhookSecretResponseDto {
  @ApiProperty({ description: 'Whether the account has a signing secret.' })
  set: boolean;

  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Start of the secret (`whsec_` and 8 characters), to tell secrets apart; null when none.',
    example: 'whsec_Q3x9LmTa',
  })
  prefix: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'When this secret was made.' })
  created_at: string | null;

  @ApiProperty({
    description:
      'False for a secret the service created itself to sign a webhook before any was asked for: nobody has seen ' +
      'it, so rotate it to get one your receiver can verify with.',
  })
  shown: boolean;

  @ApiProperty({
    type: PreviousWebhookSecretDto,
    nullable: true,
    description:
      'The secret replaced by the last rotation, while it still signs: each delivery then carries two signatures ' +
      '(`v1,<current> v1,<previous>`), so a receiver can switch to the new secret without losing any. Null when none.',
  })
  previous: PreviousWebhookSecretDto | null;
}

export class CreatedWebhookSecretResponseDto extends WebhookSecretResponseDto {
  @ApiProperty({
    description: 'The new secret. Shown in this response only; store it with your receiver now.',
    example: 'whsec_Q3x9LmTaVb2fWk1p0Yd8rN5sHc7gJe4uXo6iZaMqLtE=',
  })
  secret: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The prefix of an older secret that this rotation stopped at once: the secret was rotated again while the ' +
      'one before still signed (only the secret just replaced goes on signing). Null when none.',
    example: null,
  })
  dropped_previous: string | null;
}

export function toWebhookSecretResponse(
  entity: WebhookSecretEntity | null,
  previous: PreviousWebhookSecret | null,
): WebhookSecretResponseDto {
  return {
    set: entity !== null,
    prefix: entity?.prefix ?? null,
    created_at: entity ? entity.createdAt.toISOString() : null,
    shown: entity?.shown ?? false,
    previous: previous && { prefix: previous.prefix, until: previous.until.toISOString() },
  };
}
