import { ServiceException } from '../errors/service.exception';
import { unknownMemberMessage } from './unknown-member';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Member names every parsed object inherits (`constructor`, `toString`, `hasOwnProperty`, `__proto__` ...). No
 * request object has such a member, and validators that look a name up on an object find the inherited value
 * where the body has none: class-transformer throws a TypeError on `constructor`, and class-validator's
 * unknown-member check takes `hasOwnProperty` for a declared member.
 */
const INHERITED_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** At most this many such members are named in one 422, so that the answer stays small whatever the body. */
const MAX_REPORTED = 20;

function tooDeep(maxDepth: number): ServiceException {
  return new ServiceException(
    'BODY_TOO_DEEP',
    `The request body nests objects and arrays deeper than ${maxDepth} levels.`,
  );
}

/**
 * Whether JSON text nests objects and arrays deeper than `maxDepth` (the outermost one is level 1). One pass over
 * the characters, brackets inside strings skipped: it runs before JSON.parse, whose cost grows with the nesting
 * (a 1 MiB body of `[` takes about 300 ms to parse), and without recursion, so that no depth can overflow it.
 */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** An object or array still to look into; its path is only spelled out when a member of it is refused. */
interface Pending {
  node: object;
  depth: number;
  key?: string;
  parent?: Pending;
}

function pathOf(entry: Pending, key: string): string {
  const keys = [key];
  for (let at: Pending | undefined = entry; at?.key !== undefined; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.');
}

/** How a parsed body is read beyond the checks every body gets. */
export interface JsonBodyOptions {
  /**
   * Removes every object member whose value is `null`, at any level (array elements stay): clients of the hosted
   * API family send unset optional members as `null`, which means absent (docs/api-contract.md, "General"). Off for PATCH bodies,
   * where `null` removes a member.
   */
  nullIsAbsent?: boolean;
}

/**
 * Checks a parsed JSON value before any validator sees it: nesting at most `maxDepth` levels (400 `BODY_TOO_DEEP`)
 * and no member named after an inherited one, at any level (422 at its dotted path, as any unknown member).
 * Iterative, own members only. With `nullIsAbsent`, members whose value is `null` are removed. Returns the value.
 */
export function checkJsonBody<T>(value: T, maxDepth: number, options: JsonBodyOptions = {}): T {
  if (typeof value !== 'object' || value === null) return value;
  const pending: Pending[] = [{ node: value, depth: 1 }];
  // No prototype: a path named `__proto__` must become a member, not replace the prototype.
  const details = Object.create(null) as Record<string, string[]>;
  let reported = 0;
  for (let entry = pending.pop(); entry; entry = pending.pop()) {
    if (entry.depth > maxDepth) throw tooDeep(maxDepth);
    const { node, depth } = entry;
    const array = Array.isArray(node);
    for (const key of array ? node.keys() : Object.keys(node)) {
      const child: unknown = (node as Record<string | number, unknown>)[key];
      if (!array && child === null && options.nullIsAbsent) {
        delete (node as Record<string, unknown>)[key as string];
      } else if (!array && INHERITED_NAMES.has(key as string)) {
        if (reported++ < MAX_REPORTED) details[pathOf(entry, key as string)] = [unknownMemberMessage(key as string)];
      } else if (typeof child === 'object' && child !== null) {
        pending.push({ node: child, depth: depth + 1, key: String(key), parent: entry });
      }
    }
  }
  if (reported > 0) throw ServiceException.validation(details);
  return value;
}

/**
 * Parses a JSON request body (or the upload's `data` part): 400 `BODY_TOO_DEEP` past `maxDepth` before parsing,
 * 400 `MALFORMED_BODY` (with `malformed` as the message, when given) for text that is not JSON, then
 * {@link checkJsonBody}. `__proto__` becomes an ordinary own member, refused there like any inherited name.
 */
export function parseJsonBody(
  text: string,
  maxDepth: number,
  malformed?: string,
  options: JsonBodyOptions = {},
): unknown {
  if (nestsDeeperThan(text, maxDepth)) throw tooDeep(maxDepth);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ServiceException('MALFORMED_BODY', malformed);
  }
  return checkJsonBody(value, maxDepth, options);
}
