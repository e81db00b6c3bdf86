import { type Connection, mongo } from 'mongoose';

/**
 * Where recordings' bytes live. GridFS in the service's own MongoDB today; an object store (S3, GCS)
 * implements the same three calls later without touching the pipeline.
 */
export interface RecordingStorage {
  put(accountId: string, recordingId: string, data: Buffer, contentType: string): Promise<void>;
  get(accountId: string, recordingId: string): Promise<Buffer | undefined>;
  delete(accountId: string, recordingId: string): Promise<void>;
}

/**
 * Recordings in GridFS (the MongoDB driver's `GridFSBucket`; FerretDB serves it, checked): one file per
 * recording named `<accountId>/<recordingId>`, written in 255 KiB chunks. A re-upload writes a new file
 * before removing the old ones, so a reader never finds none.
 */
export class GridFsRecordingStorage implements RecordingStorage {
  private readonly bucket: mongo.GridFSBucket;

  constructor(conn: Connection, bucketName = 'recordings') {
    const db = conn.getClient().db(conn.db?.databaseName);
    this.bucket = new mongo.GridFSBucket(db, { bucketName });
  }

  private name(accountId: string, recordingId: string) {
    return `${accountId}/${recordingId}`;
  }

  async put(accountId: string, recordingId: string, data: Buffer, contentType: string): Promise<void> {
    const filename = this.name(accountId, recordingId);
    const before = await this.bucket.find({ filename }).toArray();
    await new Promise<void>((resolve, reject) => {
      const stream = this.bucket.openUploadStream(filename, { metadata: { accountId, recordingId, contentType } });
      stream.once('finish', () => resolve());
      stream.once('error', reject);
      stream.end(data);
    });
    for (const f of before) await this.bucket.delete(f._id).catch(() => undefined);
  }

  async get(accountId: string, recordingId: string): Promise<Buffer | undefined> {
    const files = await this.bucket.find({ filename: this.name(accountId, recordingId) }).toArray();
    const newest = files.sort((a, b) => b.uploadDate.getTime() - a.uploadDate.getTime())[0];
    if (!newest) return undefined;
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
      this.bucket
        .openDownloadStream(newest._id)
        .on('data', (d: Buffer) => chunks.push(d))
        .once('end', () => resolve())
        .once('error', reject);
    });
    return Buffer.concat(chunks);
  }

  async delete(accountId: string, recordingId: string): Promise<void> {
    const files = await this.bucket.find({ filename: this.name(accountId, recordingId) }).toArray();
    for (const f of files) await this.bucket.delete(f._id);
  }
}
