import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';

const run = promisify(execFile);

/** The repository root. */
export const root = resolve(__dirname, '../../..');

/** One rendered Kubernetes object (only the fields these checks read are typed). */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: Record<string, unknown>;
}

/** The kustomize that scripts/validate-k8s.sh builds and caches (same pinned version). */
export async function kustomizeBinary(): Promise<string> {
  const script = readFileSync(resolve(root, 'scripts/validate-k8s.sh'), 'utf8');
  const version = /^KUSTOMIZE_VERSION=(\S+)/m.exec(script)?.[1];
  if (!version) throw new Error('KUSTOMIZE_VERSION not found in scripts/validate-k8s.sh');
  const bin = resolve(root, `.cache/k8s-validate/bin/kustomize-${version}`);
  // The validation script builds it on its first run; ./cc test runs that before this tier.
  if (!existsSync(bin)) await run('bash', [resolve(root, 'scripts/validate-k8s.sh'), 'dev'], { cwd: root });
  return bin;
}

/** `kustomize build k8s/overlays/<overlay>`, parsed. */
export async function renderOverlay(overlay: string): Promise<K8sObject[]> {
  const { stdout } = await run(await kustomizeBinary(), ['build', `k8s/overlays/${overlay}`], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => !!o);
}

/** The overlays under k8s/overlays. */
export function overlays(): string[] {
  const { readdirSync } = require('node:fs') as typeof import('node:fs');
  return readdirSync(resolve(root, 'k8s/overlays'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

interface EnvFromSource {
  configMapRef?: { name: string; optional?: boolean };
  secretRef?: { name: string; optional?: boolean };
  prefix?: string;
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    configMapKeyRef?: { name: string; key: string };
    secretKeyRef?: { name: string; key: string };
  };
}
interface Container {
  name: string;
  envFrom?: EnvFromSource[];
  env?: EnvVar[];
}

/** A Deployment's app container and the environment Kubernetes would give it. */
export interface WorkloadEnv {
  /** `app.kubernetes.io/name` of the Deployment: the service folder under services/. */
  service: string;
  env: Record<string, string>;
}

/**
 * The environment of each Deployment's `app` container as the kubelet builds it: envFrom sources in order
 * (a later source wins), then `env` entries; Secret data decoded. A missing ConfigMap or Secret fails, as
 * the pod would not start.
 */
export function workloadEnvs(objects: K8sObject[]): WorkloadEnv[] {
  const maps = new Map<string, Record<string, string>>();
  for (const o of objects) {
    if (o.kind === 'ConfigMap') maps.set(`ConfigMap/${o.metadata.name}`, { ...(o.data ?? {}) });
    if (o.kind === 'Secret') {
      const decoded = Object.fromEntries(
        Object.entries(o.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
      );
      maps.set(`Secret/${o.metadata.name}`, { ...decoded, ...(o.stringData ?? {}) });
    }
  }
  const source = (kind: 'ConfigMap' | 'Secret', name: string, optional = false): Record<string, string> => {
    const found = maps.get(`${kind}/${name}`);
    if (!found && !optional) throw new Error(`${kind} ${name} is referenced but not rendered`);
    return found ?? {};
  };
  // The Strimzi User Operator creates a Secret per KafkaUser, named like it, holding `password`: a placeholder
  // stands in for it, as for the other Secrets.
  for (const o of objects) {
    if (o.kind === 'KafkaUser' && !maps.has(`Secret/${o.metadata.name}`))
      maps.set(`Secret/${o.metadata.name}`, { password: 'REPLACE_ME_KAFKA_USER_PASSWORD' });
  }
  return objects
    .filter((o) => o.kind === 'Deployment')
    .map((d) => {
      const spec = d.spec as { template: { spec: { containers: Container[] } } };
      const app = spec.template.spec.containers.find((c) => c.name === 'app');
      if (!app) throw new Error(`Deployment ${d.metadata.name} has no container named app`);
      const env: Record<string, string> = {};
      for (const from of app.envFrom ?? []) {
        const values = from.configMapRef
          ? source('ConfigMap', from.configMapRef.name, from.configMapRef.optional)
          : from.secretRef
            ? source('Secret', from.secretRef.name, from.secretRef.optional)
            : {};
        for (const [k, v] of Object.entries(values)) env[`${from.prefix ?? ''}${k}`] = v;
      }
      for (const e of app.env ?? []) {
        const ref = e.valueFrom?.configMapKeyRef ?? e.valueFrom?.secretKeyRef;
        if (ref) {
          const value = source(e.valueFrom?.configMapKeyRef ? 'ConfigMap' : 'Secret', ref.name)[ref.key];
          if (value === undefined) throw new Error(`${d.metadata.name}: ${e.name} refers to a missing key ${ref.key}`);
          env[e.name] = value;
        } else if (e.value !== undefined) env[e.name] = e.value;
      }
      const service = d.metadata.labels?.['app.kubernetes.io/name'] ?? d.metadata.name;
      return { service, env };
    });
}
