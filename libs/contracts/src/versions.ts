/** The versions one API serves and the one `application/json` (or no Accept) gets. */
export interface ApiVersions {
  readonly supported: readonly number[];
  readonly default: number;
}

/**
 * Versions per API, selected by `Accept: application/vnd.newvoicemedia.v{n}+json` (existing clients) or
 * `application/vnd.cc-suite.v{n}+json` (this suite's own type); v0 statistics by `application/json; version=2`.
 */
export const apiVersions = {
  interactions: { supported: [1], default: 1 },
  statistics: { supported: [3], default: 3 },
  'agent-summaries': { supported: [3], default: 3 },
  'conversation-analyzer': { supported: [1, 2, 3], default: 3 },
  'v0-statistics': { supported: [2], default: 2 },
  admin: { supported: [1], default: 1 },
  'agent-desktop': { supported: [1], default: 1 },
} as const satisfies Record<string, ApiVersions>;

/** The vendor media-type prefixes that select a version, e.g. `application/vnd.newvoicemedia.v3+json`. */
export const vendorMediaTypes = ['application/vnd.newvoicemedia', 'application/vnd.cc-suite'] as const;

/** The media type naming version n in this suite's own vendor tree. */
export function versionedMediaType(
  n: number,
  vendor: (typeof vendorMediaTypes)[number] = 'application/vnd.cc-suite',
): string {
  return `${vendor}.v${n}+json`;
}
