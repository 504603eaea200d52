import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { MEDIA_TYPES, RawResponse, ServiceException } from '@app/common';
import { SAMPLE_IMAGES, SampleImages, SAMPLES_ROUTE } from '@app/storage';
import { Public } from '../auth/require-scopes.decorator';
import { ApiImageResponse } from '../openapi/api-envelope.decorator';
import { ApiErrorResponse } from '../openapi/api-errors.decorator';

const NAMES = SAMPLE_IMAGES.map((sample) => sample.name);

/**
 * The sample images, public: the inputs of the documented examples. The service reads its own sample URLs from
 * disk (SampleImages), so an edit of one works with no network and despite the address policy.
 */
@ApiTags('Samples')
@Public()
@Controller(SAMPLES_ROUTE)
export class SamplesController {
  constructor(private readonly samples: SampleImages) {}

  @Get(':name')
  @RawResponse()
  @ApiOperation({
    summary: 'Download a sample image',
    description: `Small product pictures the service ships: ${SAMPLE_IMAGES.map((s) => `\`${s.name}\` (${s.width} x ${s.height}, ${s.description})`).join(', ')}. Use \`PUBLIC_BASE_URL/samples/<name>\` as an \`input\`, in a batch's list, or as a \`web_folder\` storage's \`base_url\` (\`PUBLIC_BASE_URL/samples/\`): the service reads these URLs from its own disk, without a connection.`,
  })
  @ApiParam({ name: 'name', enum: NAMES })
  @ApiImageResponse('The image.', SAMPLE_IMAGES.map((sample) => MEDIA_TYPES[sample.type].mime))
  @ApiErrorResponse(['ROUTE_NOT_FOUND'], 'No sample image has this name.')
  async download(@Param('name') name: string, @Res() reply: FastifyReply): Promise<void> {
    const sample = this.samples.find(name);
    if (!sample) {
      throw new ServiceException(
        'ROUTE_NOT_FOUND',
        `There is no such sample image; the samples are ${NAMES.join(', ')}.`,
      );
    }
    const bytes = await this.samples.read(sample);
    await reply
      .header('content-type', MEDIA_TYPES[sample.type].mime)
      .header('cache-control', 'public, max-age=86400')
      .header('x-content-type-options', 'nosniff')
      .send(bytes);
  }
}
