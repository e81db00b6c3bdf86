/**
 * The ingest worker thread (see `ingest.ts`): parses and validates fetched batches of agent-activity and account
 * events and reads their intervals, off the thread that applies them, serves queries and writes.
 */
import { parentPort } from 'node:worker_threads';
import { EventSchemas } from '@cc/bus';
import { BatchReader, type EncodedBatch } from './ingest-read';

const reader = new BatchReader(new EventSchemas());
const port = parentPort;
if (!port) throw new Error('ingest.worker runs as a worker thread');
port.on('message', (req: { id: number; batch: EncodedBatch } | { settle: number; applied: boolean }) => {
  if ('settle' in req) return reader.settle(req.settle, req.applied);
  try {
    const read = reader.read(req.id, req.batch);
    port.postMessage({ id: req.id, ...read }, [read.nums.buffer as ArrayBuffer]);
  } catch (err) {
    reader.settle(req.id, false);
    port.postMessage({ id: req.id, error: (err as Error).message });
  }
});
port.postMessage({ ready: true });
