import { AppError } from '@cc/kit/errors';

/** One part of a multipart/form-data body. */
export interface FormPart {
  name: string;
  contentType: string | undefined;
  data: Buffer;
}

const bad = (msg: string) => new AppError('REQUEST.VALIDATION', msg, [{ pointer: '/body', message: msg }]);

/** The parts of a multipart/form-data body (RFC 7578), read from memory: the body is size-limited already. */
export function parseMultipart(body: Buffer, contentType: string): FormPart[] {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary) throw bad('multipart/form-data needs a boundary parameter');
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw bad('The multipart body has no part');
  while (pos >= 0) {
    const afterDelim = pos + delimiter.length;
    if (body.subarray(afterDelim, afterDelim + 2).toString() === '--') break; // closing delimiter
    const headerStart = afterDelim + 2; // CRLF
    const headerEnd = body.indexOf('\r\n\r\n', headerStart);
    if (headerEnd < 0) throw bad('A multipart part has no header end');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) throw bad('The multipart body is not terminated');
    const headers = body.subarray(headerStart, headerEnd).toString('utf8');
    const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(headers)?.[1];
    const type = /content-type:\s*([^\r\n;]+)/i.exec(headers)?.[1]?.trim().toLowerCase();
    if (name === undefined) throw bad('A multipart part has no name');
    parts.push({ name, contentType: type, data: body.subarray(headerEnd + 4, next) });
    pos = next + 2;
  }
  return parts;
}
