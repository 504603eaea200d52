import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

/** Bucket names of S3 (including legacy ones) and GCS: letters, digits, `.`, `_`, `-`. */
const BUCKET_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{1,221}[A-Za-z0-9]$/;
const URL_RULE = { protocols: ['http', 'https'], require_protocol: true, require_tld: false, require_host: true };

export class BucketCredentialsDto {
  @ApiProperty({ description: 'Access key id (AWS) or HMAC access id (GCS).', example: 'AKIAIOSFODNN7EXAMPLE' })
  @IsString()
  @Length(1, 256)
  access_key: string;

  @ApiProperty({ description: 'Secret key. Write-only: never returned, encrypted at rest.', writeOnly: true })
  @IsString()
  @Length(1, 512)
  secret_access_key: string;
}

export class GcsCredentialsDto {
  @ApiPropertyOptional({ description: 'HMAC access id (interoperability API). With `secret_access_key`.' })
  @ValidateIf((credentials: GcsCredentialsDto) => !credentials.service_account)
  @IsString()
  @Length(1, 256)
  access_key?: string;

  @ApiPropertyOptional({ description: 'HMAC secret. Write-only: never returned, encrypted at rest.', writeOnly: true })
  @ValidateIf((credentials: GcsCredentialsDto) => !credentials.service_account)
  @IsString()
  @Length(1, 512)
  secret_access_key?: string;

  @ApiPropertyOptional({
    description: 'Extension: the JSON key file of a service account (as an object) instead of HMAC keys. Write-only.',
    writeOnly: true,
    type: 'object',
    additionalProperties: true,
  })
  @IsOptional()
  @IsObject({ message: 'service_account must be the JSON key file of a service account' })
  service_account?: Record<string, unknown>;
}

/** What `s3` and `gcs` have in common. */
class BucketParametersDto {
  @ApiProperty({ description: 'Bucket name.', example: 'catalogue-images' })
  @IsString()
  @Matches(BUCKET_PATTERN, { message: 'bucket must be 3 to 223 letters, digits, ".", "_" or "-"' })
  bucket: string;

  @ApiPropertyOptional({ description: 'Root folder (key prefix) inside the bucket.', example: 'products/2026' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  path?: string;

  @ApiPropertyOptional({ description: 'Synonym of `path`.' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  prefix?: string;

  @ApiPropertyOptional({
    description:
      'Extension: endpoint of an S3-compatible store (MinIO, Ceph, R2, ...), reached with path-style requests. Must be an address downloads may reach (see FETCH_ALLOW_HOSTS).',
    example: 'http://minio:9000',
  })
  @IsOptional()
  @IsUrl(URL_RULE, { message: 'endpoint must be an http or https URL' })
  @MaxLength(512)
  endpoint?: string;

  @ApiPropertyOptional({ description: 'Extension: region (default `us-east-1` for s3, `auto` for gcs).' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z0-9-]{1,32}$/, { message: 'region must be 1 to 32 lower-case letters, digits or "-"' })
  region?: string;
}

export class S3ParametersDto extends BucketParametersDto {
  @ApiProperty({ type: BucketCredentialsDto })
  @IsObject()
  @ValidateNested()
  @Type(() => BucketCredentialsDto)
  credentials: BucketCredentialsDto;
}

export class GcsParametersDto extends BucketParametersDto {
  @ApiProperty({ type: GcsCredentialsDto })
  @IsObject()
  @ValidateNested()
  @Type(() => GcsCredentialsDto)
  credentials: GcsCredentialsDto;
}

export class WebFolderParametersDto {
  @ApiProperty({
    description: 'Base URL of the folder; files are read at base_url + path.',
    example: 'https://cdn.example.com/images/',
  })
  @IsUrl(URL_RULE, { message: 'base_url must be an http or https URL' })
  @Matches(/^[^?#]*$/, { message: 'base_url must not have a query or a fragment; paths are appended to it' })
  @MaxLength(2048)
  base_url: string;
}
