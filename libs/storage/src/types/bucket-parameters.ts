import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUrl, Length, Matches, MaxLength } from 'class-validator';
import type { BucketParameters, StorageConnection, StorageSecret } from '../connections/storage-parameters';
import { normalisePrefix } from '../drivers/object-paths';
import { S3Driver } from '../drivers/s3.driver';
import type { DriverContext } from './storage-type';

/**
 * What the bucket types (`s3`, `gcs`) share: their parameters' members, the rules across them, and how a saved
 * connection turns back into a request.
 */

/** Bucket names of S3 (including legacy ones) and GCS: letters, digits, `.`, `_`, `-`. */
const BUCKET_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{1,221}[A-Za-z0-9]$/;
/** http(s) URLs with a host; a bare name (`minio`) is a host too. */
export const URL_RULE = {
  protocols: ['http', 'https'],
  require_protocol: true,
  require_tld: false,
  require_host: true,
};

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

/** What `s3` and `gcs` have in common. */
export class BucketParametersDto {
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

/** `path` and `prefix` name one thing once, and no `.` or `..` segment; field paths under `parameters.`. */
export function checkRootPath(parameters: { path?: string; prefix?: string }): Record<string, string[]> {
  const details: Record<string, string[]> = {};
  const { path, prefix } = parameters;
  if (path !== undefined && prefix !== undefined && prefix !== path) {
    details['parameters.prefix'] = ['prefix is a synonym of path; give one of them'];
  }
  for (const member of ['path', 'prefix'] as const) {
    const value = parameters[member];
    if (typeof value === 'string' && value.split('/').some((segment) => segment === '.' || segment === '..')) {
      details[`parameters.${member}`] = [`${member} must not contain "." or ".." segments`];
    }
  }
  return details;
}

/** The shown part of a bucket type's parameters: the root as `a/b` (absent for the bucket's root). */
export function shownBucket(
  parameters: BucketParametersDto,
  credentials: BucketParameters['credentials'],
): BucketParameters {
  const shown: BucketParameters = {
    bucket: parameters.bucket,
    path: rootPath(parameters.path ?? parameters.prefix),
    endpoint: parameters.endpoint,
    region: parameters.region,
    credentials,
  };
  for (const key of ['path', 'endpoint', 'region'] as const) if (shown[key] === undefined) delete shown[key];
  return shown;
}

/** `a//b/` → `a/b`; undefined when nothing is left. */
export function rootPath(value: string | undefined): string | undefined {
  const path = (value ?? '').split('/').filter(Boolean).join('/');
  return path === '' ? undefined : path;
}

/** A saved bucket connection as a request: the shown members and the secret's, under `credentials`. */
export function bucketRequest(connection: StorageConnection): Record<string, unknown> {
  const { credentials, ...rest } = connection.parameters as unknown as BucketParameters;
  const secret: StorageSecret = connection.secret ?? {};
  return {
    ...rest,
    credentials: secret.service_account
      ? { service_account: secret.service_account }
      : { access_key: credentials.access_key, secret_access_key: secret.secret_access_key },
  };
}

/**
 * The S3 protocol driver of a bucket connection (`s3`, and `gcs` with HMAC keys through Google's XML API), with the
 * type's default endpoint (absent: AWS) and region.
 */
export function s3ProtocolDriver(
  kind: 's3' | 'gcs',
  connection: StorageConnection,
  context: DriverContext,
  defaults: { endpoint?: string; region: string },
): S3Driver {
  const parameters = connection.parameters as unknown as BucketParameters;
  return new S3Driver({
    kind,
    bucket: parameters.bucket,
    prefix: normalisePrefix(parameters.path),
    endpoint: parameters.endpoint ?? defaults.endpoint,
    region: parameters.region ?? defaults.region,
    accessKey: parameters.credentials.access_key,
    secretKey: connection.secret?.secret_access_key,
    // Endpoints come from users: every connection to them passes the same address policy as downloads.
    guard: parameters.endpoint ? context.guardOf(new URL(parameters.endpoint)) : undefined,
    connectTimeoutMs: context.connectTimeoutMs,
    requestTimeoutMs: context.requestTimeoutMs,
    listing: context.listing,
  });
}
