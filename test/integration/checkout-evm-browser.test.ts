// The checkout of an EVM intent in headless Chromium: the network named as wallets name it, the
// warning that only that token on that network counts, and a QR that a reader decodes to the
// EIP-681 transfer the payer's wallet opens.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import jsqr from 'jsqr';
import { builtinMethods } from '../../src/methods/registry.ts';
import { launchBrowser, startCheckoutApp, type Browser } from '../helpers/browser.ts';

// jsqr is CommonJS: its function is module.exports and, for typed callers, its `default`.
const jsQR = jsqr.default;

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** The QR drawn on the page, read back from its pixels (the element's screenshot, decoded by a canvas in a blank page). */
async function decodeQr(png: Buffer): Promise<string | undefined> {
  const blank = await browser.newPage();
  try {
    const pixels = await blank.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      return { width: img.width, height: img.height, data: Array.from(ctx.getImageData(0, 0, img.width, img.height).data) };
    }, png.toString('base64'));
    return jsQR(Uint8ClampedArray.from(pixels.data), pixels.width, pixels.height)?.data;
  } finally {
    await blank.close();
  }
}

test('USDT on Polygon: the checkout names the network as wallets do, warns that only that token on that network counts, and its QR is the EIP-681 transfer', async (t) => {
  const co = await startCheckoutApp();
  const page = await browser.newPage();
  t.after(async () => {
    await page.close();
    await co.close();
  });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  const { id, pageUrl } = await co.createIntent({ currency: 'USDT_POLYGON', amount: 25 });
  const intent = await co.app.intents.get(id);
  const polygon = builtinMethods.get('USDT_POLYGON')!;
  const receiver = polygon.sandbox.receiver;
  const contract = polygon.token!(undefined);

  assert.equal((await page.goto(pageUrl))?.status(), 200);
  const qr = page.locator('svg.qr');
  await qr.waitFor({ state: 'visible' });
  assert.equal((await page.locator('#method').textContent())?.trim(), 'USDT on Polygon PoS');
  assert.equal((await page.locator('#address').textContent())?.trim(), receiver);
  assert.equal((await page.locator('#pay-amount').textContent())?.trim(), '25.01');
  const warning = (await page.locator('#network-warning').textContent())?.trim() ?? '';
  assert.match(warning, /^Send only USDT on Polygon PoS\. /);
  assert.match(warning, /any other network, or any other token sent to this address, does not count/);

  // 25.01 USDT (6 decimals) to the receiver, as a call of the token contract's transfer on chain 137.
  const eip681 = `ethereum:${contract}@137/transfer?address=${receiver}&uint256=25010000`;
  assert.equal(intent.payment_uri, eip681);
  assert.equal(await page.locator('#app-button').getAttribute('href'), eip681);
  assert.equal(await decodeQr(await qr.screenshot()), eip681);
  assert.deepEqual(problems, []);
});
