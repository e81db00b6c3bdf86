import { randomUUID } from 'node:crypto';
import { newEvent } from '@cc/bus';
import { principalOf } from '@cc/kit';
import express, { type RequestHandler } from 'express';
import { analysisError } from '../domain/errors';
import { parseMultipart } from '../domain/multipart';
import { type AgentChannel, encodeStereoWav, monoPartsCall, parseWav, stereoCall, workRate } from '../domain/wav';
import type { AnalysisRepository } from '../store/analysis.repository';
import type { RecordingStorage } from '../store/recording.storage';

/** What the upload needs. */
export interface RecordingDeps {
  repo: AnalysisRepository;
  storage: RecordingStorage;
  /** Largest accepted recording in bytes (larger: 413). */
  recordingLimitBytes: number;
  /** Tells the worker there is work. */
  wake: () => void;
}

/** The upload path (the kit leaves its body unparsed). */
export const recordingPath = /^\/conversation-analyzer\/recordings\/[^/]+$/;

const wavTypes = ['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave'];
const languageTag = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,2}$/;

const unsupportedType = (type: string | undefined) =>
  analysisError(
    'ANALYSIS.UNSUPPORTED_AUDIO',
    `The recording must be audio/wav (stereo: agent and customer on separate channels) or multipart/form-data with mono WAV parts "agent" and "customer"; got ${type ? JSON.stringify(type) : 'no Content-Type'}`,
    [{ pointer: '/headers/content-type', message: 'must be audio/wav or multipart/form-data' }],
  );

/**
 * PUT /conversation-analyzer/recordings/{guid}: stores the call's recording (replacing an earlier one), queues
 * its analysis and answers 202 with status processing. The audio is checked before anything is written.
 */
export function putRecordingHandler(deps: RecordingDeps): RequestHandler {
  const readBody = express.raw({ type: () => true, limit: deps.recordingLimitBytes });
  const handle: RequestHandler = async (req, res) => {
    const { accountId } = principalOf(res);
    const guid = req.params.guid as string;
    const { agentChannel } = req.query as { agentChannel?: AgentChannel };
    const type = req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!body.length) {
      throw analysisError('ANALYSIS.BAD_AUDIO', 'The request has no recording', [
        { pointer: '/body', message: 'is empty' },
      ]);
    }
    const language = req.header('content-language')?.trim() || null;
    if (language !== null && !languageTag.test(language)) {
      throw analysisError('REQUEST.VALIDATION', 'Content-Language must be one language tag such as en-US', [
        { pointer: '/headers/content-language', message: 'must be one language tag such as en-US' },
      ]);
    }
    let stored: Buffer;
    let layout: 'left' | 'right';
    let durationMs: number;
    if (type && wavTypes.includes(type)) {
      const call = stereoCall(parseWav(body), agentChannel ?? 'left');
      stored = body;
      layout = agentChannel ?? 'left';
      durationMs = Math.round((call.agent.length / workRate) * 1000);
    } else if (type === 'multipart/form-data') {
      const parts = parseMultipart(body, req.header('content-type') as string);
      const part = (name: 'agent' | 'customer') => {
        const p = parts.find((x) => x.name === name);
        if (!p) {
          throw analysisError('REQUEST.VALIDATION', `The multipart body needs a part named "${name}"`, [
            { pointer: `/body/${name}`, message: 'is required (a mono WAV)' },
          ]);
        }
        return parseWav(p.data);
      };
      const call = monoPartsCall(part('agent'), part('customer'));
      stored = encodeStereoWav(call.agent, call.customer, workRate);
      layout = 'left';
      durationMs = Math.round((call.agent.length / workRate) * 1000);
    } else {
      throw unsupportedType(type);
    }
    const recordingId = randomUUID();
    await deps.storage.put(accountId, recordingId, stored, 'audio/wav');
    const started = newEvent({
      source: '/cc/analysis',
      type: 'analysis.started',
      subject: guid,
      accountId,
      data: { guid, recordingId, occurredAt: new Date().toISOString() },
      ...(res.locals.traceparent ? { traceparent: String(res.locals.traceparent) } : {}),
    });
    await deps.repo.enqueue(
      { accountId, guid, recordingId, source: 'upload', layout, segments: [], durationMs, language },
      started,
    );
    deps.wake();
    req.log.info({ accountId, guid, recordingId, bytes: body.length, durationMs }, 'recording stored, analysis queued');
    res
      .status(202)
      .location(`/conversation-analyzer/interactions/${guid}`)
      .json({ guid, recordingId, status: 'processing' });
  };
  return (req, res, next) => {
    readBody(req, res, (err?: unknown) => {
      if (err) {
        const e = err as { type?: string };
        if (e.type === 'entity.too.large') {
          res.setHeader('Connection', 'close');
          return next(
            analysisError(
              'ANALYSIS.RECORDING_TOO_LARGE',
              `The recording exceeds the limit of ${deps.recordingLimitBytes} bytes`,
              [],
              {
                limit: deps.recordingLimitBytes,
              },
            ),
          );
        }
        return next(err);
      }
      Promise.resolve(handle(req, res, next)).catch(next);
    });
  };
}
