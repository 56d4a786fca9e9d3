// Playback follows the controller: at 1× the page slows down by itself while
// the controller is at work and says so; marks pause playback.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, screenshot } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const btn = (page, name) => page.getByRole('button', { name, exact: true });

async function load(page, id) {
  await page.getByLabel('Scenario').selectOption(id);
  await page.locator('article.broker').first().waitFor();
}

async function clock(page) {
  const t = await page.locator('.control-row .clock').textContent();
  return Math.round(parseFloat(t.replace('t = ', '').replace(' s', '')) * 1000);
}

test('playing the controller failover at 1×: the Reelect event is held on screen and the page says it slowed down', async () => {
  const { page, errors } = await openPage(browser, server.url, { width: 1280, height: 720 });
  await page.locator('article.broker').first().waitFor();
  await load(page, 'controller-failover');
  assert.equal(await page.getByLabel('auto-follow').isChecked(), true, 'auto-follow is on by default');
  // Just before broker 2's session-expiry notice reaches it (about 16 s).
  await page.getByLabel('Timeline: scrub back and forth').fill('15000');
  await page.getByLabel('Playback speed').selectOption({ label: '1×' });
  await btn(page, 'Play (space)').click();
  const reelect = page.locator('.queues .event.current', { hasText: 'Reelect' });
  // Poll until both are on screen together (a plain 1× tick of 50 ms would
  // skip over the few ms the event takes).
  await page.waitForFunction(() => {
    const cur = [...document.querySelectorAll('.queues .event.current')].some((e) => e.textContent.includes('Reelect'));
    const st = document.querySelector('.follow-status')?.textContent ?? '';
    return cur && st.includes('slowed down');
  }, null, { timeout: 20000, polling: 50 });
  await screenshot(page, 'follow-failover-slowed');
  const seenAt = Date.now();
  const t0 = await clock(page);
  // It stays on screen for a while of wall time, not one frame: poll until
  // it is gone, and measure how long that took.
  await reelect.waitFor({ state: 'detached', timeout: 20000 });
  const held = Date.now() - seenAt;
  assert.ok(held >= 500, `Reelect stayed on screen ${held} ms of wall time`);
  assert.ok((await clock(page)) - t0 < 200, 'virtual time crept while it was held');
  await btn(page, 'Pause (space)').click();
  assert.match(await page.locator('header .summary').textContent(), /epoch 2/);
  assert.deepEqual(errors, []);
});

test('a mark (m) shows on the scrub bar and playing pauses there', async () => {
  const { page, errors } = await openPage(browser, server.url, { width: 1280, height: 720 });
  await page.locator('article.broker').first().waitFor();
  await load(page, 'controller-failover');
  await page.getByLabel('Timeline: scrub back and forth').fill('22000');
  await page.locator('main.kcsim').focus();
  await page.keyboard.press('m');
  const mark = page.getByRole('button', { name: 'Go to the mark at 22.000 s' });
  await mark.waitFor();
  await page.getByLabel('Timeline: scrub back and forth').fill('21000');
  await page.getByLabel('Playback speed').selectOption({ label: '5×' });
  await btn(page, 'Play (space)').click();
  await btn(page, 'Play (space)').waitFor({ timeout: 10000 });
  assert.equal(await clock(page), 22000, 'paused at the mark');
  await screenshot(page, 'follow-mark');
  assert.deepEqual(errors, []);
});
