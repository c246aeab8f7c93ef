//! Unit tests for listMinions parsing, status text and quick-pick entries.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';

import { parseMinions, pickItems, selectedMinion, selectedSalt, statusText, topExplainArguments, topExplainText } from '../minions';

test('parses the server answer and ignores junk', () => {
  const parsed = parseMinions([
    { id: 'web01', selected: true },
    { id: 'db01' },
    { id: 'db7', selected: false, source: 'fleet', detail: 'os_family=RedHat roles=db' },
    { id: 'x', selected: 'yes' },
    { id: '' },
    { name: 'nope' },
    null,
    'web02',
  ]);
  assert.deepEqual(parsed, [
    { id: 'web01', selected: true },
    { id: 'db01', selected: false },
    { id: 'db7', selected: false, source: 'fleet', detail: 'os_family=RedHat roles=db' },
    { id: 'x', selected: false },
  ]);
  assert.deepEqual(parseMinions(null), []);
  assert.deepEqual(parseMinions({ id: 'web01' }), []);
});

test('each minion says which Salt release it is answered for, and the status bar shows it', () => {
  const parsed = parseMinions([
    { id: 'web01', selected: true, salt: { version: '3006', source: "the minion's saltversioninfo grain, 3006.9" } },
    { id: 'db01', salt: { version: 7 } },
  ]);
  assert.deepEqual(parsed, [
    { id: 'web01', selected: true, salt: { version: '3006', source: "the minion's saltversioninfo grain, 3006.9" } },
    { id: 'db01', selected: false },
  ]);
  const salt = selectedSalt(parsed);
  assert.deepEqual(salt, { version: '3006', source: "the minion's saltversioninfo grain, 3006.9" });
  const shown = statusText({ kind: 'running', minion: 'web01', salt });
  assert.equal(shown.text, '$(server) web01 · Salt 3006');
  assert.equal(shown.tooltip, "Minion profile: web01, answered for Salt 3006 (the minion's saltversioninfo grain, 3006.9). Click to select another.");
});

test('selected minion', () => {
  assert.equal(selectedMinion([{ id: 'a', selected: false }, { id: 'b', selected: true }]), 'b');
  assert.equal(selectedMinion([{ id: 'a', selected: false }]), undefined);
});

test('quick pick puts the selected profile first and marks it', () => {
  const items = pickItems([
    { id: 'db01', selected: false },
    { id: 'web01', selected: true },
    { id: 'app01', selected: false },
    { id: 'db7', selected: false, source: 'fleet', detail: 'os_family=RedHat roles=db' },
  ]);
  assert.deepEqual(items, [
    { label: 'web01', description: 'selected', id: 'web01' },
    { label: 'db01', id: 'db01' },
    { label: 'app01', id: 'app01' },
    { label: 'db7', description: 'fleet', detail: 'os_family=RedHat roles=db', id: 'db7' },
  ]);
});

test('status text', () => {
  assert.equal(statusText({ kind: 'running', minion: 'web01' }).text, '$(server) web01');
  assert.equal(statusText({ kind: 'running' }).text, '$(server) no minion');
  assert.equal(statusText({ kind: 'stopped', reason: 'gone' }).tooltip, 'gone');
  assert.match(statusText({ kind: 'starting' }).text, /salt/);
});

test('topExplain arguments and text', () => {
  assert.deepEqual(topExplainArguments(undefined), []);
  assert.deepEqual(topExplainArguments(''), []);
  assert.deepEqual(topExplainArguments('web01'), ['web01']);
  assert.equal(topExplainText('base: ...\n'), 'base: ...\n');
  assert.equal(topExplainText(null), '');
  assert.equal(topExplainText({ a: 1 }), '{\n  "a": 1\n}');
});
