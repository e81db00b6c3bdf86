import type { HandlerContext } from '@cc/bus';
import { type CloudEvent, newEvent } from '@cc/bus';
import type { RecordedSegment } from '../store/analysis.model';
import type { AnalysisRepository } from '../store/analysis.repository';

/** The fields of interaction.recorded this service reads. */
interface RecordedData {
  interactionId: string;
  recordingId: string;
  durationMs: number;
  language?: string | null;
  segments: RecordedSegment[];
}

/**
 * Handles cc.interaction.v1: `interaction.recorded` queues the call's analysis from its segments (a platform
 * that sends who spoke when, and maybe what, instead of audio); other interaction events are ignored. An
 * uploaded audio recording of the same call wins over segments.
 */
export function recordedHandler(repo: AnalysisRepository, wake: () => void) {
  return async (event: CloudEvent, ctx: HandlerContext): Promise<void> => {
    if (event.type !== 'interaction.recorded') return;
    const data = event.data as RecordedData;
    const guid = data.interactionId;
    const existing = (await repo.getMany(event.accountid, [guid], false)).get(guid);
    if (existing?.source === 'upload') {
      ctx.log.info({ guid, eventId: event.id }, 'interaction.recorded ignored: the call has an uploaded recording');
      return;
    }
    const started = newEvent({
      source: '/cc/analysis',
      type: 'analysis.started',
      subject: guid,
      accountId: event.accountid,
      data: { guid, recordingId: data.recordingId, occurredAt: new Date().toISOString() },
      ...(event.traceparent ? { traceparent: event.traceparent } : {}),
    });
    await repo.enqueue(
      {
        accountId: event.accountid,
        guid,
        recordingId: data.recordingId,
        source: 'event',
        layout: null,
        segments: data.segments.map((s) => ({
          speaker: s.speaker,
          startMs: s.startMs,
          endMs: s.endMs,
          ...(s.text !== undefined ? { text: s.text } : {}),
        })),
        durationMs: data.durationMs,
        language: data.language ?? null,
      },
      started,
    );
    wake();
    ctx.log.info({ guid, eventId: event.id, segments: data.segments.length }, 'recorded call queued for analysis');
  };
}
