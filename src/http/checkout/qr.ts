import QRCode from 'qrcode';
import { Safe } from './escape.ts';

/**
 * The payment URI as an inline SVG QR code, drawn on the server so the page needs
 * no script or third-party service to show it. The library output holds only
 * paths and fixed attributes (no text from the URI), so it is safe to inline.
 */
export async function qrSvg(text: string): Promise<Safe> {
  const svg = await QRCode.toString(text, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
  // Label it for screen readers and let CSS size it.
  return new Safe(svg.replace('<svg ', '<svg class="qr" role="img" aria-label="QR code of the payment link" '));
}
