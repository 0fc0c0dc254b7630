import type { H3Event } from 'h3';
import { PaydError } from '../domain/errors.ts';
import { header } from './headers.ts';

export const MAX_BODY_BYTES = 16 * 1024;

const tooLarge = () => new PaydError('PAYLOAD_TOO_LARGE', `request body exceeds ${MAX_BODY_BYTES} bytes`);

/** Reads at most 16 KiB (refusing early on Content-Length) and parses it as JSON. */
export async function readJsonBody(event: H3Event): Promise<unknown> {
  const req = event.req;
  const declared = Number(header(event, 'content-length') ?? NaN);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  // A declared, small body is read in one go; only chunked bodies need the counting reader.
  if (Number.isFinite(declared)) return parseJson(await req.text());
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  return parseJson(Buffer.concat(chunks).toString('utf8'));
}

function parseJson(text: string): unknown {
  if (!text.trim()) throw new PaydError('INVALID_REQUEST', 'request body is empty; expected a JSON object', { errors: [{ field: '(body)', message: 'request body is empty; expected a JSON object' }] });
  try {
    return JSON.parse(text);
  } catch {
    throw new PaydError('INVALID_REQUEST', 'request body is not valid JSON', { errors: [{ field: '(body)', message: 'request body is not valid JSON' }] });
  }
}
