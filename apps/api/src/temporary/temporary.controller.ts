import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { MEDIA_TYPES, RawResponse } from '@app/common';
import { TEMPORARY_ROUTE, TemporaryBucket } from '@app/storage';
import { Public } from '../auth/require-scopes.decorator';
import { ApiImageResponse } from '../openapi/api-envelope.decorator';
import { ApiErrorResponse } from '../openapi/api-errors.decorator';

/**
 * Serves the embedded mode's temporary bucket: the `tmp_url` of results without a destination. The unguessable
 * name is the credential, so no API key is needed; a file past its lifetime is 404 even before the sweeper ran.
 */
@ApiTags('Temporary files')
@Public()
@Controller(TEMPORARY_ROUTE)
export class TemporaryController {
  constructor(private readonly bucket: TemporaryBucket) {}

  @Get(':name')
  @RawResponse()
  @ApiOperation({ summary: 'Download a temporary result', description: 'Available for TEMP_TTL_SECONDS (24 hours).' })
  @ApiImageResponse(
    'The file.',
    Object.values(MEDIA_TYPES)
      .filter((type) => type.output)
      .map((type) => type.mime),
  )
  @ApiErrorResponse(['TEMPORARY_NOT_FOUND'], 'Unknown or expired.')
  async download(@Param('name') name: string, @Res() reply: FastifyReply): Promise<void> {
    await this.send(name, reply);
  }

  // HEAD is answered by Fastify from this GET route (headers only).
  private async send(name: string, reply: FastifyReply): Promise<void> {
    const file = await this.bucket.open(name);
    const maxAge = Math.max(0, Math.floor((file.expiresAt.getTime() - Date.now()) / 1000));
    reply
      .header('content-type', file.contentType)
      .header('cache-control', `private, max-age=${maxAge}`)
      .header('expires', file.expiresAt.toUTCString())
      .header('x-content-type-options', 'nosniff');
    if (file.size !== undefined) reply.header('content-length', String(file.size));
    await reply.send(file.stream);
  }
}
