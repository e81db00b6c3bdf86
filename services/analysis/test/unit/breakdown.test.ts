import { callTimeBreakDown, normalize, speechIntervals } from '../../src/domain/breakdown';

describe('callTimeBreakDown', () => {
  it('splits a call into agent only, customer only, cross-talk and silence that add up to its length', () => {
    const agent = [
      { start: 1, end: 4 },
      { start: 9, end: 12 },
    ];
    const customer = [
      { start: 5, end: 8 },
      { start: 11, end: 13 },
    ];
    const b = callTimeBreakDown(agent, customer, 15);
    expect(b).toEqual({ agent: 5, customer: 4, crossTalk: 1, silence: 5 });
    expect(b.agent + b.customer + b.crossTalk + b.silence).toBeCloseTo(15, 5);
  });

  it('merges a speaker’s overlapping intervals and clips them to the call', () => {
    const b = callTimeBreakDown(
      [
        { start: -1, end: 2 },
        { start: 1, end: 3 },
        { start: 9, end: 12 },
      ],
      [],
      10,
    );
    expect(b).toEqual({ agent: 4, customer: 0, crossTalk: 0, silence: 6 });
  });

  it('counts full overlap as cross-talk only', () => {
    expect(callTimeBreakDown([{ start: 0, end: 4 }], [{ start: 1, end: 2 }], 4)).toEqual({
      agent: 3,
      customer: 0,
      crossTalk: 1,
      silence: 0,
    });
  });

  it('answers an empty call as silence', () => {
    expect(callTimeBreakDown([], [], 7.5)).toEqual({ agent: 0, customer: 0, crossTalk: 0, silence: 7.5 });
  });
});

describe('speechIntervals', () => {
  const frames = (pattern: string) => [...pattern].map((c) => c === '1');

  it('bridges pauses shorter than the gap and drops blips shorter than the minimum', () => {
    // 0.1 s frames: speech 0.2-0.6, a 0.2 s pause, speech 0.8-1.0, a long pause, one 0.1 s blip at 2.0
    const ivs = speechIntervals(frames('001111001100000000001000'), 0.1, { bridgeGap: 0.3, minSpeech: 0.15 });
    expect(ivs).toHaveLength(1);
    expect(ivs[0]?.start).toBeCloseTo(0.2, 5);
    expect(ivs[0]?.end).toBeCloseTo(1.0, 5);
  });

  it('keeps speech running to the last frame', () => {
    const ivs = speechIntervals(frames('0011'), 0.5, { bridgeGap: 0.1, minSpeech: 0.1 });
    expect(ivs).toEqual([{ start: 1, end: 2 }]);
  });

  it('normalize sorts and unions', () => {
    expect(
      normalize(
        [
          { start: 5, end: 6 },
          { start: 1, end: 3 },
          { start: 2, end: 4 },
        ],
        10,
      ),
    ).toEqual([
      { start: 1, end: 4 },
      { start: 5, end: 6 },
    ]);
  });
});
