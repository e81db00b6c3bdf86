/**
 * Moves the consumer groups of one local instance (`CC_INSTANCE`) to the end of every suite topic, so a suite
 * started beside others on a broker with a long history (tests, other suites) begins from now instead of
 * replaying it. Run while that instance's services are stopped (a group with members cannot be moved).
 * Usage: tsx deploy/local/skip-history.ts <instance>
 */
import { skipTopicHistory } from '@cc/testing';
import { services } from './services';

async function main(): Promise<void> {
  const instance = process.argv[2];
  if (!instance) throw new Error('usage: skip-history.ts <instance>');
  const brokers = (process.env.KAFKA_BROKERS || '127.0.0.1:9092').split(',');
  const groups = services.map((s) => `cc-${instance}.${s.name}`);
  const topics = await skipTopicHistory(brokers, groups, 'skip-history');
  process.stdout.write(`[skip-history] cc-${instance}.* start at the end of ${topics} topics\n`);
}

main().catch((err: Error) => {
  process.stderr.write(`[skip-history] ${err.message}\n`);
  process.exit(1);
});
