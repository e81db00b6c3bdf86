import { baseConfigSpec, loadConfig, num, str } from '../src/config';

class Exit extends Error {
  constructor(readonly problems: string[]) {
    super('exit');
  }
}
const fail = (problems: string[]): never => {
  throw new Exit(problems);
};

describe('loadConfig', () => {
  it('coerces types, applies defaults and freezes the result', () => {
    const cfg = loadConfig(
      { ...baseConfigSpec('routing', 8081) },
      { KAFKA_BROKERS: 'a:1', MONGO_URL: 'mongodb://x:1' },
      fail,
    );
    expect(cfg.PORT).toBe(8081);
    expect(cfg.MONGO_DB).toBe('cc_routing');
    expect(Object.isFrozen(cfg)).toBe(true);
  });

  it('lists every missing and malformed variable at once, with its description', () => {
    let problems: string[] = [];
    try {
      loadConfig(
        { ...baseConfigSpec('routing', 8081), RETRIES: num({ desc: 'how many' }), NAME: str() },
        { PORT: 'abc', RETRIES: 'x' },
        fail,
      );
    } catch (err) {
      problems = (err as Exit).problems;
    }
    const keys = problems.map((p) => p.split(':')[0]).sort();
    expect(keys).toEqual(['KAFKA_BROKERS', 'MONGO_URL', 'NAME', 'PORT', 'RETRIES']);
    expect(problems.find((p) => p.startsWith('PORT'))).toMatch(/malformed/);
    expect(problems.find((p) => p.startsWith('KAFKA_BROKERS'))).toMatch(/missing - Comma-separated Kafka/);
  });
});
