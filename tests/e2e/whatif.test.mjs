// What if…: fork the run at the time cursor into two runs that differ in one
// setting, play them in step side by side, and see the differences the core
// reports highlighted; closing returns to the page as it was.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, screenshot } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const clock = (page) => page.locator('#p-time .clock');
const overlay = (page) => page.locator('.whatif-overlay');
const pane = (page, side) => page.locator(`.whatif-pane[data-side="${side}"]`);
const cell = (page, side, tp, col) => pane(page, side).locator(`tr[data-tp="${tp}"] td.${col}`);

/** Play the panes until their clock reaches `ms`. */
async function playTo(page, ms) {
  const c = overlay(page).locator('.clock');
  await page.waitForFunction(
    ([sel, ms]) => {
      const m = document.querySelector(sel)?.textContent.match(/t = ([\d.]+) s/);
      return m && Number(m[1]) * 1000 >= ms;
    },
    ['.whatif-overlay .clock', ms],
    { timeout: 60_000 },
  );
  return c.textContent();
}

test('unclean election off versus on: the partition stays offline in A, an out-of-sync leader and lost records in B', async () => {
  const { page, errors } = await openPage(browser, `${server.url}#s=unclean-election&t=27000`);
  await page.locator('article.broker').first().waitFor();
  assert.equal(await clock(page).textContent(), 't = 27.000 s');

  // The launcher, from the keyboard: it is a disclosure in the header.
  const summary = page.locator('.whatif-launch > summary');
  await summary.focus();
  await page.keyboard.press('Enter');
  const form = page.locator('.whatif-form');
  await form.waitFor();

  // An invalid variation is refused with the reason and opens nothing:
  // broker 1 was killed at 15 s.
  await page.getByLabel('What the two runs differ in').selectOption('kill');
  await page.getByLabel('The broker to kill or stop').selectOption('1');
  await page.getByRole('button', { name: 'Fork here, at 27.000 s' }).click();
  await form.locator('.whatif-error', { hasText: 'broker 1 is dead at 27000 ms, not running' }).waitFor();
  assert.equal(await overlay(page).count(), 0);
  await screenshot(page, 'whatif-launcher-refused-en');

  await page.getByLabel('What the two runs differ in').selectOption('unclean');
  await page.getByLabel('Where unclean election is set').selectOption('payments');
  await page.getByRole('button', { name: 'Fork here, at 27.000 s' }).click();
  await overlay(page).waitFor();
  assert.match(await pane(page, 'A').locator('h3').textContent(), /A · as is unclean\.leader\.election\.enable=false for payments/);
  assert.match(await pane(page, 'B').locator('h3').textContent(), /B · the variation unclean\.leader\.election\.enable=true for payments/);
  assert.match(await overlay(page).locator('.whatif-fork-at').textContent(), /Forked at 27\.000 s/);

  // Play both in step, fast, until the controller has acted on B's setting.
  await overlay(page).getByLabel('Playback speed').selectOption({ label: '20×' });
  await overlay(page).getByRole('button', { name: 'Play both runs (space)' }).click();
  await playTo(page, 32_000);
  await page.keyboard.press(' '); // pause: the panes take the keys
  await overlay(page).getByRole('button', { name: 'Play both runs (space)' }).waitFor();

  const leaderA = cell(page, 'A', 'payments-0', 'leader');
  const leaderB = cell(page, 'B', 'payments-0', 'leader');
  assert.equal(await leaderA.textContent(), 'none');
  assert.equal(await leaderB.textContent(), '2');
  for (const c of [leaderA, leaderB]) assert.match(await c.getAttribute('class'), /\bdiff\b/);
  assert.equal(await cell(page, 'A', 'payments-0', 'avail').textContent(), 'no');
  assert.equal(await cell(page, 'B', 'payments-0', 'avail').textContent(), 'yes');
  assert.equal(await pane(page, 'A').locator('.records-lost dd').textContent(), '0');
  assert.equal(await pane(page, 'B').locator('.records-lost dd').textContent(), '5');
  assert.match(await pane(page, 'B').locator('.records-lost').getAttribute('class'), /\bdiff\b.*\bworse\b|\bworse\b.*\bdiff\b/);
  assert.equal(await pane(page, 'B').locator('.unclean-count dd').textContent(), '1');
  // The page's time keys act on the panes, not on the page behind.
  await page.keyboard.press('ArrowRight');
  await screenshot(page, 'whatif-unclean-en');

  // Both runs are readable side by side at 1280×720.
  const a = await pane(page, 'A').boundingBox();
  const b = await pane(page, 'B').boundingBox();
  assert.ok(a.x + a.width <= b.x, 'side by side');
  assert.ok(b.x + b.width <= 1280, 'within the width');

  await overlay(page).getByRole('button', { name: 'Close the what-if and return to the page (Escape)' }).click();
  assert.equal(await overlay(page).count(), 0);
  assert.equal(await clock(page).textContent(), 't = 27.000 s', 'the page is where it was');
  assert.equal(await page.locator('#p-time .play').textContent(), '▶ play');
  assert.equal(await page.locator('.whatif-launch[open]').count(), 0, 'the launcher folded away');
  assert.deepEqual(errors, []);
  await page.close();
});

test('kill -9 versus kill -15 of a leader, in Chinese: the controlled shutdown moves leaders first, so no unavailable time', async () => {
  const { page, errors } = await openPage(browser, `${server.url}#s=controlled-shutdown-vs-kill&t=5000&lang=zh`);
  await page.locator('article.broker').first().waitFor();
  await page.locator('.whatif-launch > summary').click();
  await page.getByLabel('两份运行的差别').selectOption('kill');
  await page.getByLabel('要 kill 或关闭的 broker').selectOption('1');
  await page.getByRole('button', { name: '在此刻（5.000 s）分叉' }).click();
  await overlay(page).waitFor();
  assert.match(await pane(page, 'A').locator('h3').textContent(), /kill -9 broker 1/);
  assert.match(await pane(page, 'B').locator('h3').textContent(), /kill -15 broker 1（受控关闭）/);

  // Keyboard only: focus is in the panes; the speed select, then space plays.
  await overlay(page).getByLabel('播放速度').selectOption({ label: '20×' });
  await overlay(page).focus();
  await page.keyboard.press(' ');
  await playTo(page, 20_000);
  await page.keyboard.press(' ');

  for (const tp of ['graceful-0', 'graceful-1']) {
    const ua = await cell(page, 'A', tp, 'unavail').textContent();
    const ub = await cell(page, 'B', tp, 'unavail').textContent();
    assert.equal(ub, '0.0 s', `${tp} kill -15`);
    assert.ok(Number(ua.replace(' s', '')) >= 1, `${tp} kill -9: ${ua}`);
    assert.match(await cell(page, 'A', tp, 'unavail').getAttribute('class'), /\bdiff\b/);
    assert.doesNotMatch(await cell(page, 'A', tp, 'leader').textContent(), /^1$/);
  }
  // The abrupt topic was not touched: nothing differs there.
  assert.equal(await pane(page, 'A').locator('tr[data-tp^="abrupt"] .diff').count(), 0);
  assert.match(await pane(page, 'A').locator('.unavailable-total').getAttribute('class'), /\bdiff\b/);
  assert.match(await overlay(page).locator('thead').first().textContent(), /分区/);
  await screenshot(page, 'whatif-kill-zh');

  await page.keyboard.press('Escape');
  assert.equal(await overlay(page).count(), 0);
  assert.equal(await clock(page).textContent(), 't = 5.000 s');
  assert.deepEqual(errors, []);
  await page.close();
});

test('ZooKeeper access 1.1+ versus 1.0 says the runs differ from time 0, and fits at 125 % zoom', async () => {
  // 125 % zoom on a 1280×720 screen: a 1024×576 viewport.
  const { page, errors } = await openPage(browser, `${server.url}#s=controller-failover&t=12000`, { width: 1024, height: 576 });
  await page.locator('article.broker').first().waitFor();
  await page.locator('.whatif-launch > summary').click();
  await page.getByLabel('What the two runs differ in').selectOption('zk');
  await page.locator('.whatif-form .whatif-note', { hasText: 'differ from time 0' }).waitFor();
  await page.getByRole('button', { name: 'Fork here, at 12.000 s' }).click();
  await overlay(page).waitFor();
  assert.match(await overlay(page).locator('.whatif-fork-at').textContent(), /differ from the start/);
  assert.match(await pane(page, 'A').locator('h3').textContent(), /async — Kafka 1\.1\+/);
  assert.match(await pane(page, 'B').locator('h3').textContent(), /sync — Kafka 1\.0/);
  const width = await page.evaluate(() => document.querySelector('.whatif-overlay').scrollWidth);
  assert.ok(width <= 1024, `no sideways scrolling: ${width}`);
  await screenshot(page, 'whatif-zk-125');
  assert.deepEqual(errors, []);
  await page.close();
});
