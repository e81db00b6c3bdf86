import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMultipart } from '../../src/domain/multipart';
import { encodeMonoWav, encodeStereoWav, monoPartsCall, parseWav, resample, stereoCall } from '../../src/domain/wav';

const tone = (n: number, amp = 1000) => Int16Array.from({ length: n }, (_, i) => Math.round(amp * Math.sin(i / 5)));

describe('parseWav', () => {
  it('reads a stereo 16-bit WAV and splits agent and customer by channel', () => {
    const left = tone(8000);
    const right = new Int16Array(8000);
    const call = stereoCall(parseWav(encodeStereoWav(left, right, 16000)));
    expect(Array.from(call.agent.subarray(0, 20))).toEqual(Array.from(left.subarray(0, 20)));
    expect(call.customer.every((x) => x === 0)).toBe(true);
    const swapped = stereoCall(parseWav(encodeStereoWav(left, right, 16000)), 'right');
    expect(swapped.agent.every((x) => x === 0)).toBe(true);
  });

  it('resamples to 16 kHz', () => {
    const wav = parseWav(encodeStereoWav(tone(8000), tone(8000), 8000));
    expect(stereoCall(wav).agent.length).toBe(16000);
    expect(resample(tone(22050), 22050).length).toBe(16000);
  });

  it('refuses what is not a WAV (400) and other encodings (415)', () => {
    expect(() => parseWav(Buffer.from('hello, not audio at all'))).toThrow(
      expect.objectContaining({ code: 'ANALYSIS.BAD_AUDIO' }),
    );
    const float = encodeMonoWav(tone(4000), 16000);
    float.writeUInt16LE(3, 20); // IEEE float tag
    expect(() => parseWav(float)).toThrow(expect.objectContaining({ code: 'ANALYSIS.UNSUPPORTED_AUDIO' }));
    const truncated = encodeMonoWav(tone(4000), 16000).subarray(0, 30);
    expect(() => parseWav(truncated)).toThrow(expect.objectContaining({ code: 'ANALYSIS.BAD_AUDIO' }));
  });

  it('refuses a mono file where stereo is needed (415)', () => {
    expect(() => stereoCall(parseWav(encodeMonoWav(tone(4000), 16000)))).toThrow(
      expect.objectContaining({ code: 'ANALYSIS.UNSUPPORTED_AUDIO' }),
    );
  });

  it('reads the committed fixtures', () => {
    const wav = parseWav(readFileSync(join(__dirname, '../fixtures/cancellation.wav')));
    expect(wav.sampleRate).toBe(16000);
    expect(wav.channels).toHaveLength(2);
  });
});

describe('two mono parts', () => {
  it('pads the shorter part and parses multipart/form-data', () => {
    const a = encodeMonoWav(tone(16000), 16000);
    const c = encodeMonoWav(tone(8000), 16000);
    const boundary = 'xyz123';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="agent"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
      ),
      a,
      Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="customer"\r\n\r\n`),
      c,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const parts = parseMultipart(body, `multipart/form-data; boundary=${boundary}`);
    expect(parts.map((p) => p.name)).toEqual(['agent', 'customer']);
    expect(parts[0]?.data.equals(a)).toBe(true);
    const call = monoPartsCall(parseWav(parts[0]?.data as Buffer), parseWav(parts[1]?.data as Buffer));
    expect(call.agent.length).toBe(16000);
    expect(call.customer.length).toBe(16000);
  });

  it('refuses a body without a boundary', () => {
    expect(() => parseMultipart(Buffer.from('x'), 'multipart/form-data')).toThrow(
      expect.objectContaining({ code: 'REQUEST.VALIDATION' }),
    );
  });
});
