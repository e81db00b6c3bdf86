// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are Compose interpolation syntax, not templates
import { composeServiceEnvs, interpolate } from './support/compose';
import { checkConfig, requiredVariables, serviceNames } from './support/config-requirements';

// Every service in docker-compose.yml must get every variable its config requires, and its config must
// accept the values; the required list comes from the services' config specs, never from a hand-kept list.
// The shell environment is empty, as on a fresh host: defaults in the file must be enough.
const compose = composeServiceEnvs();

describe('docker-compose.yml', () => {
  it('runs every service of the suite', () => {
    expect([...compose.keys()].sort()).toEqual(serviceNames());
  });

  it('knows the required variables from the config specs (the check cannot pass vacuously)', async () => {
    expect(await requiredVariables('gateway')).toEqual(
      expect.arrayContaining(['CC_ENCRYPTION_KEYS', 'KAFKA_BROKERS', 'MONGO_URL']),
    );
  });

  it.each(
    serviceNames(),
  )('%s gets every variable its config requires, and the config accepts them', async (service) => {
    const entry = compose.get(service);
    expect(entry).toBeDefined();
    const env = entry?.env ?? {};
    const required = await requiredVariables(service);
    expect(required.filter((k) => !(k in env))).toEqual([]);
    expect((await checkConfig(service, env)).problems).toEqual([]);
  });

  it.each(
    serviceNames().filter((s) => s !== 'gateway'),
  )('%s verifies tokens against the gateway container, not its own', (service) => {
    const jwks = compose.get(service)?.env.AUTH_JWKS_URL;
    expect(jwks).toBe('http://gateway:8080/.well-known/jwks.json');
  });

  it('the gateway is its own issuer (AUTH_JWKS_URL would turn its token endpoints off)', () => {
    expect(compose.get('gateway')?.env).not.toHaveProperty('AUTH_JWKS_URL');
  });

  it.each(serviceNames())('%s has a healthcheck', (service) => {
    expect(compose.get(service)?.hasHealthcheck).toBe(true);
  });
});

describe('Compose interpolation', () => {
  it('applies defaults, values and required markers as Compose does', () => {
    expect(interpolate('${A:-x}', {})).toBe('x');
    expect(interpolate('${A:-x}', { A: '' })).toBe('x');
    expect(interpolate('${A-x}', { A: '' })).toBe('');
    expect(interpolate('a${A}b$$', { A: '1' })).toBe('a1b$');
    expect(() => interpolate('${A:?set A}', {})).toThrow('set A');
  });
});
