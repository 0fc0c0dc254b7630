/**
 * A link's QR code, to print or forward: PNG (the bot's photo, the page's download) and SVG. The
 * library loads with the first code drawn: a payd nobody makes links on never holds it.
 */
export async function linkQrPng(url: string): Promise<Uint8Array> {
  const { default: QRCode } = await import('qrcode');
  return new Uint8Array(await QRCode.toBuffer(url, { type: 'png', margin: 2, width: 600, errorCorrectionLevel: 'M' }));
}

export async function linkQrSvg(url: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(url, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
}
