import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import type { Reader } from './config-reader';

/** The settings that are comma-separated lists: hosts the downloads may reach, folders storages may use. */

/** A DNS host name: labels of letters, digits and inner hyphens. */
export const HOST_PATTERN = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

export function parseAllowHosts(reader: Reader, value: string | undefined): string[] {
  if (!value) return [];
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address);
    const cidrOk =
      bits === undefined || (/^\d+$/.test(bits) && family !== 0 && Number(bits) <= (family === 4 ? 32 : 128));
    if (extra !== undefined || !cidrOk || (family === 0 && (bits !== undefined || !HOST_PATTERN.test(address)))) {
      reader.problem('FETCH_ALLOW_HOSTS', `"${entry}" is neither a host name, an IP address nor a CIDR`);
    }
  }
  return entries.map((entry) => entry.toLowerCase());
}

/** Comma-separated absolute folders, resolved (`/srv/images/` and `/srv//images` are one root). */
export function parseRoots(reader: Reader, value: string | undefined): string[] {
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    if (!isAbsolute(entry)) reader.problem('LOCAL_STORAGE_ROOTS', `"${entry}" is not an absolute folder path`);
  }
  return entries.filter((entry) => isAbsolute(entry)).map((entry) => resolve(entry));
}
