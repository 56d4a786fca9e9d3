// The keyboard drives the page whatever has focus: after clicking a button
// that then becomes disabled (kill -9), focus moves to the broker's card
// instead of falling to the body, and space, the arrows and `n` still work.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, screenshot } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const btn = (page, name) => page.getByRole('button', { name, exact: true });

async function clock(page) {
  const t = await page.locator('.control-row .clock').textContent();
  return Math.round(parseFloat(t.replace('t = ', '').replace(' s', '')) * 1000);
}

async function clockPast(page, t) {
  await page.waitForFunction((t0) => {
    const c = document.querySelector('.control-row .clock').textContent;
    return Math.round(parseFloat(c.replace('t = ', '')) * 1000) > t0;
  }, t);
}

test('after clicking kill -9 (which then disables) the keys still drive the page', async () => {
  const { page, errors } = await openPage(browser, server.url, { width: 1280, height: 720 });
  await page.locator('article.broker').first().waitFor();
  const kill = btn(page, 'Kill broker 2 (kill -9)');
  await kill.click();
  await page.locator('article.broker[data-broker="2"] .broker-status', { hasText: 'dead' }).waitFor();
  assert.equal(await kill.isDisabled(), true);
  // Focus did not fall to the body: it is on broker 2's card.
  await page.waitForFunction(() => document.activeElement?.matches('article.broker[data-broker="2"]'));

  const t0 = await clock(page);
  await page.keyboard.press('n');
  await clockPast(page, t0);
  const t1 = await clock(page);
  await page.keyboard.press('ArrowRight');
  await clockPast(page, t1);
  const t2 = await clock(page);
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction((t) => {
    const c = document.querySelector('.control-row .clock').textContent;
    return Math.round(parseFloat(c.replace('t = ', '')) * 1000) < t;
  }, t2);
  await page.keyboard.press(' ');
  await btn(page, 'Pause (space)').waitFor();
  const t3 = await clock(page);
  await clockPast(page, t3 + 100);
  await page.keyboard.press(' ');
  await btn(page, 'Play (space)').waitFor();
  await screenshot(page, 'keyboard-after-kill');

  // Even with focus on the body, the keys work.
  await page.evaluate(() => document.activeElement?.blur());
  assert.equal(await page.evaluate(() => document.activeElement === document.body), true);
  const t4 = await clock(page);
  await page.keyboard.press('n');
  await clockPast(page, t4);

  // A text field keeps its keys: typing `n` in a form field does not step.
  const field = page.getByLabel('New topic name');
  await field.fill('');
  const t5 = await clock(page);
  await field.type('n u');
  assert.equal(await field.inputValue(), 'n u');
  assert.equal(await clock(page), t5);
  assert.deepEqual(errors, []);
});

test('space ticks a checkbox reached with the keyboard, and plays after one clicked with the mouse', async () => {
  const { page, errors } = await openPage(browser, server.url, { width: 1280, height: 720 });
  await page.locator('article.broker').first().waitFor();
  const follow = page.locator('label.follow input');
  const before = await follow.isChecked();
  // Reached with the keyboard: Tab until it has focus.
  await page.locator('#p-time').getByRole('button').first().focus();
  for (let i = 0; i < 40 && !(await follow.evaluate((e) => e === document.activeElement)); i++) {
    await page.keyboard.press('Tab');
  }
  assert.equal(await follow.evaluate((e) => e.matches(':focus-visible')), true, 'the checkbox has keyboard focus');
  await page.keyboard.press(' ');
  assert.equal(await follow.isChecked(), !before, 'space ticked it');
  await btn(page, 'Play (space)').waitFor();
  // Clicked with the mouse: space plays, the box stays as it is.
  await follow.click();
  assert.equal(await follow.isChecked(), before);
  await page.keyboard.press(' ');
  await btn(page, 'Pause (space)').waitFor();
  assert.equal(await follow.isChecked(), before);
  await page.keyboard.press(' ');
  await btn(page, 'Play (space)').waitFor();
  assert.deepEqual(errors, []);
});

test('Tab never leaves focus under the docked console (1280×720 and 125 %)', async () => {
  for (const viewport of [{ width: 1280, height: 720 }, { width: 1024, height: 576 }]) {
    const { page, errors } = await openPage(browser, server.url, viewport);
    await page.locator('.console').waitFor();
    let checked = 0;
    const under = [];
    for (let i = 0; i < 120; i++) {
      await page.keyboard.press('Tab');
      const r = await page.evaluate(() => {
        const a = document.activeElement;
        const c = document.querySelector('.console');
        if (!a || a === document.body || c.contains(a)) return null;
        const ra = a.getBoundingClientRect();
        const rc = c.getBoundingClientRect();
        // An element taller than the room above the console cannot fit.
        if (ra.height > rc.top) return null;
        return { what: `${a.tagName} ${(a.getAttribute('aria-label') || a.textContent || '').trim().slice(0, 30)}`,
          top: ra.top, bottom: ra.bottom, consoleTop: rc.top, consoleBottom: rc.bottom };
      });
      if (!r) continue;
      checked += 1;
      // Below the console is fine: it then sits in its place in the page.
      if (r.bottom > r.consoleTop + 1 && r.top < r.consoleBottom - 1) under.push(r);
    }
    assert.ok(checked > 60, `Tab reached ${checked} controls`);
    assert.deepEqual(under, [], `${viewport.width}×${viewport.height}: focus under the console`);
    assert.deepEqual(errors, []);
    await page.close();
  }
});
