import { describe, expect, it } from 'vitest';
import { loadConfig, ServiceException } from '@app/common';
import type { StorageConnection } from '../connections/storage-parameters';
import { requireCapability, STORAGE_TYPE_DEFINITIONS, STORAGE_TYPES, storageType } from './registry';
import { parametersSchemaName } from './storage-type';

describe('the storage type registry', () => {
  it('names each type once, and its parameters class after it (the schema the dashboard looks up)', () => {
    expect(new Set(STORAGE_TYPES).size).toBe(STORAGE_TYPES.length);
    expect(STORAGE_TYPES.slice(0, 3)).toEqual(['web_folder', 's3', 'gcs']);
    for (const type of STORAGE_TYPE_DEFINITIONS) expect(type.parameters.name).toBe(parametersSchemaName(type.name));
    expect(parametersSchemaName('azure_blob')).toBe('AzureBlobParametersDto');
    expect(() => storageType('ftp')).toThrow('unknown storage type "ftp"');
  });

  it('refuses a use the type cannot serve with 1304, naming the field and the types that can', () => {
    expect(() => requireCapability('s3', 'write', 'output.destination')).not.toThrow();
    const refusal = (type: string, capability: 'list' | 'write', field: string) => {
      try {
        requireCapability(type, capability, field);
      } catch (error) {
        return error as ServiceException;
      }
      throw new Error('not refused');
    };
    const write = refusal('web_folder', 'write', 'output.destination');
    expect(write.codeName).toBe('STORAGE_OPERATION_UNSUPPORTED');
    // every type that can be written, by name: s3, gcs, then the extensions
    expect(write.message).toMatch(/^A web_folder storage cannot be written to; use s3, gcs(, \w+)* or \w+ storage\.$/);
    expect((write.details as Record<string, string[]>)['output.destination'][0]).toMatch(
      /^a web_folder storage cannot be written to; use s3, gcs/,
    );
    const list = refusal('web_folder', 'list', 'input');
    expect(list.message).toContain('cannot be listed; give its images as a list of URLs or storage references');
  });

  it('splits parameters into what is shown and the secret, and puts them back together for a PATCH', () => {
    const cases: { type: string; request: Record<string, unknown>; shown: Record<string, unknown> }[] = [
      {
        type: 's3',
        request: { bucket: 'b', path: 'a//b/', credentials: { access_key: 'AK', secret_access_key: 'SK' } },
        shown: { bucket: 'b', path: 'a/b', credentials: { access_key: 'AK' } },
      },
      {
        type: 'gcs',
        request: { bucket: 'b', credentials: { access_key: 'AK', secret_access_key: 'SK' } },
        shown: { bucket: 'b', credentials: { access_key: 'AK' } },
      },
      { type: 'web_folder', request: { base_url: 'https://cdn.example.com/i/' }, shown: {} },
    ];
    for (const { type, request, shown } of cases) {
      const definition = storageType(type);
      const spec = definition.toSpec(Object.assign(new definition.parameters(), request), { config: loadConfig({}) });
      expect(spec.parameters).toMatchObject(shown);
      expect(JSON.stringify(spec.parameters)).not.toContain('SK');
      const connection: StorageConnection = { type, ...spec };
      const back = definition.toRequest(connection);
      expect(back).toMatchObject(type === 'web_folder' ? request : { bucket: 'b', credentials: request.credentials });
    }
  });
});
