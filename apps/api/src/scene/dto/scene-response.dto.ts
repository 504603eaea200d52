import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { SceneResult } from '@app/editing';
import { EditNoticeDto, ImageInfoDto, OutputImageInfoDto } from '../../image-edit/dto/edit-response.dto';

export class SceneResponseDto implements SceneResult {
  @ApiProperty({ type: ImageInfoDto, description: 'The object image as read.' })
  input: ImageInfoDto;

  @ApiProperty({ type: [OutputImageInfoDto], description: 'One entry per image (`output.number_of_images`).' })
  output: OutputImageInfoDto[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'Milliseconds spent in each stage (`fetch`, `queue`, `decode`, `cutout`, `place`, `template`, `generate`, `compose`, `encode`, `write`, `total`; the images together), the generative `backend`, and its `details` (for example the `view` that `auto` chose, words of the prompt it did not understand).',
    example: {
      fetch: 41,
      queue: 0,
      decode: 12,
      cutout: 3,
      place: 9,
      generate: 410,
      compose: 60,
      encode: 180,
      write: 8,
      total: 731,
      backend: 'local',
      details: { cutout: 'own alpha', view: 'front' },
    },
  })
  profiling: SceneResult['profiling'];

  @ApiPropertyOptional({
    type: [EditNoticeDto],
    description:
      'What was asked and not drawn (an extension; absent when everything was): `PROMPT_NOT_DRAWN` lists the words of the prompt the backend did not draw.',
    example: [
      {
        code: 'PROMPT_NOT_DRAWN',
        field: 'scene.prompt',
        message:
          'The scene was drawn without these words of the prompt: kitchen, lemons. The local backend draws colours, surfaces, finishes and light only (docs/scenes.md); a generator (GENERATIVE_BACKEND) draws the rest.',
      },
    ],
  })
  notices?: EditNoticeDto[];
}
