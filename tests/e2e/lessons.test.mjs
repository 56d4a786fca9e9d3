// Lessons: every built-in lesson (as listed by the page, so lessons added
// later are covered) followed to the end as a learner would, with the page's
// own controls (Show me, Next, the speed select); presentation mode; a
// malformed lesson file; a broken lesson link. Screenshots at 1280×720 under
// target/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, screenshot } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

// Language-independent handles: the lesson controls carry data-act.
const act = (page, name) => page.locator(`#p-lesson [data-act="${name}"]`);

async function lessonIds(page) {
  await page.locator('.lessons-button').click();
  await page.locator('.lesson-picker .lesson-item').first().waitFor();
  const ids = await page.locator('.lesson-picker .lesson-item').evaluateAll((els) => els.map((e) => e.dataset.lesson));
  await page.locator('.lessons-button').click();
  return ids;
}

async function openLesson(page, id) {
  await page.locator('.lessons-button').click();
  await page.locator(`.lesson-item[data-lesson="${id}"] .lesson-open`).click();
  // Started before: the page offers to continue; start over.
  if (await page.locator('.lesson-offer').count()) {
    await page.locator('.lesson-offer button:not(.continue)').click();
  }
  await page.locator('#p-lesson').waitFor();
}

/** Follow the lesson that is open to its end; returns the number of steps. */
async function walk(page, id, shotPrefix) {
  // 20×: the page's own speed control.
  await page.locator('#p-time select').first().selectOption({ index: 4 });
  let steps = 0;
  for (let guard = 0; guard < 120; guard++) {
    if (await page.locator('#p-lesson.done').count()) break;
    const before = await page.locator('#p-lesson .lesson-step').textContent();
    steps++;
    if (await act(page, 'show-me').isEnabled()) {
      await act(page, 'show-me').click();
      await page.locator('#p-lesson .lesson-wait.reached').waitFor({ timeout: 90000 });
    }
    assert.ok(await act(page, 'next').isEnabled(), `${id}: Next enabled at ${before}`);
    if (steps <= 2) await screenshot(page, `${shotPrefix}-${id}-step${steps}`);
    await act(page, 'next').click();
    await page.waitForFunction((b) => {
      const el = document.querySelector('#p-lesson .lesson-step');
      return el && el.textContent !== b;
    }, before);
  }
  assert.ok(await page.locator('#p-lesson.done').count(), `${id}: finished`);
  return steps;
}

test('every built-in lesson can be followed to its end with Show me and Next', async () => {
  const { page, errors } = await openPage(browser, server.url);
  await page.locator('article.broker').first().waitFor();
  const ids = await lessonIds(page);
  assert.ok(ids.length >= 1, 'the page lists the built-in lessons');
  for (const id of ids) {
    await openLesson(page, id);
    assert.match(await page.locator('#p-lesson .lesson-step').textContent(), /^step 1 of \d+$/);
    const steps = await walk(page, id, 'lesson');
    assert.ok(steps >= 1);
    await screenshot(page, `lesson-${id}-done`);
    // The list says it is completed; the link carries the lesson.
    assert.match(await page.getByLabel('Share link to this moment').inputValue(), new RegExp(`&l=${id}&st=${steps}`));
    await page.locator('.lessons-button').click();
    assert.match(await page.locator(`.lesson-item[data-lesson="${id}"] .lesson-status`).textContent(), /completed/);
    await page.locator('.lessons-button').click();
  }
  assert.deepEqual(errors, []);
});

test('the controls: back, rewind to the last checkpoint, restart, hint, leave', async () => {
  const { page, errors } = await openPage(browser, `${server.url}#s=default&l=controller-race&st=0`);
  await page.locator('#p-lesson').waitFor();
  await act(page, 'next').click();
  assert.equal(await page.locator('#p-lesson .lesson-step').textContent(), 'step 2 of 3');
  // Pointing: the brokers panel is outlined.
  const outline = await page.locator('#p-brokers').evaluate((e) => getComputedStyle(e).outlineStyle);
  assert.equal(outline, 'solid');
  await act(page, 'hint').click();
  await page.locator('#p-lesson .lesson-hint').waitFor();
  await act(page, 'show-me').click();
  await page.locator('#p-lesson .lesson-wait.reached').waitFor();
  const passedLink = await page.getByLabel('Share link to this moment').inputValue();
  await page.locator('#p-time select').first().selectOption({ index: 4 });
  await act(page, 'next').click();
  // A little later, before the next checkpoint.
  for (let i = 0; i < 3; i++) await page.locator('main').press('ArrowRight');
  assert.notEqual(await page.getByLabel('Share link to this moment').inputValue(), passedLink);
  await act(page, 'rewind').click();
  assert.equal(await page.locator('#p-lesson .lesson-step').textContent(), 'step 2 of 3');
  assert.equal(await page.getByLabel('Share link to this moment').inputValue(), passedLink);
  await act(page, 'back').click();
  assert.equal(await page.locator('#p-lesson .lesson-step').textContent(), 'step 1 of 3');
  await act(page, 'next').click();
  assert.ok(await act(page, 'show-me').isEnabled(), 'back before the kill: the step waits again');
  await act(page, 'restart').click();
  assert.equal(await page.locator('#p-lesson .lesson-step').textContent(), 'step 1 of 3');
  await act(page, 'leave').click();
  assert.equal(await page.locator('#p-lesson').count(), 0);
  assert.deepEqual(errors, []);
});

test('a step that points lower down brings it into view under the narration, which stays on screen (1280×720)', async () => {
  const { page, errors } = await openPage(browser, `${server.url}#l=graceful-shutdown&st=0`);
  await page.locator('#p-lesson .lesson-text').waitFor();
  // Step 1 points at the partitions, below the first screen.
  await page.locator('#p-partitions').waitFor();
  await page.waitForTimeout(300);
  const vp = page.viewportSize();
  const text = await page.locator('#p-lesson .lesson-text').boundingBox();
  const parts = await page.locator('#p-partitions').boundingBox();
  assert.ok(text.y >= 0 && text.y + text.height <= vp.height, `the narration on screen (${JSON.stringify(text)})`);
  assert.ok(parts.y >= text.y + text.height && parts.y < vp.height - 40, `the partitions in view under it (${JSON.stringify(parts)})`);
  await page.screenshot({ path: `${process.env.KCSIM_SCREENSHOTS ?? 'target/screenshots'}/lesson-points-down-viewport.png` });
  assert.deepEqual(errors, []);
});

test('presentation mode: large narration on top, secondary panels folded, the pointed part outlined', async () => {
  const { page, errors } = await openPage(browser, `${server.url}#s=default&t=3000&l=controller-race&st=1&present=1`);
  await page.locator('main.present #p-lesson').waitFor();
  const box = await page.locator('#p-lesson').boundingBox();
  assert.ok(box.y < 200, `the narration is near the top (y=${box.y})`);
  const size = await page.locator('#p-lesson .lesson-text').evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
  assert.ok(size >= 26, `large type (${size}px)`);
  assert.equal(await page.locator('#p-admin form').first().isVisible(), false, 'admin folded');
  assert.ok(await page.locator('#p-admin h2').isVisible(), 'its title stays');
  await page.screenshot({ path: `${process.env.KCSIM_SCREENSHOTS ?? 'target/screenshots'}/lesson-present-viewport.png` });
  await screenshot(page, 'lesson-present');
  // Unfold one by hand; p leaves presentation mode.
  await page.locator('.fold-bar button[aria-controls="p-admin"]').click();
  assert.ok(await page.locator('#p-admin form').first().isVisible());
  await page.locator('main').focus();
  await page.keyboard.press('p');
  await page.locator('main:not(.present)').waitFor();
  assert.doesNotMatch(await page.getByLabel('Share link to this moment').inputValue(), /present=1/);
  assert.deepEqual(errors, []);
});

test('a malformed lesson file shows the parser\'s message and changes nothing', async () => {
  const { page, errors } = await openPage(browser, server.url);
  await page.locator('article.broker').first().waitFor();
  const link = await page.getByLabel('Share link to this moment').inputValue();
  await page.locator('.lessons-button').click();
  await page.locator('.lesson-file input').setInputFiles({
    name: 'bad.json', mimeType: 'application/json',
    buffer: Buffer.from('{"version":1,"id":"mine","title":{"en":"Mine"}}'),
  });
  const msg = await page.locator('.lesson-file-error').textContent();
  assert.match(msg, /title\.zh: is required/);
  await screenshot(page, 'lesson-bad-file');
  assert.equal(await page.locator('#p-lesson').count(), 0);
  assert.equal(await page.getByLabel('Share link to this moment').inputValue(), link);
  assert.deepEqual(errors, []);
});

test('a broken lesson link opens what it can and says what is wrong', async () => {
  const { page, errors } = await openPage(browser, `${server.url}#s=default&t=4000&l=no-such-lesson&st=2`);
  await page.locator('article.broker').first().waitFor();
  const e = await page.locator('.error').textContent();
  assert.match(e, /no built-in lesson "no-such-lesson" \(l=\)/);
  assert.equal(await page.locator('#p-lesson').count(), 0);
  await screenshot(page, 'lesson-broken-link');
  const bad = await openPage(browser, `${server.url}#s=default&l=controller-race&st=7`);
  await bad.page.locator('#p-lesson').waitFor();
  assert.match(await bad.page.locator('.error').textContent(), /st=7 is not a step of this lesson/);
  assert.deepEqual(errors, []);
  assert.deepEqual(bad.errors, []);
});

test('every built-in lesson in 中文, to its end', async () => {
  const { page, errors } = await openPage(browser, `${server.url}#s=default&lang=zh`);
  await page.locator('article.broker').first().waitFor();
  assert.equal(await page.locator('.lessons-button').textContent(), '课程');
  const ids = await lessonIds(page);
  for (const id of ids) {
    await openLesson(page, id);
    assert.match(await page.locator('#p-lesson .lesson-step').textContent(), /^第 1 步/);
    await walk(page, id, 'lesson-zh');
    await screenshot(page, `lesson-zh-${id}-done`);
  }
  assert.deepEqual(errors, []);
});
