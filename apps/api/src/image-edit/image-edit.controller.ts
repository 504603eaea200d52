import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiExtraModels, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '@app/common';
import { PIPELINE_PHASES } from '@app/image-pipeline';
import {
  EditAdmission,
  EditExecutor,
  EditRequestDto,
  parseEditRequest,
  editCaller,
  type InputHold,
} from '@app/editing';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { clientGone } from '../http/client-gone';
import { RequireScopes } from '../auth/require-scopes.decorator';
import { ApiEnvelope } from '../openapi/api-envelope.decorator';
import { ApiErrors } from '../openapi/api-errors.decorator';
import { EditResponseDto } from './dto/edit-response.dto';
import { readUpload } from './read-upload';

/** The processing order as PIPELINE_STEPS runs it (its phases, named as the contract names them). */
const ORDER =
  `Operations run in this order: ${PIPELINE_PHASES.join(' -> ')} (decode applies the EXIF orientation; encode writes the format, metadata and colour space). ` +
  'Without an output destination the result goes to the temporary bucket (`tmp_url`, 24 h). A member whose value is `null` is absent, at every level: `{"type": "webp", "quality": null, "progressive": null}` is `{"type": "webp"}`.';

/** The route of uploads: the one route that takes multipart bodies. */
export const UPLOAD_ROUTE = '/v1/image/edit/upload';

/** The answers of both edit routes besides 200, the schema's 422 and those of every keyed route. */
const ApiEditErrors = (badRequest: Parameters<typeof ApiErrors>[number]) =>
  ApiErrors(
    badRequest,
    [
      [
        'STORAGE_REFERENCE_INVALID',
        'STORAGE_OPERATION_UNSUPPORTED',
        'IMAGE_UNSUPPORTED',
        'IMAGE_CORRUPT',
        'IMAGE_TOO_LARGE',
      ],
      'A storage reference names no storage of yours, or a web folder as the output; or the input is no image of a supported type, is damaged, or has more pixels than MAX_INPUT_PIXELS.',
    ],
    [['PAYLOAD_TOO_LARGE'], 'The body (or the uploaded file, over FETCH_MAX_BYTES) is too large.'],
    [
      ['OPERATION_NOT_IMPLEMENTED'],
      'The operation needs a model that is not installed on this service (each named in the message).',
    ],
    [['EDIT_BUSY', 'MODEL_BUSY'], 'Too many images, or too many for a model, in progress; retry after `Retry-After`.'],
  );

@ApiTags('Image editing')
@ApiExtraModels(EditRequestDto)
@Controller('v1/image/edit')
@RequireScopes('image_editing')
export class ImageEditController {
  constructor(
    private readonly executor: EditExecutor,
    private readonly config: AppConfig,
    private readonly admission: EditAdmission,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Edit one image', description: ORDER })
  @ApiBody({ type: EditRequestDto })
  @ApiEnvelope(EditResponseDto)
  @ApiEditErrors([
    ['FETCH_FAILED', 'FETCH_REFUSED', 'FETCH_TOO_LARGE', 'STORAGE_OBJECT_NOT_FOUND', 'MALFORMED_BODY'],
    'The input cannot be fetched (URL or storage object), or the body is not JSON.',
  ])
  // `unknown`, not the DTO: parseEditRequest validates the whole body, so one 422 lists every problem.
  async edit(
    @Body() body: unknown,
    @CurrentPrincipal() caller: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<EditResponseDto> {
    const request = parseEditRequest(body, { input: 'required' });
    return this.executor.execute(editCaller(caller.accountId), request, undefined, clientGone(reply));
  }

  @Post('upload')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Edit one uploaded image',
    description: `Multipart: \`file\` (the image; its name names results in folders) and \`data\` (a JSON string: the edit request without \`input\`). ${ORDER}`,
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: { type: 'string', format: 'binary', description: 'BMP, GIF, JPEG, PNG, TIFF, WEBP, AVIF or HEIC.' },
        data: {
          type: 'string',
          description: 'JSON: `{"operations": {...}, "output": ...}` as in POST /v1/image/edit, without `input`.',
        },
      },
    },
  })
  @ApiEnvelope(EditResponseDto)
  @ApiEditErrors([['MALFORMED_BODY', 'BODY_TOO_DEEP'], 'The `data` part is not JSON, or nests too deeply.'])
  async upload(
    @Req() http: FastifyRequest,
    @CurrentPrincipal() caller: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<EditResponseDto> {
    const edit = editCaller(caller.accountId);
    let hold: InputHold | undefined;
    try {
      const upload = await readUpload(http, this.config.maxJsonDepth, async (declared) => {
        hold = await this.admission.admitUpload(edit.holder, declared);
      });
      const request = parseEditRequest(upload.data, { input: 'absent' });
      const source = { bytes: upload.bytes, name: upload.filename, hold };
      return await this.executor.execute(edit, request, source, clientGone(reply));
    } finally {
      // also when the upload is refused after it was admitted (a malformed body, a 422)
      hold?.release();
    }
  }
}
