// "Before the controller (historical design)": kill a broker, compare with the
// keyboard, and read the counts side by side, in both languages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serveDist, launch, openPage, screenshot, SHOTS } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const num = async (loc) => Number((await loc.textContent()).trim());

test('the historical design wakes the herd where the controller design wakes one broker', async () => {
  const { page, errors } = await openPage(browser, server.url, { width: 1280, height: 720 });
  await page.locator('article.broker').first().waitFor();
  const section = page.locator('section#p-legacy');
  await section.getByRole('heading', { name: 'Before the controller (historical design)' }).waitFor();
  assert.match(await section.locator('.legacy-badge').textContent(), /Historical/);
  assert.equal(await section.getByRole('link', { name: 'How it is modelled' }).getAttribute('href'), 'before-the-controller.md');

  // A broker that is not the controller dies; its session expires 6 s later.
  const summary = await page.locator('header .summary .who').textContent();
  const controller = Number(/broker (\d)/.exec(summary)?.[1]);
  const victim = [0, 1, 2, 3].find((b) => b !== controller);
  await page.getByRole('button', { name: `Kill broker ${victim} (kill -9)`, exact: true }).click();

  // Keyboard only: focus the button, press Enter.
  const run = section.getByRole('button', { name: 'Compare the two designs on this cluster and the actions done so far' });
  await run.focus();
  await page.keyboard.press('Enter');
  const result = section.locator('.legacy-result');
  await result.waitFor();

  const totals = result.locator('table.legacy-totals');
  const hist = await num(totals.locator('tr.notifications td.hist'));
  const ctl = await num(totals.locator('tr.notifications td').nth(1));
  assert.ok(hist > ctl, `historical ${hist} > controller ${ctl}`);
  // One row per stretch: start-up, the topics created at 2 s, the kill.
  const rows = result.locator('table.legacy-segments tbody tr');
  assert.equal(await rows.count(), 3);
  const kill = rows.nth(2);
  assert.match(await kill.locator('td.what').textContent(), new RegExp(`broker ${victim}`));
  const [h, c] = (await kill.locator('td').nth(2).textContent()).split('/').map((s) => Number(s.trim()));
  assert.equal(c, 1, 'the controller design: only the controller\'s /brokers/ids watch');
  assert.ok(h >= 3, `the historical design: every other broker at least (${h})`);
  // At 3 s no produce has run yet (the first is at 6 s): nothing is left out.
  assert.equal(await result.locator('.legacy-unmodelled').count(), 0);

  // What a 1280×720 screen shows once the section is scrolled to.
  await result.scrollIntoViewIfNeeded();
  const box = await section.boundingBox();
  assert.ok(box.width <= 1280, 'no wider than the screen');
  await page.screenshot({ path: join(SHOTS, 'legacy-viewport-en.png') });
  await screenshot(page, 'legacy-en');

  // The same section in Chinese, with the article's terms.
  await page.getByRole('combobox', { name: 'Language / 语言' }).selectOption('zh');
  await section.getByRole('heading', { name: '控制器出现之前（历史设计）' }).waitFor();
  const explain = await section.locator('.legacy-explain').textContent();
  assert.match(explain, /羊群效应/);
  assert.match(explain, /脑裂/);
  await section.scrollIntoViewIfNeeded();
  await screenshot(page, 'legacy-zh');
  assert.deepEqual(errors, []);
});
