import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, Length, ValidateIf, ValidateNested } from 'class-validator';
import { ServiceException } from '@app/common';
import type { BucketParameters, GcsServiceAccountKey } from '../../connections/storage-parameters';
import { GcsServiceAccountDriver } from './gcs-service-account.driver';
import { normalisePrefix } from '../../drivers/object-paths';
import { BucketParametersDto, bucketRequest, checkRootPath, s3ProtocolDriver, shownBucket } from '../bucket-parameters';
import type { StorageTypeDefinition } from '../storage-type';

/** Google's S3-compatible XML API, used by `gcs` storages with HMAC keys. */
export const GCS_XML_ENDPOINT = 'https://storage.googleapis.com';

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

export class GcsParametersDto extends BucketParametersDto {
  @ApiProperty({ type: GcsCredentialsDto })
  @IsObject()
  @ValidateNested()
  @Type(() => GcsCredentialsDto)
  credentials: GcsCredentialsDto;
}

function serviceAccountKey(value: Record<string, unknown>): GcsServiceAccountKey {
  const { client_email, private_key } = value;
  if (typeof client_email !== 'string' || typeof private_key !== 'string' || !private_key.includes('PRIVATE KEY')) {
    throw ServiceException.validation({
      'parameters.credentials.service_account': [
        'service_account must be a service-account key file with client_email and private_key',
      ],
    });
  }
  return value as GcsServiceAccountKey;
}

/**
 * `gcs`: a Google Cloud Storage bucket, with HMAC keys (through Google's S3-compatible XML API) or a
 * service-account key file (its JSON API).
 */
export const gcsStorageType: StorageTypeDefinition<GcsParametersDto> = {
  name: 'gcs',
  summary: 'A Google Cloud Storage bucket, with HMAC keys or a service-account key file.',
  capabilities: { list: true, write: true },
  parameters: GcsParametersDto,
  objectMembers: ['credentials'],
  credentialKinds: [['access_key', 'secret_access_key'], ['service_account']],
  checkTogether(parameters) {
    const details = checkRootPath(parameters);
    const { service_account, access_key, secret_access_key } = parameters.credentials ?? {};
    if (service_account && (access_key !== undefined || secret_access_key !== undefined)) {
      details['parameters.credentials'] = ['give either access_key and secret_access_key, or service_account'];
    }
    return details;
  },
  toSpec(parameters) {
    const { credentials } = parameters;
    const serviceAccount = credentials.service_account ? serviceAccountKey(credentials.service_account) : undefined;
    if (!serviceAccount) {
      return {
        parameters: shownBucket(parameters, { access_key: credentials.access_key }),
        secret: { secret_access_key: credentials.secret_access_key },
      };
    }
    if (parameters.endpoint !== undefined) {
      // The Google client library offers no hook to pin and check each connection, so a user-given endpoint could
      // not be held to the address policy that every other outbound connection follows.
      throw ServiceException.validation({
        'parameters.endpoint': [
          'endpoint is not supported with a service_account key; use HMAC keys for a custom endpoint',
        ],
      });
    }
    return {
      parameters: shownBucket(parameters, { client_email: serviceAccount.client_email }),
      secret: { service_account: serviceAccount },
    };
  },
  toRequest: bucketRequest,
  driver(connection, context) {
    const parameters = connection.parameters as unknown as BucketParameters;
    const prefix = normalisePrefix(parameters.path);
    const guard = parameters.endpoint ? context.guardOf(new URL(parameters.endpoint)) : undefined;
    const serviceAccount = connection.secret?.service_account;
    if (serviceAccount) {
      return new GcsServiceAccountDriver({
        bucket: parameters.bucket,
        prefix,
        serviceAccount,
        // The API refuses an endpoint with a service-account key; should one reach here, it is still judged.
        endpoint: parameters.endpoint,
        guard,
        listing: context.listing,
      });
    }
    return s3ProtocolDriver('gcs', connection, context, { endpoint: GCS_XML_ENDPOINT, region: 'auto' });
  },
};
