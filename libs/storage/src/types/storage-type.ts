import type { AppConfig } from '@app/common';
import type { PublicParameters, StorageConnection, StorageSecret } from '../connections/storage-parameters';
import type { ListingLimits } from '../drivers/listing-limits';
import type { EndpointGuard } from '../drivers/endpoint-guard';
import type { StorageDriver } from '../drivers/storage-driver';
import type { SafeFetcher } from '../fetch/safe-fetcher';

/** What a storage of a type can be used for; reading a named file every type can do. */
export interface StorageCapabilities {
  /** Its folders can be listed: a batch's folder input. */
  list: boolean;
  /** Results can be written to it: an edit's or a batch's destination. */
  write: boolean;
}

/** What a type's rules may read: the service's configuration (a type's own settings, such as its allowed roots). */
export interface SpecContext {
  config: AppConfig;
}

/** What the service lends a type's driver: the outbound rules every connection to a user's address follows. */
export interface DriverContext extends SpecContext {
  /**
   * The address policy for an endpoint the user gave (and the rule that it is not the service's own store), to
   * check before the first request and on every connection.
   */
  guardOf(endpoint: URL): EndpointGuard;
  /** Downloads of user URLs, under the address policy (web folders). */
  fetcher: SafeFetcher;
  /** Bounds of one listing: pages, time, bytes per page. */
  listing: ListingLimits;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
}

/**
 * One storage type, whole: its name, what it can do, the class that validates its `parameters` (and describes
 * them in the OpenAPI document), how they split into what may be shown and the secret, and its driver. Registered
 * in registry.ts; the API, the destination rule, the CLI and the dashboard read them from there.
 */
export interface StorageTypeDefinition<Parameters extends object = object> {
  /** The `type` of requests and responses (`s3`, `web_folder`). */
  readonly name: string;
  /** What a storage of this type is, in one sentence: GET /v1/storage/storage-types and the docs. */
  readonly summary: string;
  readonly capabilities: StorageCapabilities;
  /**
   * The class-validator class of `parameters`. Named `<Type>ParametersDto` in PascalCase (`S3ParametersDto`,
   * `WebFolderParametersDto`): the OpenAPI document names its schema so, and the dashboard finds its form by it.
   */
  readonly parameters: new () => Parameters;
  /**
   * Members of `parameters` that hold an object: anything else there (a JSON string, a number) is refused before
   * validation, which would take a string for an object and might quote a secret in an error.
   */
  readonly objectMembers: readonly string[];
  /**
   * The kinds of credentials the type takes, each the `credentials` members that go together (`gcs`: HMAC keys or a
   * service account). A PATCH naming a member of another kind than the saved one replaces the credentials whole;
   * within one kind, members merge (a new secret alone rotates it). Absent: the credentials merge member by member.
   */
  readonly credentialKinds?: readonly (readonly string[])[];
  /**
   * Rules across members of the validated parameters (a synonym given twice, two kinds of credentials at once):
   * field paths under `parameters.` and their messages, reported with the class's own errors. Optional.
   */
  checkTogether?(parameters: Parameters): Record<string, string[]>;
  /**
   * The validated parameters, apart: what may be shown (responses, logs) and the secret (encrypted at rest, never
   * shown). Throws `ServiceException.validation` for a rule across members.
   */
  toSpec(parameters: Parameters, context: SpecContext): { parameters: PublicParameters; secret: StorageSecret | null };
  /** A saved connection in the shape of a request, secret included: the base a PATCH is merged onto. */
  toRequest(connection: StorageConnection): Record<string, unknown>;
  /** The driver of a saved connection. */
  driver(connection: StorageConnection, context: DriverContext): StorageDriver;
}

/** The schema name of a type's parameters class: `web_folder` → `WebFolderParametersDto`. */
export function parametersSchemaName(type: string): string {
  return `${type
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}ParametersDto`;
}
