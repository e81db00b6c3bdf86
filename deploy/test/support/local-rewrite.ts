/** How a rendered environment is moved from the cluster onto this machine. */
export interface LocalTarget {
  service: string;
  /** Local port of every service (the cluster's `http://<service>:8080` becomes `http://127.0.0.1:<port>`). */
  ports: Record<string, number>;
  kafkaBrokers: string;
  mongoUrl: string;
  /** Makes databases and consumer groups this run's own on a shared broker and store. */
  suffix: string;
  /** Test values for Secret placeholders (`REPLACE_ME...`), by key. */
  testSecrets: Record<string, string>;
}

/**
 * The environment a pod gets, with only addresses rewritten: Kafka (and its TLS/SASL settings) and MongoDB to the local stack, the
 * listening port and the cluster DNS names of the services to free local ports, database and consumer group
 * names suffixed (isolation on shared infrastructure), and Secret placeholders replaced by test values. Every
 * other value stays exactly as rendered, so a wrong or missing setting shows.
 */
export function rewriteForLocal(env: Record<string, string>, t: LocalTarget): Record<string, string> {
  const out: Record<string, string> = {};
  const serviceHost = new RegExp(
    `^(https?)://(${Object.keys(t.ports).join('|')})(?:\\.[a-z0-9-]+(?:\\.svc(?:\\.cluster\\.local)?)?)?:\\d+`,
  );
  for (const [key, value] of Object.entries(env)) {
    // The local broker is PLAINTEXT: its address includes dropping TLS and SASL (checked before, see
    // kafkaSecurity in the boot test).
    if (/^KAFKA_(SSL|SASL)/.test(key)) continue;
    if (key === 'KAFKA_BROKERS') out[key] = t.kafkaBrokers;
    else if (key === 'MONGO_URL') out[key] = t.mongoUrl;
    else if (key === 'PORT') out[key] = String(t.ports[t.service]);
    else if (key === 'KAFKA_GROUP_ID') out[key] = `${value}.${t.suffix}`;
    else if (value.includes('REPLACE_ME')) {
      const test = t.testSecrets[key];
      if (test === undefined) throw new Error(`${t.service}: no test value for the placeholder of ${key}`);
      out[key] = test;
    } else {
      const m = serviceHost.exec(value);
      out[key] = m ? value.replace(serviceHost, `${m[1]}://127.0.0.1:${t.ports[m[2] as string]}`) : value;
    }
  }
  if (!('PORT' in out)) throw new Error(`${t.service}: the manifests give no PORT`);
  out.MONGO_DB = `${env.MONGO_DB ?? `cc_${t.service.replace(/-/g, '_')}`}_${t.suffix}`;
  return out;
}
