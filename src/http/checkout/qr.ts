import { Safe } from './escape.ts';

/**
 * The payment URI as an inline SVG QR code, drawn on the server so the page needs
 * no script or third-party service to show it. The library output holds only
 * paths and fixed attributes (no text from the URI), so it is safe to inline. The library
 * loads with the first page that shows a code: a daemon nobody opens a checkout on never holds it.
 */
export async function qrSvg(text: string): Promise<Safe> {
  const { default: QRCode } = await import('qrcode');
  const svg = await QRCode.toString(text, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
  // Label it for screen readers and let CSS size it.
  return new Safe(svg.replace('<svg ', '<svg class="qr" role="img" aria-label="QR code of the payment link" '));
}

/**
 * QR codes per intent, least recently used dropped past `max`: a reload (or a flood of
 * them) costs a map lookup instead of drawing the code again. Keyed by intent and URI
 * together, so a changed URI never shows a stale code.
 */
export function createQrCache(max = 1000) {
  const cache = new Map<string, Promise<Safe>>();
  return {
    size: () => cache.size,
    svg(intentId: string, uri: string): Promise<Safe> {
      const key = `${intentId}\n${uri}`;
      let hit = cache.get(key);
      if (hit) {
        cache.delete(key);
      } else {
        hit = qrSvg(uri);
        // A failed drawing is not remembered.
        hit.catch(() => cache.delete(key));
        if (cache.size >= max) cache.delete(cache.keys().next().value!);
      }
      cache.set(key, hit);
      return hit;
    },
  };
}

export type QrCache = ReturnType<typeof createQrCache>;
