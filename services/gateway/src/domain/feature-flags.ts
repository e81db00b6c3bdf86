/** The account feature flags (libs/contracts `featureFlags`). */
export interface FeatureFlags {
  agentSummaries: boolean;
  conversationAnalysis: boolean;
  v0Statistics: boolean;
}

/** Flags of a new account: agent summaries are opt-in (spec: data only if enabled), the rest on. */
export const defaultFeatureFlags: Readonly<FeatureFlags> = Object.freeze({
  agentSummaries: false,
  conversationAnalysis: true,
  v0Statistics: true,
});

/** Applies a partial change; returns the full new set and the names whose value actually changed. */
export function applyFlagsPatch(
  current: Partial<FeatureFlags> | undefined,
  patch: Partial<FeatureFlags>,
): { flags: FeatureFlags; changed: (keyof FeatureFlags)[] } {
  const before: FeatureFlags = { ...defaultFeatureFlags, ...(current ?? {}) };
  const flags: FeatureFlags = { ...before };
  const changed: (keyof FeatureFlags)[] = [];
  for (const key of Object.keys(defaultFeatureFlags) as (keyof FeatureFlags)[]) {
    const value = patch[key];
    if (typeof value === 'boolean' && value !== before[key]) {
      flags[key] = value;
      changed.push(key);
    }
  }
  return { flags, changed };
}
