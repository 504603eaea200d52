/** Key helpers shared by the bucket drivers: a storage's root prefix joined to paths relative to it. */

/** `images` + `a/b.jpg` → `images/a/b.jpg`; an empty prefix leaves the path as it is. */
export function joinKey(prefix: string, path: string): string {
  return prefix === '' ? path : `${prefix}/${path}`;
}

/** The listing prefix of a folder: `''` for the root, else the folder path with one trailing `/`. */
export function folderKey(prefix: string, folder: string): string {
  const trimmed = folder.replace(/\/+$/, '');
  const base = trimmed === '' ? prefix : joinKey(prefix, trimmed);
  return base === '' ? '' : `${base}/`;
}

/** The path of a key relative to the storage root (the inverse of joinKey). */
export function relativePath(prefix: string, key: string): string {
  return prefix === '' ? key : key.slice(prefix.length + 1);
}

/** A root prefix as stored: no leading or trailing `/`. */
export function normalisePrefix(prefix: string | undefined): string {
  return (prefix ?? '').replace(/^\/+|\/+$/g, '');
}
