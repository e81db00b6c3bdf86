import type { RequestHandler } from 'express';
import { AppError } from '../errors';

/** The versions an API serves and the one `application/json`, `*\/*` or no Accept gets. */
export interface VersionOptions {
  supported: readonly number[];
  default: number;
}

/** The outcome of content negotiation: the version and the media type the response carries. */
export type Negotiation =
  | { ok: true; version: number; mediaType: string }
  | { ok: false; requested: number[]; ranges: string[] };

declare global {
  namespace Express {
    interface Locals {
      /** The API version negotiated from Accept by {@link negotiateVersion}. */
      apiVersion?: number;
      /** The media type the response is served as (a vendor type or application/json). */
      apiMediaType?: string;
    }
  }
}

const vendorRe = /^application\/vnd\.(newvoicemedia|cc-suite)\.v(\d{1,4})\+json$/;

interface Range {
  type: string;
  q: number;
  version?: number;
  vendor?: string;
  order: number;
}

function parseAccept(header: string): Range[] {
  return header
    .split(',')
    .map((part, order) => {
      const [rawType = '', ...params] = part.split(';');
      const range: Range = { type: rawType.trim().toLowerCase(), q: 1, order };
      for (const param of params) {
        const [key = '', value = ''] = param.split('=').map((s) => s.trim().toLowerCase());
        if (key === 'q') range.q = Number.isFinite(Number(value)) ? Number(value) : 0;
        if (key === 'version' && /^\d{1,4}$/.test(value)) range.version = Number(value);
      }
      const vendor = vendorRe.exec(range.type);
      if (vendor) {
        range.vendor = vendor[1];
        range.version = Number(vendor[2]);
      }
      return range;
    })
    .filter((r) => r.type !== '' && r.q > 0);
}

const specificity = (r: Range): number =>
  r.vendor || (r.type === 'application/json' && r.version !== undefined)
    ? 3
    : r.type === 'application/json'
      ? 2
      : r.type === 'application/*'
        ? 1
        : 0;

/**
 * Picks the API version from an Accept header: `application/vnd.newvoicemedia.v{n}+json`,
 * `application/vnd.cc-suite.v{n}+json` or `application/json; version={n}` select n; `application/json`,
 * `application/*`, `*\/*`, no Accept or one naming no version at all select the default. Higher q wins, then the
 * more specific range; a version that is not served is refused.
 */
export function negotiate(accept: string | undefined, options: VersionOptions): Negotiation {
  if (!accept?.trim()) return { ok: true, version: options.default, mediaType: 'application/json' };
  const ranges = parseAccept(accept).sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.order - b.order);
  const requested: number[] = [];
  for (const r of ranges) {
    if (r.version !== undefined && (r.vendor || r.type === 'application/json')) {
      if (options.supported.includes(r.version)) {
        const mediaType = r.vendor ? `application/vnd.${r.vendor}.v${r.version}+json` : 'application/json';
        return { ok: true, version: r.version, mediaType };
      }
      requested.push(r.version);
      continue;
    }
    if (r.type === 'application/json' || r.type === 'application/*' || r.type === '*/*') {
      return { ok: true, version: options.default, mediaType: 'application/json' };
    }
  }
  // Nothing asks for a version (e.g. `text/html`, or any odd string): RFC 9110 lets a server disregard Accept and send
  // its default; the contract documents Accept as any string, and only a version we do not serve is refused.
  if (!requested.length && !versionRequest.test(accept)) {
    return { ok: true, version: options.default, mediaType: 'application/json' };
  }
  return { ok: false, requested, ranges: ranges.map((r) => r.type) };
}

/** An Accept header naming a version: a vendor media type or a `version=` parameter. */
const versionRequest = /vnd\.(newvoicemedia|cc-suite)\.v|;\s*version\s*=/i;

/**
 * Express middleware negotiating the API version from Accept: sets `res.locals.apiVersion` and
 * `res.locals.apiMediaType`, the response Content-Type and `Vary: Accept`; an unsupported version (or no acceptable
 * media type) is a `REQUEST.NOT_ACCEPTABLE` error (406) listing `validVersions`.
 */
export function negotiateVersion(options: VersionOptions): RequestHandler {
  if (!options.supported.includes(options.default)) {
    throw new Error(`default version ${options.default} is not among the supported ${options.supported.join(', ')}`);
  }
  const validVersions = [...options.supported].sort((a, b) => a - b);
  const list = validVersions.join(', ');
  return (req, res, next) => {
    res.vary('Accept');
    const result = negotiate(req.header('accept'), options);
    if (!result.ok) {
      const what = result.requested.length
        ? `Version ${[...new Set(result.requested)].join(', ')} of this API is not available`
        : `None of the accepted media types (${result.ranges.join(', ') || 'none'}) is served`;
      throw new AppError(
        'REQUEST.NOT_ACCEPTABLE',
        `${what}; valid versions: ${list} (application/vnd.cc-suite.v{n}+json, application/vnd.newvoicemedia.v{n}+json or application/json)`,
        [],
        {
          validVersions,
        },
      );
    }
    res.locals.apiVersion = result.version;
    res.locals.apiMediaType = result.mediaType;
    res.setHeader('Content-Type', `${result.mediaType}; charset=utf-8`);
    next();
  };
}
