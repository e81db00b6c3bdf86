import { stopSuite } from './suite';

/** Stops every service the e2e run started. */
export default async function globalTeardown(): Promise<void> {
  await stopSuite();
}
