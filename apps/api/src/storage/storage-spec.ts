import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { flattenValidationErrors, isPlainObject, ServiceException, VALIDATION_ERROR_OPTIONS } from '@app/common';
import {
  storageType,
  type SpecContext,
  type StorageConnection,
  type StorageSpec,
  type StorageType,
} from '@app/storage';

/**
 * Validates the parameters of a type with the class its definition names (libs/storage/src/types), and its rules
 * across members; 422 with paths under `parameters.` (e.g. `parameters.credentials.access_key`).
 */
function validateParameters(type: StorageType, raw: Record<string, unknown>): object {
  const definition = storageType(type);
  const details: Record<string, string[]> = {};
  // an object member given as anything else is refused before class-transformer: it would take a string for an
  // object, and a thrown TypeError would quote the value, secret included
  const refused = definition.objectMembers.filter((member) => !isPlainObject(raw[member]));
  const objects: Record<string, unknown> = { ...raw };
  for (const member of refused) {
    details[`parameters.${member}`] = [`${member} must be an object`];
    delete objects[member];
  }
  const parameters = plainToInstance(definition.parameters, objects);
  const errors = validateSync(parameters, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: VALIDATION_ERROR_OPTIONS,
  }).filter((error) => !refused.includes(error.property));
  Object.assign(details, flattenValidationErrors(errors, 'parameters'));
  Object.assign(details, definition.checkTogether?.(parameters) ?? {});
  if (Object.keys(details).length > 0) throw ServiceException.validation(details);
  return parameters;
}

/** Validated request parameters → what is saved: the shown parameters and the secret, apart (the type says how). */
export function toStorageSpec(
  name: string,
  type: StorageType,
  raw: Record<string, unknown>,
  context: SpecContext,
): StorageSpec {
  const { parameters, secret } = storageType(type).toSpec(validateParameters(type, raw), context);
  return { name, type, parameters, secret };
}

/** A saved connection in the shape of a request, so that a PATCH can be merged onto it and validated whole. */
export function toRequestParameters(connection: StorageConnection): Record<string, unknown> {
  return storageType(connection.type).toRequest(connection);
}

/**
 * Credentials merge member by member (a new secret alone rotates it), with two exceptions that keep the pair
 * whole: a new `access_key` needs its own `secret_access_key`, and naming a member of another kind of credentials
 * than the saved one (the type's `credentialKinds`: HMAC keys or a service account; an account key or a SAS token)
 * replaces the credentials entirely.
 */
function mergeCredentials(
  base: unknown,
  patch: Record<string, unknown>,
  kinds: readonly (readonly string[])[],
): Record<string, unknown> {
  const saved = isPlainObject(base) ? base : {};
  const kindOf = (credentials: Record<string, unknown>) =>
    kinds.findIndex((kind) => kind.some((member) => member in credentials && credentials[member] !== null));
  const named = kindOf(patch);
  if (named >= 0 && named !== kindOf(saved)) return patch;
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
  credentialKinds: readonly (readonly string[])[] = [],
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  // `prefix` is a synonym: a new prefix replaces the saved path.
  if ('prefix' in patch) delete merged.path;
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else if (key === 'credentials' && isPlainObject(value)) {
      merged[key] = mergeCredentials(merged[key], value, credentialKinds);
    } else if (isPlainObject(value) && isPlainObject(merged[key])) merged[key] = mergeParameters(merged[key], value);
    else merged[key] = value;
  }
  return merged;
}
