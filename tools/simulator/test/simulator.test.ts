import { createHmac } from 'node:crypto';
import { attemptOf, latencySummary, slowest, timeNotification } from '../src/latency';
import { parseDuration, parseOptions, UsageError } from '../src/options';
import { callPlan, topology } from '../src/plan';
import { Rng, seedOf } from '../src/random';
import { sumMetric, summarise } from '../src/soak';
import { percentile, serviceLevel } from '../src/stats';
import { synthesizeCall } from '../src/wav';
import { checkNotifications, verifySignature } from '../src/webhook';

const planOpts = {
  seed: '7',
  callsPerHour: 3600,
  durationMs: 600_000,
  ahtMs: 30_000,
  recordedShare: 0.1,
  routes: ['a', 'b'],
};

describe('seeded runs', () => {
  it('gives the same draws for the same seed and different ones for another', () => {
    const a = new Rng(seedOf('x'));
    const b = new Rng(seedOf('x'));
    const c = new Rng(seedOf('y'));
    const da = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(da);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(da);
  });

  it('plans the same calls and agents for the same seed', () => {
    expect(callPlan(planOpts)).toEqual(callPlan(planOpts));
    expect(callPlan({ ...planOpts, seed: '8' })).not.toEqual(callPlan(planOpts));
    expect(topology('sim', 10, '7')).toEqual(topology('sim', 10, '7'));
  });

  it('arrives at about the asked rate (Poisson), with every call inside the duration and sane times', () => {
    const calls = callPlan({ ...planOpts, durationMs: 3_600_000 });
    // 3600 expected; a Poisson count's standard deviation is 60.
    expect(calls.length).toBeGreaterThan(3600 - 300);
    expect(calls.length).toBeLessThan(3600 + 300);
    const mediaShare = calls.filter((c) => c.media === 'Phone').length / calls.length;
    expect(mediaShare).toBeGreaterThan(0.6);
    expect(mediaShare).toBeLessThan(0.8);
    for (const c of calls) {
      expect(c.atMs).toBeLessThan(3_600_000);
      expect(c.talkMs).toBeGreaterThan(0);
      expect(c.route === 'a' || c.route === 'b').toBe(true);
      if (c.media === 'Email') expect(c.patienceMs).toBe(Number.POSITIVE_INFINITY);
      if (c.recorded) expect(c.media).toBe('Phone');
    }
    const meanHandle = calls.reduce((s, c) => s + c.talkMs + c.holdMs + c.wrapMs, 0) / calls.length;
    expect(Math.abs(meanHandle - 30_000)).toBeLessThan(3_000);
  });

  it('gives every agent English and Billing or Technical (a call always has agents for its skill)', () => {
    for (const a of topology('sim', 50, '1').agents) {
      const names = a.skills.map((s) => s.name);
      expect(names).toContain('English');
      expect(names.includes('Billing') || names.includes('Technical')).toBe(true);
    }
  });
});

describe('options', () => {
  it('parses durations and refuses bad ones naming the flag', () => {
    expect(parseDuration('5m', '--duration')).toBe(300_000);
    expect(parseDuration('90', '--aht')).toBe(90_000);
    expect(parseDuration('250ms', '--aht')).toBe(250);
    expect(() => parseDuration('5 minutes', '--duration')).toThrow('--duration');
  });

  it('reads flags over environment over defaults; soak sets the duration', () => {
    const o = parseOptions(['--agents', '50', '--calls-per-hour=3000', '--soak', '2m'], { CC_PORT_BASE: '8180' }, '/r');
    expect(o).toMatchObject({ agents: 50, callsPerHour: 3000, durationMs: 120_000, soak: true });
    expect(o.gatewayUrl).toBe('http://127.0.0.1:8180');
    expect(o.metricsBase).toBe(8180);
    expect(o.tlsCert).toBe('/r/.data/dev-tls/cert.pem');
    expect(() => parseOptions(['--agent', '5'], {}, '/r')).toThrow(UsageError);
    expect(() => parseOptions(['--agents', '0'], {}, '/r')).toThrow('--agents');
    expect(() => parseOptions(['--recorded', '2'], {}, '/r')).toThrow('--recorded');
  });
});

describe('webhook checks', () => {
  const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
  const sign = (id: string, ts: string, raw: string) =>
    `v1,${createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(`${id}.${ts}.${raw}`)
      .digest('base64')}`;

  it('accepts a valid Standard Webhooks signature (among several) and refuses tampering and old timestamps', () => {
    const now = 1_700_000_000_000;
    const ts = String(now / 1000);
    const raw = '[{"notification":"Release"}]';
    const post = { id: 'w1', timestamp: ts, signature: `v1,bm90aGluZw== ${sign('w1', ts, raw)}`, raw };
    expect(verifySignature(['whsec_other', secret], post, now)).toBeNull();
    expect(verifySignature([secret], { ...post, raw: `${raw} ` }, now)).toMatch(/no v1 signature/);
    expect(verifySignature([secret], post, now + 301_000)).toMatch(/5 minutes/);
    expect(verifySignature([secret], { ...post, id: undefined }, now)).toMatch(/missing/);
  });

  it('counts missing, redelivered, doubled and unexpected notifications by webhook-id', () => {
    const expected = new Map([
      ['AssignToAgent i1', 2],
      ['Release i1', 1],
      ['AssignToAgent i2', 1],
      ['Release i2', 1],
    ]);
    const check = checkNotifications(expected, [
      { key: 'AssignToAgent i1', webhookId: 'a' },
      { key: 'AssignToAgent i1', webhookId: 'a' }, // redelivery: same id
      { key: 'AssignToAgent i1', webhookId: 'b' },
      { key: 'Release i1', webhookId: 'c' },
      { key: 'AssignToAgent i2', webhookId: 'd' },
      { key: 'AssignToAgent i2', webhookId: 'e' }, // the same notification twice under two ids
      { key: 'Release i3', webhookId: 'f' },
    ]);
    expect(check).toEqual({
      expected: 5,
      received: 4,
      missing: ['Release i2'],
      duplicates: 1,
      doubled: ['AssignToAgent i2 (2 webhook-ids, want 1)'],
      unexpected: ['Release i3'],
    });
  });
});

describe('notification latency', () => {
  const item = (kind: 'AssignToAgent' | 'Release', agent: string, occurredAt: number) => ({
    notification: kind,
    objectid: 'i1',
    notificationid: `${kind}-${agent}`,
    externalId: null,
    params: { AgentId: agent, OccurredAt: new Date(occurredAt).toISOString() },
  });

  it("times each notification from its own event, also when it beats the desk's answer (a transfer's second assignment)", () => {
    // The first leg: accepted by a1 at t=1000 (the desk got its answer at 1030), talk, transfer; a2 accepts at 46,000
    // and its AssignToAgent arrives at 46,015, before a2's accept answer (46,040). Timed from the desk's latest
    // earlier answer, that was 45,015 ms; from its event it is 15 ms.
    const desk = {
      assignments: [
        { agentId: 'a1', at: 1030 },
        { agentId: 'a2', at: 46_040 },
      ],
      releasedAt: 80_050,
      transferred: true,
    };
    const timings = [
      timeNotification(item('AssignToAgent', 'a1', 1000), 'w1', 1012, 'w1:1'),
      timeNotification(item('AssignToAgent', 'a2', 46_000), 'w2', 46_015, 'w2:1'),
      timeNotification(item('Release', 'a2', 80_000), 'w3', 80_300, 'w3:2'),
    ];
    expect(timings.map((t) => t.latencyMs)).toEqual([12, 15, 300]);
    const summary = latencySummary(timings);
    expect(summary).toMatchObject({ samples: 3, p50: 15, p99: 300, max: 300, retried: 1 });
    const slow = slowest(timings, () => desk, 2);
    expect(slow.map((s) => [s.webhookId, s.latencyMs, s.sinceDeskAnswerMs, s.attempt])).toEqual([
      ['w3', 300, 250, 2],
      ['w2', 15, -25, 1],
    ]);
    expect(slow[0]?.transferred).toBe(true);
  });

  it('leaves a notification without OccurredAt untimed and reads the attempt from x-request-id', () => {
    const t = timeNotification({ ...item('Release', 'a1', 0), params: {} }, 'w', 5, undefined);
    expect(t.latencyMs).toBeNull();
    expect(latencySummary([t])).toMatchObject({ samples: 0, p50: null });
    expect(attemptOf('9b1d:3')).toBe(3);
    expect(attemptOf('9b1d')).toBeNull();
    expect(attemptOf('9b1d:x')).toBeNull();
  });
});

describe('numbers', () => {
  it('takes percentiles by nearest rank and service level over answered plus abandoned', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(
      percentile(
        [...Array(100).keys()].map((i) => i + 1),
        99,
      ),
    ).toBe(99);
    expect(serviceLevel(8, 9, 1)).toBe(0.8);
    expect(serviceLevel(0, 0, 0)).toBeNull();
  });

  it('sums Prometheus samples by label and judges RSS growth, CPU, lag and new errors', () => {
    const text = [
      '# HELP kafka_consumer_lag x',
      'kafka_consumer_lag{group="g",topic="t",partition="0"} 3',
      'kafka_consumer_lag{group="g",topic="t",partition="1"} 4',
      'http_request_duration_seconds_count{method="GET",route="/x",status="200"} 10',
      'http_request_duration_seconds_count{method="GET",route="/x",status="503"} 2',
    ].join('\n');
    expect(sumMetric(text, 'kafka_consumer_lag')).toBe(7);
    expect(sumMetric(text, 'http_request_duration_seconds_count', (l) => /status="5/.test(l))).toBe(2);
    expect(sumMetric(text, 'missing_metric')).toBeNull();
    const mb = 1048576;
    const samples = [0, 1, 2, 3, 4, 5].map((i) => ({
      at: i * 60_000,
      rssBytes: (i < 3 ? 100 : 105) * mb,
      cpuSeconds: i * 6,
      lag: i === 2 ? 9 : 0,
      errors: i < 4 ? 1 : 2,
    }));
    expect(summarise(samples, 120_000)).toEqual({
      samples: 6,
      rssFirstMb: 100,
      rssLastMb: 105,
      rssGrowth: 0.05,
      cpuPercentMean: 10,
      lagMax: 9,
      lagLast: 0,
      errors: 1,
    });
  });

  it('synthesizes a stereo 16-bit PCM WAV of the asked length, the same for the same seed', () => {
    const wav = synthesizeCall(new Rng(1), 2, 8000);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.readUInt16LE(22)).toBe(2);
    expect(wav.readUInt16LE(34)).toBe(16);
    expect(wav.readUInt32LE(40)).toBe(2 * 8000 * 4);
    expect(wav.length).toBe(44 + 2 * 8000 * 4);
    expect(synthesizeCall(new Rng(1), 2, 8000).equals(wav)).toBe(true);
    let leftEnergy = 0;
    let rightEnergy = 0;
    for (let i = 44; i < wav.length; i += 4) {
      leftEnergy += Math.abs(wav.readInt16LE(i));
      rightEnergy += Math.abs(wav.readInt16LE(i + 2));
    }
    expect(leftEnergy).toBeGreaterThan(0);
    expect(rightEnergy).toBeGreaterThan(0);
  });
});
