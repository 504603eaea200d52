import { ApiProperty } from '@nestjs/swagger';
import type { WebhookSecretEntity } from '@app/database';

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
}

export class CreatedWebhookSecretResponseDto extends WebhookSecretResponseDto {
  @ApiProperty({
    description: 'The new secret. Shown in this response only; store it with your receiver now.',
    example: 'whsec_Q3x9LmTaVb2fWk1p0Yd8rN5sHc7gJe4uXo6iZaMqLtE=',
  })
  secret: string;
}

export function toWebhookSecretResponse(entity: WebhookSecretEntity | null): WebhookSecretResponseDto {
  return {
    set: entity !== null,
    prefix: entity?.prefix ?? null,
    created_at: entity ? entity.createdAt.toISOString() : null,
    shown: entity?.shown ?? false,
  };
}
