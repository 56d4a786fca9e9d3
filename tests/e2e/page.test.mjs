// The page loads, draws the brokers and /controller's JSON, in light and dark themes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, screenshot } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

test('the page draws the brokers and the /controller znode, with no console error', async () => {
  const { page, errors } = await openPage(browser, server.url, { width: 1920, height: 1080 });
  const cards = page.locator('article.broker');
  await cards.first().waitFor();
  assert.equal(await cards.count(), 4);
  const json = await page.locator('.controller-json').textContent();
  const parsed = JSON.parse(json);
  assert.equal(parsed.version, 1);
  assert.equal(typeof parsed.timestamp, 'string', 'Kafka writes the timestamp as a string');
  const marked = page.locator('article.broker.controller');
  assert.equal(await marked.count(), 1);
  assert.equal(await marked.getAttribute('data-broker'), String(parsed.brokerid));
  await screenshot(page, 'page-1080');
  await page.getByRole('button', { name: 'Toggle dark theme' }).click();
  await page.locator('main.kcsim.dark').waitFor();
  await screenshot(page, 'page-dark');
  assert.deepEqual(errors, []);
});
