import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { callTimeBreakDown, speechIntervals } from '../../src/domain/breakdown';
import { parseWav, stereoCall } from '../../src/domain/wav';
import { detectVoice, vadFrameSeconds } from '../../src/engines/webrtc-vad';

interface FixtureCall {
  name: string;
  file: string;
  duration: number;
  expectedBreakDown: Record<'agent' | 'customer' | 'silence' | 'crossTalk', number>;
}

const calls = JSON.parse(readFileSync(join(__dirname, '../fixtures/calls.json'), 'utf8')) as FixtureCall[];

describe('WebRTC VAD on the fixture calls', () => {
  it('calls digital silence non-speech', () => {
    expect(detectVoice(new Int16Array(16000), 16000).some(Boolean)).toBe(false);
  });

  it.each(calls.map((c) => [c.name, c] as const))('%s: breakdown within 0.5 s of the known timeline', (_n, c) => {
    const call = stereoCall(parseWav(readFileSync(join(__dirname, '../fixtures', c.file))));
    const agent = speechIntervals(detectVoice(call.agent, 16000), vadFrameSeconds);
    const customer = speechIntervals(detectVoice(call.customer, 16000), vadFrameSeconds);
    const b = callTimeBreakDown(agent, customer, call.agent.length / 16000);
    for (const k of ['agent', 'customer', 'silence', 'crossTalk'] as const) {
      expect([k, Math.abs(b[k] - c.expectedBreakDown[k])]).toEqual([k, expect.any(Number)]);
      expect(Math.abs(b[k] - c.expectedBreakDown[k])).toBeLessThanOrEqual(0.5);
    }
  });
});
