import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';

export class PrivacyDto {
  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description:
      'Blurs car number plates beyond recognition, with the plate around them: text regions shaped like a ' +
      "plate's characters (one short, contrasted line on a one-coloured surface). Any such text is blurred.",
  })
  @IsOptional()
  @IsBoolean()
  blur_car_plate?: boolean;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description:
      'Cuts away everything above the line between nose and mouth of every detected person (the lowest such line when there are several). No face found: the image is not cut and the response carries the notice `NO_FACE_FOUND` in `notices`.',
  })
  @IsOptional()
  @IsBoolean()
  identity_crop?: boolean;
}
