/** What replaces a censored value in logs. */
export const censor = '[redacted]';

/**
 * Names whose values are credentials wherever they appear: query parameters, headers and log fields. Compared
 * case-insensitively with `-` and `_` removed, so `client_secret`, `clientSecret` and `Client-Secret` are one name.
 */
const sensitiveNames = [
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'password',
  'passwd',
  'pwd',
  'secret',
  'clientsecret',
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'apitoken',
  'apikey',
  'xapikey',
  'signingsecret',
  'signature',
  'credential',
  'credentials',
  'assertion',
  'clientassertion',
  'sessionid',
];

/** Short names that are credentials in a URL (`?key=`, `?code=` of OAuth, `?sig=` of signed URLs) but not as log fields. */
const sensitiveQueryOnly = ['key', 'code', 'sig', 'auth', 'pass', 'session', 'jwt', 'bearer'];

/** Substrings that mark a name as a credential even when it is not listed (`x-cc-secret`, `dbPassword`). */
const sensitivePart = /secret|password|passwd|token|apikey|signature|credential|authorization|cookie/;

const normalise = (name: string): string => name.toLowerCase().replace(/[-_\s]/g, '');
const fieldNames = new Set(sensitiveNames);
const queryNames = new Set([...sensitiveNames, ...sensitiveQueryOnly]);

/** Whether a log field (or header) of this name holds a credential. */
export function isSensitiveField(name: string): boolean {
  const n = normalise(name);
  return fieldNames.has(n) || sensitivePart.test(n);
}

/** Whether a query parameter of this name holds a credential. */
export function isSensitiveQueryParam(name: string): boolean {
  const n = normalise(name);
  return queryNames.has(n) || sensitivePart.test(n);
}

/** The URL with the values of credential-like query parameters censored (clients do put secrets in URLs). */
export function redactQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const params = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    let decoded = name;
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {}
    return eq >= 0 && isSensitiveQueryParam(decoded) ? `${name}=${censor}` : pair;
  });
  return `${url.slice(0, q)}?${params.join('&')}${hash < 0 ? '' : url.slice(hash)}`;
}

/** A string that looks like a URL or path with a query: only these are rewritten by {@link redactDeep}. */
const urlWithQuery = /^(?:[a-z][a-z0-9+.-]*:\/\/|\/)[^\s]*\?[^\s]*=/i;
const maxDepth = 32;

/**
 * A copy of a log object with credentials censored at any depth: fields and header entries by name, and the
 * credential-like parameters of every URL-shaped string. Objects without anything to censor are returned as they
 * are (no copy); only plain objects and arrays are walked.
 */
export function redactDeep<T>(value: T): T {
  return walk(value, 0, new WeakSet()) as T;
}

function walk(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return urlWithQuery.test(value) ? redactQuery(value) : value;
  if (value === null || typeof value !== 'object' || depth > maxDepth) return value;
  // Only plain data is walked: requests, errors, dates and buffers are left to their serializers.
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return value;
  if (seen.has(value)) return value;
  seen.add(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = walk(item, depth + 1, seen);
      if (next !== item) {
        copy ??= [...value];
        copy[i] = next;
      }
    });
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const next = isSensitiveField(key) && item !== undefined && item !== null ? censor : walk(item, depth + 1, seen);
    if (next !== item) {
      copy ??= { ...(value as Record<string, unknown>) };
      copy[key] = next;
    }
  }
  return copy ?? value;
}
