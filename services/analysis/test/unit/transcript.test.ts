import { confidenceOf, formatTranscript, type TimedWord, toTurns } from '../../src/domain/transcript';
import { speakerText, wordErrors } from '../../src/domain/word-error-rate';

const w = (speaker: 'agent' | 'customer', word: string, start: number, p?: number): TimedWord => ({
  speaker,
  word,
  start,
  end: start + 0.3,
  ...(p !== undefined ? { p } : {}),
});

describe('transcript', () => {
  it('groups each speaker’s words into turns and keeps cross-talk as two overlapping turns', () => {
    const turns = toTurns([
      w('agent', 'a', 0.5),
      w('agent', 'discount', 0.9),
      w('customer', 'no', 1.0),
      w('agent', 'bill', 1.3),
      w('customer', 'thanks', 1.4),
      w('agent', 'else', 5),
    ]);
    expect(formatTranscript(turns)).toBe(
      ['[00:00.5 Agent] a discount bill', '[00:01.0 Customer] no thanks', '[00:05.0 Agent] else'].join('\n'),
    );
  });

  it('stamps minutes and seconds', () => {
    expect(formatTranscript([{ speaker: 'customer', start: 75.25, end: 76, text: 'hi' }])).toBe(
      '[01:15.3 Customer] hi',
    );
  });

  it('derives confidence from duration-weighted posteriors with the documented thresholds', () => {
    expect(confidenceOf([w('agent', 'x', 0, 0.9), w('agent', 'y', 1, 0.7)])).toBe('High');
    expect(confidenceOf([w('agent', 'x', 0, 0.9), w('agent', 'y', 1, 0.1)])).toBe('Medium');
    expect(confidenceOf([w('agent', 'x', 0, 0.3), w('agent', 'y', 1, 0.2)])).toBe('Low');
    expect(confidenceOf([w('agent', 'x', 0)])).toBeNull();
  });
});

describe('word error rate', () => {
  it('counts substitutions, insertions and deletions against the reference words', () => {
    expect(wordErrors('thank you for calling', 'thank you for calling')).toEqual({ errors: 0, words: 4 });
    expect(wordErrors('thank you for calling', 'thank you fall calling today')).toEqual({ errors: 2, words: 4 });
    expect(wordErrors('I would like to cancel', 'would like cancel')).toEqual({ errors: 2, words: 5 });
  });

  it('reads one speaker out of a formatted transcript', () => {
    const t = '[00:00.8 Agent] thank you\n[00:04.8 Customer] no\n[00:09.4 Agent] bye';
    expect(speakerText(t, 'Agent')).toBe('thank you bye');
    expect(speakerText(t, 'Customer')).toBe('no');
  });
});
