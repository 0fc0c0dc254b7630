import type { H3Event } from 'h3';
import { PaydError } from '../../domain/errors.ts';
import { header } from '../headers.ts';

/** A console form is a few short fields. */
const MAX_FORM_BYTES = 16 * 1024;

/** An application/x-www-form-urlencoded body (what the console's forms send), at most 16 KiB. */
export async function readForm(event: H3Event): Promise<URLSearchParams> {
  const type = header(event, 'content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) return new URLSearchParams();
  if (Number(header(event, 'content-length') ?? 0) > MAX_FORM_BYTES) throw new PaydError('PAYLOAD_TOO_LARGE', 'form too large');
  const text = await event.req.text();
  if (text.length > MAX_FORM_BYTES) throw new PaydError('PAYLOAD_TOO_LARGE', 'form too large');
  return new URLSearchParams(text);
}
