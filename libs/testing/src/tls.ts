import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A self-signed certificate for 127.0.0.1 and localhost, made with the `openssl` CLI. */
export interface TestCertificate {
  dir: string;
  keyPath: string;
  certPath: string;
  key: string;
  cert: string;
}

/**
 * Generates a fresh self-signed certificate (EC P-256, two days) into `dir` (default: a new temporary
 * directory), for HTTPS servers a test runs as provider endpoints.
 */
export function selfSignedCertificate(dir = mkdtempSync(join(tmpdir(), 'cc-test-tls-'))): TestCertificate {
  mkdirSync(dir, { recursive: true });
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { dir, keyPath, certPath, key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') };
}
