import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { editCaller, parseSceneRequest, SceneExecutor, SceneRequestDto } from '@app/editing';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { clientGone } from '../http/client-gone';
import { RequireScopes } from '../auth/require-scopes.decorator';
import { ApiEnvelope } from '../openapi/api-envelope.decorator';
import { ApiErrors } from '../openapi/api-errors.decorator';
import { SceneResponseDto } from './dto/scene-response.dto';

const DESCRIPTION =
  'Places the product of `object.image_url` on a new scene: shadows on a plain or transparent backdrop (`effect`), a studio backdrop described by `prompt`, or a template image (`template_url`). ' +
  'The object is cut out when its image has no transparent background, placed as `placement_type` says, and composited with its own pixels on every image, so labels and logos stay exact. ' +
  '`output.number_of_images` images (default 4), each different; without a destination they go to the temporary bucket (`tmp_url`, 24 h). ' +
  "The generator is the service's configured backend (GENERATIVE_BACKEND: the local one by default; ComfyUI, Automatic1111/Forge or an OpenAI-compatible API).";

@ApiTags('Scene')
@ApiExtraModels(SceneRequestDto)
@Controller('v1/scene')
@RequireScopes('image_generation')
export class SceneController {
  constructor(private readonly scenes: SceneExecutor) {}

  @Post('create')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create product scenes', description: DESCRIPTION })
  @ApiBody({ type: SceneRequestDto })
  @ApiEnvelope(SceneResponseDto)
  @ApiErrors(
    [
      ['FETCH_FAILED', 'FETCH_REFUSED', 'FETCH_TOO_LARGE', 'STORAGE_OBJECT_NOT_FOUND', 'MALFORMED_BODY'],
      'The object or template image cannot be fetched (URL or storage object), or the body is not JSON.',
    ],
    [
      [
        'STORAGE_REFERENCE_INVALID',
        'STORAGE_OPERATION_UNSUPPORTED',
        'IMAGE_UNSUPPORTED',
        'IMAGE_CORRUPT',
        'IMAGE_TOO_LARGE',
      ],
      'A storage reference names no storage of yours, or a web folder as the output; or an image is no image of a supported type, is damaged, or has more pixels than MAX_INPUT_PIXELS.',
    ],
    [['PAYLOAD_TOO_LARGE'], 'The body is too large.'],
    [['OPERATION_NOT_IMPLEMENTED'], 'The object needs cutting out and no segmentation model is installed.'],
    [['GENERATOR_FAILED'], 'The configured generator failed or answered with no usable image (the message names it).'],
    [['SCENE_BUSY', 'MODEL_BUSY'], 'Too many scenes (or too many for a model) in progress; retry after `Retry-After`.'],
    [['SCENE_TIMEOUT', 'GENERATOR_TIMEOUT'], 'The scene, or the generator, took longer than its time limit.'],
  )
  // `unknown`, not the DTO: parseSceneRequest validates the whole body, so one 422 lists every problem.
  async create(
    @Body() body: unknown,
    @CurrentPrincipal() caller: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SceneResponseDto> {
    const request = parseSceneRequest(body);
    return this.scenes.create(editCaller(caller.accountId), request, clientGone(reply));
  }
}
