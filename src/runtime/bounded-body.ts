/**
 * An upstream's answer read as text, refused once it passes `maxBytes`: a provider (or anything
 * posing as one) answering an endless or enormous body must cost a bounded amount of memory,
 * not the process (`Response.text()` reads all of it first).
 */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`answer larger than ${maxBytes} bytes`);
  }
}

/** The part of a Response (global fetch's or undici's) read here. */
interface StreamedBody {
  body: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> } } | null;
}

export async function readBoundedText(res: StreamedBody, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done || !value) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {}); // frees the socket
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
