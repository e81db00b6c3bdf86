import { eventStreamQuery, maxLastEventIdLength } from '@cc/contracts';
import { AppError, principalOf, validateRequest } from '@cc/kit';
import { Router } from 'express';
import type { EventStreamHub } from '../events/event-stream.hub';

/**
 * GET /events/stream (scope `admin`, checked before this): Server-Sent Events of the token's account from the hub,
 * resumed after `Last-Event-ID` (header, else the `lastEventId` query parameter).
 */
export function eventStreamRoutes(hub: EventStreamHub): Router {
  const r = Router();
  r.get('/events/stream', validateRequest({ query: eventStreamQuery }), (req, res) => {
    const header = req.header('last-event-id');
    if (header !== undefined && (header.length === 0 || header.length > maxLastEventIdLength)) {
      const message = `Last-Event-ID must be 1 to ${maxLastEventIdLength} characters`;
      throw new AppError('REQUEST.VALIDATION', message, [{ pointer: '/headers/last-event-id', message }]);
    }
    const lastEventId = header ?? (req.query as { lastEventId?: string }).lastEventId;
    const { accountId } = principalOf(res);
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      // Reverse proxies (nginx) must pass each event on at once rather than buffer the response.
      'X-Accel-Buffering': 'no',
    });
    if (req.method === 'HEAD') return void res.end();
    res.flushHeaders();
    req.socket.setNoDelay(true);
    // The stream never ends by itself: no idle timeout on this socket (heartbeats keep it busy anyway).
    req.socket.setTimeout(0);
    const close = hub.open(accountId, res, lastEventId);
    res.on('close', close);
  });
  return r;
}
