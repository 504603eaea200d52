import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { flattenValidationErrors, isPlainObject, ServiceException, VALIDATION_ERROR_OPTIONS } from '@app/common';
import {
  type BucketParameters,
  type GcsServiceAccountKey,
  type StorageConnection,
  type StorageSpec,
  type StorageType,
  type WebFolderParameters,
} from '@app/storage';
import { GcsParametersDto, S3ParametersDto, WebFolderParametersDto } from './dto/storage-parameters.dto';

type ParametersDto = S3ParametersDto | GcsParametersDto | WebFolderParametersDto;

/** The discriminator `type` picks the one class that validates `parameters`. */
const PARAMETER_CLASSES: Record<StorageType, new () => ParametersDto> = {
  s3: S3ParametersDto,
  gcs: GcsParametersDto,
  web_folder: WebFolderParametersDto,
};

/**
 * The members of each type that hold an object. Anything else there (a JSON-encoded object, a number, an array) is
 * refused before class-transformer and the rules below see it: they would take a string for an object, and a
 * thrown TypeError would quote the value, secret included.
 */
const OBJECT_MEMBERS: Record<StorageType, readonly string[]> = {
  s3: ['credentials'],
  gcs: ['credentials'],
  web_folder: [],
};

/** Validates the parameters of a type; 422 with paths under `parameters.` (e.g. `parameters.credentials.access_key`). */
function validateParameters(type: StorageType, raw: Record<string, unknown>): ParametersDto {
  const details: Record<string, string[]> = {};
  const refused = OBJECT_MEMBERS[type].filter((member) => !isPlainObject(raw[member]));
  const objects: Record<string, unknown> = { ...raw };
  for (const member of refused) {
    details[`parameters.${member}`] = [`${member} must be an object`];
    delete objects[member];
  }
  const parameters = plainToInstance(PARAMETER_CLASSES[type], objects);
  const errors = validateSync(parameters, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: VALIDATION_ERROR_OPTIONS,
  }).filter((error) => !refused.includes(error.property));
  Object.assign(details, flattenValidationErrors(errors, 'parameters'));
  if ('path' in parameters && 'prefix' in parameters && parameters.path !== undefined) {
    if (parameters.prefix !== undefined && parameters.prefix !== parameters.path) {
      details['parameters.prefix'] = ['prefix is a synonym of path; give one of them'];
    }
  }
  if ('credentials' in parameters && parameters.credentials && 'service_account' in parameters.credentials) {
    const { service_account, access_key, secret_access_key } = parameters.credentials;
    if (service_account && (access_key !== undefined || secret_access_key !== undefined)) {
      details['parameters.credentials'] = ['give either access_key and secret_access_key, or service_account'];
    }
  }
  for (const member of ['path', 'prefix'] as const) {
    const value = (parameters as { path?: unknown; prefix?: unknown })[member];
    if (typeof value === 'string' && value.split('/').some((segment) => segment === '.' || segment === '..')) {
      details[`parameters.${member}`] = [`${member} must not contain "." or ".." segments`];
    }
  }
  if (Object.keys(details).length > 0) throw ServiceException.validation(details);
  return parameters;
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

/** `a//b/` → `a/b`; undefined when nothing is left. */
function rootPath(value: string | undefined): string | undefined {
  const path = (value ?? '').split('/').filter(Boolean).join('/');
  return path === '' ? undefined : path;
}

/** Validated request parameters → what is saved: the shown parameters and the secret, apart. */
export function toStorageSpec(name: string, type: StorageType, raw: Record<string, unknown>): StorageSpec {
  const parameters = validateParameters(type, raw);
  if (parameters instanceof WebFolderParametersDto) {
    const shown: WebFolderParameters = { base_url: parameters.base_url };
    return { name, type, parameters: shown, secret: null };
  }
  const { credentials } = parameters;
  const serviceAccount =
    'service_account' in credentials && credentials.service_account
      ? serviceAccountKey(credentials.service_account)
      : undefined;
  if (serviceAccount && parameters.endpoint !== undefined) {
    // The Google client library offers no hook to pin and check each connection, so a user-given endpoint could
    // not be held to the address policy that every other outbound connection follows.
    throw ServiceException.validation({
      'parameters.endpoint': [
        'endpoint is not supported with a service_account key; use HMAC keys for a custom endpoint',
      ],
    });
  }
  const shown: BucketParameters = {
    bucket: parameters.bucket,
    path: rootPath(parameters.path ?? parameters.prefix),
    endpoint: parameters.endpoint,
    region: parameters.region,
    credentials: serviceAccount
      ? { client_email: serviceAccount.client_email }
      : { access_key: credentials.access_key },
  };
  for (const key of ['path', 'endpoint', 'region'] as const) if (shown[key] === undefined) delete shown[key];
  return {
    name,
    type,
    parameters: shown,
    secret: serviceAccount ? { service_account: serviceAccount } : { secret_access_key: credentials.secret_access_key },
  };
}

/** A saved connection in the shape of a request, so that a PATCH can be merged onto it and validated whole. */
export function toRequestParameters(connection: StorageConnection): Record<string, unknown> {
  if (connection.type === 'web_folder') return { ...connection.parameters };
  const { credentials, ...rest } = connection.parameters as BucketParameters;
  const secret = connection.secret ?? {};
  return {
    ...rest,
    credentials: secret.service_account
      ? { service_account: secret.service_account }
      : { access_key: credentials.access_key, secret_access_key: secret.secret_access_key },
  };
}

/**
 * Credentials merge member by member (a new secret alone rotates it), with two exceptions that keep the pair
 * whole: a new `access_key` needs its own `secret_access_key`, and switching between HMAC keys and a
 * service-account key replaces the credentials entirely.
 */
function mergeCredentials(base: unknown, patch: Record<string, unknown>): Record<string, unknown> {
  const saved = isPlainObject(base) ? base : {};
  const switchesKind = 'service_account' in patch !== 'service_account' in saved;
  if (switchesKind) return patch;
  if ('access_key' in patch && patch.access_key !== saved.access_key && !('secret_access_key' in patch)) {
    throw ServiceException.validation({
      'parameters.credentials.secret_access_key': ['secret_access_key is required when access_key changes'],
    });
  }
  return { ...saved, ...patch };
}

/**
 * PATCH semantics (docs/api-contract.md, "Storage": omitted fields stay): omitted members stay, `null` removes a member, nested
 * objects merge; credentials as {@link mergeCredentials} says.
 */
export function mergeParameters(
  base: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  // `prefix` is a synonym: a new prefix replaces the saved path.
  if ('prefix' in patch) delete merged.path;
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else if (key === 'credentials' && isPlainObject(value)) merged[key] = mergeCredentials(merged[key], value);
    else if (isPlainObject(value) && isPlainObject(merged[key])) merged[key] = mergeParameters(merged[key], value);
    else merged[key] = value;
  }
  return merged;
}
