// Admin forms: every field has a visible label, and an error appears under
// the form that caused it (in view when the form is), not only at the top.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, screenshot } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const btn = (page, name) => page.getByRole('button', { name, exact: true });

test('a bad admin form shows its error next to it; every field has a visible label', async () => {
  const { page, errors } = await openPage(browser, server.url, { width: 1280, height: 720 });
  await page.locator('article.broker').first().waitFor();
  const admin = page.locator('section.admin');
  // Visible labels, each tied to its field.
  const labels = (await admin.locator('label .field-label').allTextContents()).map((t) => t.trim());
  for (const want of ['topic', 'partitions', 'replication factor', 'partition count', 'partition']) {
    assert.ok(labels.includes(want), `a field labelled "${want}": ${labels}`);
  }
  for (const l of await admin.locator('label.field').all()) {
    assert.ok(await l.locator('.field-label').isVisible(), 'the label is visible');
    assert.equal(await l.locator('input').count(), 1, 'each label holds its field');
  }

  // A malformed field: the error is under that form, in view with it.
  const create = page.locator('form[aria-label="Create a topic"]');
  await create.getByLabel('Partitions').fill('three');
  await create.getByRole('button', { name: 'create' }).click();
  const here = create.locator('.error');
  await here.waitFor();
  assert.match(await here.textContent(), /partitions and replication factor must be whole numbers/);
  assert.equal(await page.locator('main > .error').count(), 0, 'not at the top of the page');
  const [f, e] = [await create.boundingBox(), await here.boundingBox()];
  assert.ok(e.y >= f.y && e.y + e.height <= f.y + f.height + 1, 'inside the form box');
  await create.scrollIntoViewIfNeeded();
  assert.ok(await here.isVisible());
  await screenshot(page, 'admin-error');

  // Refused by the core: the topic exists. The error replaces the last one.
  await create.getByLabel('Partitions').fill('3');
  await create.getByLabel('New topic name').fill('orders');
  await create.getByRole('button', { name: 'create' }).click();
  await create.locator('.error', { hasText: /already exists/ }).waitFor();
  assert.equal(await page.locator('.error').count(), 1);

  // Another form's error moves under that form.
  const del = page.locator('form[aria-label="Delete a topic"]');
  await del.getByLabel('Topic to delete').fill('nope');
  await del.getByRole('button', { name: 'delete' }).click();
  await del.locator('.error').waitFor();
  assert.equal(await create.locator('.error').count(), 0);
  assert.equal(await page.locator('.error').count(), 1);

  // Dismissed, it is gone; an error from elsewhere shows at the top.
  await btn(page, 'Dismiss the error').click();
  assert.equal(await page.locator('.error').count(), 0);
  await page.getByLabel('Scenario').selectOption('controller-failover');
  await page.locator('article.broker').first().waitFor();
  await btn(page, 'Undo the last action (u)').isDisabled();
  await page.keyboard.press('u');
  await page.locator('main > .error', { hasText: 'nothing to undo' }).waitFor();
  assert.deepEqual(errors, []);
});

test('an illegal topic name from the form is refused with Kafka\'s message, and nothing is created', async () => {
  // Kafka: Topic.validate (InvalidTopicException), checked in the core for every
  // way in: the form here, scenario files in tests/admin_stories.rs.
  const { page, errors } = await openPage(browser, server.url, { width: 1280, height: 720 });
  await page.locator('article.broker').first().waitFor();
  const create = page.locator('form[aria-label="Create a topic"]');
  const topics = async () => page.locator('section.partitions h3, section.partitions .topic-name').allTextContents();
  const before = await topics();
  await create.getByLabel('New topic name').fill('my topic/!');
  await create.getByRole('button', { name: 'create' }).click();
  const err = create.locator('.error', { hasText: /InvalidTopicException/ });
  await err.waitFor();
  assert.match(await err.textContent(), /contains a character other than ASCII alphanumerics, '\.', '_' and '-'/);
  await create.getByLabel('New topic name').fill('');
  await create.getByRole('button', { name: 'create' }).click();
  await create.locator('.error', { hasText: /it can't be empty/ }).waitFor();
  assert.deepEqual(await topics(), before, 'no topic appeared');
  assert.equal(await page.locator('.znode-tree, section.zookeeper').getByText('my topic', { exact: false }).count(), 0);
  assert.deepEqual(errors, []);
});
