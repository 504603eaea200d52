/** Storage names: 1 to 50 characters, none of them `/` or a control character, not `.` or `..`, not padded. */
export const STORAGE_NAME_PATTERN = /^(?!\.{1,2}$)(?!\s)(?!.*\s$)[^/\u0000-\u001f\u007f]{1,50}$/u;
export const STORAGE_NAME_RULE =
  'name must be 1 to 50 characters without "/" or control characters, not "." or "..", and not start or end with a space';

export const STORAGE_SCHEME = 'storage://';

/** A parsed `storage://<name>/<path>` reference. */
export interface StorageReference {
  name: string;
  /** Path inside the storage, without a leading `/`; `''` is the storage's root. */
  path: string;
  /** The reference ends in `/` (or names the root): it denotes a folder. */
  isFolder: boolean;
}

export function isStorageReference(value: string): boolean {
  return value.startsWith(STORAGE_SCHEME);
}

/**
 * Parses a storage reference; returns the reason instead when it is malformed: a bad name, an empty, `.` or `..`
 * path segment, a backslash or a control character. The path is taken literally (no percent-decoding), so an
 * encoded `%2e%2e` is an ordinary object name, never a step up.
 */
export function parseStorageReference(value: string): StorageReference | { error: string } {
  if (!isStorageReference(value)) return { error: `must start with ${STORAGE_SCHEME}` };
  const rest = value.slice(STORAGE_SCHEME.length);
  const slash = rest.indexOf('/');
  const name = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash + 1);
  if (!STORAGE_NAME_PATTERN.test(name)) return { error: `"${name}" is not a valid storage name` };
  if (/[\\\u0000-\u001f\u007f]/u.test(path)) return { error: 'the path must not contain "\\" or control characters' };
  const segments = path.split('/');
  const inner = path.endsWith('/') ? segments.slice(0, -1) : segments;
  if (path !== '' && inner.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    return { error: 'the path must not contain empty, "." or ".." segments' };
  }
  return { name, path, isFolder: path === '' || path.endsWith('/') };
}
