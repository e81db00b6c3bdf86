import { baseConfigSpec, loadConfig } from '@cc/kit';
import { type KafkaSecuritySettings, kafkaSecurity } from '../src/kafka';

const off: KafkaSecuritySettings = {
  KAFKA_SSL: false,
  KAFKA_SSL_CA_FILE: '',
  KAFKA_SSL_CERT_FILE: '',
  KAFKA_SSL_KEY_FILE: '',
  KAFKA_SASL_MECHANISM: '',
  KAFKA_SASL_USERNAME: '',
  KAFKA_SASL_PASSWORD: '',
};
const files: Record<string, string> = { '/ca.crt': 'CA PEM', '/user.crt': 'CERT PEM', '/user.key': 'KEY PEM' };
const read = (path: string) => {
  const content = files[path];
  if (content === undefined) throw new Error('ENOENT');
  return content;
};

describe('Kafka security settings', () => {
  it('are PLAINTEXT by default, as the environment gives them', () => {
    const config = loadConfig(baseConfigSpec('t', 1), { KAFKA_BROKERS: 'k:9092', MONGO_URL: 'mongodb://m:27017' });
    expect(kafkaSecurity(config, read)).toEqual({ ssl: false });
  });

  it('turn on TLS with the system CAs, or with a CA file, or mutual TLS', () => {
    expect(kafkaSecurity({ ...off, KAFKA_SSL: true }, read)).toEqual({ ssl: true });
    expect(kafkaSecurity({ ...off, KAFKA_SSL: true, KAFKA_SSL_CA_FILE: '/ca.crt' }, read)).toEqual({
      ssl: { ca: 'CA PEM' },
    });
    expect(
      kafkaSecurity(
        { ...off, KAFKA_SSL: true, KAFKA_SSL_CERT_FILE: '/user.crt', KAFKA_SSL_KEY_FILE: '/user.key' },
        read,
      ),
    ).toEqual({ ssl: { cert: 'CERT PEM', key: 'KEY PEM' } });
  });

  it('give SASL/SCRAM credentials to the client', () => {
    const settings = loadConfig(baseConfigSpec('t', 1), {
      KAFKA_BROKERS: 'k:9093',
      MONGO_URL: 'mongodb://m:27017',
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA_FILE: '/ca.crt',
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'cc-routing',
      KAFKA_SASL_PASSWORD: 's3cret',
    });
    expect(kafkaSecurity(settings, read)).toEqual({
      ssl: { ca: 'CA PEM' },
      sasl: { mechanism: 'scram-sha-512', username: 'cc-routing', password: 's3cret' },
    });
  });

  it('refuse inconsistent settings, naming each', () => {
    expect(() => kafkaSecurity({ ...off, KAFKA_SASL_MECHANISM: 'scram-sha-256' }, read)).toThrow(
      /KAFKA_SASL_USERNAME: required.*KAFKA_SASL_PASSWORD: required/,
    );
    expect(() => kafkaSecurity({ ...off, KAFKA_SSL: true, KAFKA_SSL_CERT_FILE: '/user.crt' }, read)).toThrow(
      'give both or neither',
    );
    expect(() => kafkaSecurity({ ...off, KAFKA_SSL: true, KAFKA_SSL_CA_FILE: '/missing.crt' }, read)).toThrow(
      'KAFKA_SSL_CA_FILE: cannot read /missing.crt',
    );
    expect(() => kafkaSecurity({ ...off, KAFKA_SSL_CA_FILE: '/ca.crt' }, read)).toThrow('set KAFKA_SSL=true');
  });

  it('are rejected by the config when the mechanism is unknown', () => {
    const problems: string[] = [];
    expect(() =>
      loadConfig(
        baseConfigSpec('t', 1),
        { KAFKA_BROKERS: 'k:9092', MONGO_URL: 'mongodb://m:27017', KAFKA_SASL_MECHANISM: 'gssapi' },
        (p) => {
          problems.push(...p);
          throw new Error('invalid');
        },
      ),
    ).toThrow('invalid');
    expect(problems.join()).toMatch(/^KAFKA_SASL_MECHANISM: malformed/);
  });
});
