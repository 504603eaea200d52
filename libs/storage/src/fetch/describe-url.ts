/** What replaces a removed query or a token-like path segment. */
const REDACTED = '[redacted]';
/** A file extension worth keeping: short and plain (`jpg`, `webp`, `tiff`); anything longer may be a secret. */
const EXTENSION = /^[A-Za-z0-9]{1,5}$/;
const TOKEN_MIN_LENGTH = 16;
/** From this length a segment goes whatever it is made of: nothing that long is worth the risk in a log. */
const ALWAYS_REDACTED_LENGTH = 32;

/**
 * Whether a path segment looks like a secret: at least 16 characters mixing two of lower-case letters,
 * upper-case letters and digits (the shape of tokens, signatures, hex ids, UUIDs, base64), or at least 32 of
 * anything. Words, numbers and short names (`shoes`, `2024`, `product-shot-blue-large`, `T0001`) stay, so a log
 * line still says which file it was about; a false positive only costs detail.
 */
function looksLikeToken(segment: string): boolean {
  if (segment.length >= ALWAYS_REDACTED_LENGTH) return true;
  if (segment.length < TOKEN_MIN_LENGTH) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((pattern) => pattern.test(segment)).length;
  return classes >= 2;
}

function describeSegment(segment: string, last: boolean): string {
  const dot = segment.lastIndexOf('.');
  const extension = last && dot > 0 ? segment.slice(dot + 1) : '';
  if (EXTENSION.test(extension)) {
    return looksLikeToken(segment.slice(0, dot)) ? `${REDACTED}.${extension}` : segment;
  }
  return looksLikeToken(segment) ? REDACTED : segment;
}

/**
 * The one way a URL appears in a log line or an error message: scheme, host and port, and the path with
 * token-like segments replaced by `[redacted]` (see {@link looksLikeToken}; the last segment keeps a plain
 * extension). The user name and password and the fragment are dropped; a query (presigned signatures, access
 * tokens) becomes `?[redacted]`. URLs without a host (`data:`, `javascript:`) keep only their scheme, and a value
 * that is not a URL is not echoed at all. What a client sent may still be shown to that client as it sent it
 * (the task body's `input_object`); everything else describes URLs through here.
 */
export function describeUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return '[not a URL]';
  }
  const { protocol, host, pathname, search } = parsed;
  if (host === '' && !pathname.startsWith('/')) return `${protocol}${REDACTED}`;
  const segments = pathname.split('/');
  const path = segments.map((segment, index) => describeSegment(segment, index === segments.length - 1)).join('/');
  return `${protocol}//${host}${path || '/'}${search === '' ? '' : `?${REDACTED}`}`;
}
