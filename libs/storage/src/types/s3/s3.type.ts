import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, ValidateNested } from 'class-validator';
import {
  BucketCredentialsDto,
  BucketParametersDto,
  bucketRequest,
  checkRootPath,
  s3ProtocolDriver,
  shownBucket,
} from '../bucket-parameters';
import type { StorageTypeDefinition } from '../storage-type';

export class S3ParametersDto extends BucketParametersDto {
  @ApiProperty({ type: BucketCredentialsDto })
  @IsObject()
  @ValidateNested()
  @Type(() => BucketCredentialsDto)
  credentials: BucketCredentialsDto;
}

/** `s3`: a bucket of AWS S3 or of any S3-compatible store (`endpoint`), with an access key pair. */
export const s3StorageType: StorageTypeDefinition<S3ParametersDto> = {
  name: 's3',
  summary: 'A bucket of AWS S3 or of an S3-compatible store (MinIO, Ceph, R2), with an access key pair.',
  capabilities: { list: true, write: true },
  parameters: S3ParametersDto,
  objectMembers: ['credentials'],
  checkTogether: checkRootPath,
  toSpec: (parameters) => ({
    parameters: shownBucket(parameters, { access_key: parameters.credentials.access_key }),
    secret: { secret_access_key: parameters.credentials.secret_access_key },
  }),
  toRequest: bucketRequest,
  driver: (connection, context) => s3ProtocolDriver('s3', connection, context, { region: 'us-east-1' }),
};
