import { baseConfigSpec, loadConfig } from '@cc/kit';

/** The notifier service's settings, parsed once at start (exits non-zero naming every bad variable). */
export const config = loadConfig({
  ...baseConfigSpec('notifier', 8083),
});

/** The notifier service's settings. */
export type Config = typeof config;
