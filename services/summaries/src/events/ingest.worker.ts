/**
 * The ingest worker thread (see `ingest.ts`): parses and validates fetched batches of agent-activity and account
 * events and reads their intervals, off the thread that applies them, serves queries and writes.
 */
import { parentPort } from 'node:worker_threads';
import { EventSchemas } from '@cc/bus';
import { RecentIds } from './activity.consumer';
import { type EncodedBatch, readBatch } from './ingest-read';

const schemas = new EventSchemas();
const recent = new RecentIds();
const port = parentPort;
if (!port) throw new Error('ingest.worker runs as a worker thread');
port.on('message', (req: { id: number; batch: EncodedBatch }) => {
  try {
    const read = readBatch(schemas, req.batch, recent);
    port.postMessage({ id: req.id, ...read }, [read.nums.buffer as ArrayBuffer]);
  } catch (err) {
    port.postMessage({ id: req.id, error: (err as Error).message });
  }
});
port.postMessage({ ready: true });
