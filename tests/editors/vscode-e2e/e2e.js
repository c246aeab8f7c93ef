// The VS Code extension in real VS Code (code-server), driven through Chromium as a user
// drives it: the keyboard, the command palette, clicks, and what the DOM shows. Started by
// tests/editors/vscode-e2e/run.sh with CODE_SERVER, STATE (user data + extensions dirs, with
// the platform VSIX installed), SHOTS (screenshot dir) and EXAMPLES (the example tree).
//
// Prints "ok NAME" / "not ok NAME: why" per step, saves SHOTS/NN-name.png after each, and
// exits 1 when any failed. Every wait has a timeout, so a hang fails a step, not the run.

'use strict';

const { execFileSync, spawn } = require('child_process');
const fs = require('fs');
const net = require('net');
const path = require('path');
const { chromium } = require('playwright-core');

const CODE_SERVER = must('CODE_SERVER');
const STATE = must('STATE');
const SHOTS = must('SHOTS');
const EXAMPLES = must('EXAMPLES');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

function must(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

let failed = 0;
let shot = 0;
let page;
let browser; // the connection to Chromium
let chromiumServer; // Chromium's process, as playwright's BrowserServer
let port; // code-server's
let folder; // the folder the window shows

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  // As the machine's own headless probe starts it: no background connections to a network
  // this machine does not reach, no first-run work.
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/** Whether the window a step drives is gone (Chromium exited, or the page closed or crashed). */
const windowGone = () => !browser || !browser.isConnected() || !page || page.isClosed();

/**
 * A VS Code window on `dir`: Chromium started (again, when it is gone) and the workbench
 * loaded. Chromium runs as a BrowserServer so that, when it exits under the test, the log
 * says how (exit code or signal): a "# ..." line the run script shows.
 */
async function openWindow(dir) {
  folder = dir;
  let context;
  try {
    context = browser && browser.isConnected() ? await browser.newContext({ viewport: { width: 1400, height: 900 } }) : null;
  } catch (err) {
    // The connection to Chromium can drop while `isConnected()` still says yes ("Browser
    // closed"): start it again below.
    console.log(`# ${new Date().toISOString()} a new window failed (${err.message.split('\n')[0]}); starting Chromium again`);
    await chromiumServer.close().catch(() => {});
    browser = null;
  }
  if (!context) await launchBrowser();
  context = context || (await browser.newContext({ viewport: { width: 1400, height: 900 } }));
  page = await context.newPage();
  page.on('crash', () => console.log(`# ${new Date().toISOString()} the page crashed`));
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dir)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
}

async function launchBrowser() {
  if (!browser || !browser.isConnected()) {
    chromiumServer = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const proc = chromiumServer.process();
    proc.on('exit', (code, signal) => {
      if (closing) return;
      console.log(`# ${new Date().toISOString()} Chromium (pid ${proc.pid}) exited: code ${code}, signal ${signal}`);
      // A SIGKILL nobody here sent is the kernel's OOM killer's, if anyone's: say so.
      try {
        const oom = execFileSync('dmesg', { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
          .split('\n')
          .filter((l) => /out of memory|oom-kill|Killed process/i.test(l))
          .slice(-3);
        for (const l of oom) console.log(`# dmesg: ${l}`);
      } catch {
        // no dmesg here
      }
    });
    browser = await chromium.connect(chromiumServer.wsEndpoint());
  }
}
let closing = false;
let reopened = 0; // windows opened again after Chromium went away

async function step(name, f) {
  shot += 1;
  // While developing a step: E2E_ONLY=regex runs only the steps it matches.
  if (process.env.E2E_ONLY && !new RegExp(process.env.E2E_ONLY).test(name)) return;
  try {
    try {
      await f();
    } catch (first) {
      // A key press the workbench dropped while it moved focus, or a file search whose index
      // was not ready, is what a user would simply do again: once, after the UI settles. A
      // step that fails twice fails.
      console.error(`retrying ${name}: ${String(first).slice(0, 300)}`);
      if (windowGone()) {
        // Chromium itself went away under load (seen in CI late in a long run, with the
        // context reported closed): a user starts the browser again and reopens the folder.
        console.log(`# ${name}: the browser window was gone (${String(first).split('\n')[0].slice(0, 200)}); opening it again`);
        await openWindow(folder);
        reopened += 1;
      }
      await page.keyboard.press('Escape').catch(() => {});
      await sleep(2000);
      await f();
    }
    console.log(`ok ${name}`);
  } catch (err) {
    failed += 1;
    console.log(`not ok ${name}: ${String((err && err.stack) || err).replace(/\n/g, '\n    ')}`);
  }
  if (page) {
    const file = path.join(SHOTS, `${String(shot).padStart(2, '0')}-${name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 60)}.png`);
    await page.screenshot({ path: file }).catch(() => {});
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `f` until it returns a truthy value; throws `what` after `ms`. */
async function waitFor(what, f, ms = 30000) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await f();
      if (last) return last;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? ` (last: ${String(last).slice(0, 400)})` : ''}`);
    await sleep(250);
  }
}

// ------------------------------------------------------------------ workspaces
function copyTree(from, to) {
  fs.rmSync(to, { recursive: true, force: true });
  fs.cpSync(from, to, { recursive: true });
}
function write(root, rel, text) {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

// The example tree plus a small saltext-formula-style formula (the mapstack hover).
const WS = path.join(STATE, 'ws');
copyTree(EXAMPLES, WS);
write(WS, 'salt/base/app/map.jinja', '{%- set mapdata = salt["map.data"](tpldir) %}\n');
write(WS, 'salt/base/app/parameters/defaults.yaml', 'values:\n  pkg:\n    name: app\n');
write(WS, 'salt/base/app/parameters/os_family/Debian.yaml', 'values:\n  pkg:\n    name: app-debian\n');
write(WS, 'salt/base/app/parameters/os_family/RedHat.yaml', 'values:\n  pkg:\n    name: app-redhat\n');
write(
  WS,
  'salt/base/app/init.sls',
  '{%- from tpldir ~ "/map.jinja" import mapdata with context %}\napp_pkg:\n  pkg.installed:\n    - name: {{ mapdata.pkg.name }}\n' +
    'app_conf:\n  file.managed:\n    - name: /etc/app.conf\n    - source: salt://app/files/app.conf\n',
);
write(WS, 'salt/base/app/files/app.conf', 'port = 8080\n');
// A third file naming web.tls's tls_cert (the rename step).
write(WS, 'salt/base/web/cert_user.sls', 'include:\n  - web.tls\ncert_user:\n  test.nop:\n    - require:\n      - test: tls_cert\n');
// The formula is in every minion's highstate, so its values show inline (inlay hints).
write(WS, 'salt/base/top.sls', fs.readFileSync(path.join(WS, 'salt/base/top.sls'), 'utf8').replace("  '*':\n    - common\n", "  '*':\n    - common\n    - app\n"));
if (!/- app\n/.test(fs.readFileSync(path.join(WS, 'salt/base/top.sls'), 'utf8'))) throw new Error('the example top.sls changed: add app to it another way');
// Its own git repository, HEAD as set up here: what the edits below change is what
// "Show Impact of Changes" reports (never the repository this test runs in).
for (const args of [['init', '-q'], ['add', '-A'], ['-c', 'user.email=e2e@example.com', '-c', 'user.name=e2e', 'commit', '-qm', 'base']]) {
  execFileSync('git', args, { cwd: WS, stdio: 'ignore' });
}
// First run: the same states, with no salt-analyzer.yaml and no Salt config.
const FRESH = path.join(STATE, 'fresh');
copyTree(path.join(EXAMPLES, 'salt'), path.join(FRESH, 'salt'));

fs.writeFileSync(
  path.join(STATE, 'user', 'User', 'settings.json'),
  JSON.stringify(
    {
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'workbench.enableExperiments': false,
      'security.workspace.trust.enabled': false,
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'extensions.ignoreRecommendations': true,
      'telemetry.telemetryLevel': 'off',
      'update.mode': 'none',
      'git.openRepositoryInParentFolders': 'never',
      'editor.autoIndent': 'none',
      'editor.autoClosingBrackets': 'never',
      'editor.autoClosingQuotes': 'never',
      'editor.quickSuggestions': { other: false, comments: false, strings: false },
      'editor.hover.delay': 100,
      'files.autoSave': 'off',
      'salt-analyzer.saltCall': false,
    },
    null,
    2,
  ),
);

// ------------------------------------------------------------------ code-server
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

let server;
async function startCodeServer(port) {
  const log = fs.openSync(path.join(STATE, 'code-server.log'), 'w');
  server = spawn(
    CODE_SERVER,
    [
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--user-data-dir', path.join(STATE, 'user'),
      '--extensions-dir', path.join(STATE, 'extensions'),
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      WS,
    ],
    { stdio: ['ignore', log, log], detached: true },
  );
  await waitFor('code-server to listen', () => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok), 60000);
}

/** The salt-analyzer processes under the code-server this script started. */
function serverPids() {
  const parent = new Map();
  const exe = new Map();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(pid, stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      exe.set(pid, fs.readlinkSync(`/proc/${pid}/exe`));
    } catch {
      // gone, or not ours to read
    }
  }
  const under = (pid) => {
    for (let p = pid, n = 0; p && p !== '0' && n < 50; p = parent.get(p), n++) if (p === String(server.pid)) return true;
    return false;
  };
  return [...exe].filter(([pid, file]) => path.basename(file) === 'salt-analyzer' && under(pid)).map(([pid, file]) => ({ pid: Number(pid), file }));
}

// ------------------------------------------------------------------ UI helpers
const mod = 'Control';

async function palette(title) {
  const input = page.locator('.quick-input-widget input');
  // A key may land while the workbench moves focus (a new editor opening): try again.
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press(attempt % 2 === 1 ? 'F1' : `${mod}+Shift+P`);
    try {
      await input.waitFor({ state: 'visible', timeout: 5000 });
      break;
    } catch (err) {
      if (attempt === 4) throw err;
      await page.keyboard.press('Escape');
    }
  }
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 10000 });
  await sleep(200);
  await page.keyboard.press('Enter');
}

async function quickOpen(text) {
  const input = page.locator('.quick-input-widget input');
  // As with the palette: a key may land where the workbench does not take it (a focused
  // Settings control), so Escape and try again.
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Escape');
    await page.keyboard.press(`${mod}+P`);
    try {
      await input.waitFor({ state: 'visible', timeout: 5000 });
      break;
    } catch (err) {
      if (attempt === 4) throw err;
      await page.locator('.part.editor').first().click({ position: { x: 400, y: 10 } }).catch(() => {});
    }
  }
  await input.fill(text);
  // A fill that lands while the widget opens may be lost or leave an earlier query: type it
  // again until the box holds exactly this text.
  for (let i = 0; i < 10 && (await input.inputValue().catch(() => '')) !== text; i++) {
    await sleep(100);
    await input.fill(text);
  }
  return input;
}

/** Makes Quick Open search its text again (a list can stay on an earlier query's rows). */
async function requery(input, text) {
  await input.fill('');
  await sleep(100);
  await input.pressSequentially(text, { delay: 20 });
}

/** The Quick Open row of exactly `rel` (label, then its directory). */
function findRow(rel, base, dir) {
  return waitFor(`the Quick Open row of ${rel}`, async () => {
    const rows = page.locator('.quick-input-widget .monaco-list-row');
    const n = await rows.count();
    const esc = (x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const want = new RegExp(`^${esc(base)}${dir === '.' ? '' : `\\s*${esc(dir)}`}(\\s|$)`);
    const seen = [];
    for (let i = 0; i < n; i++) {
      const r = rows.nth(i);
      const text = (await r.innerText().catch(() => '')).replace(/\s+/g, ' ').trim();
      if (want.test(text)) return { index: Number(await r.getAttribute('data-index', { timeout: 2000 })) };
      seen.push(JSON.stringify(text));
    }
    throw new Error(`rows: ${seen.join(', ')}`);
  }, 8000);
}

/** Opens a workspace file with Quick Open, choosing the row of exactly that path. */
async function openFile(rel) {
  const base = path.basename(rel);
  const dir = path.dirname(rel);
  let row;
  for (let attempt = 1; row === undefined; attempt++) {
    const input = await quickOpen(rel);
    try {
      row = await findRow(rel, base, dir);
    } catch (err) {
      // The rows may be an earlier query's (the file search answered late): type the path
      // again, key by key, in the same box before opening Quick Open anew.
      try {
        await requery(input, rel);
        row = await findRow(rel, base, dir);
      } catch (err2) {
        if (attempt === 4) throw err2;
      }
    }
  }
  // Arrow keys to that row and Enter, as a user does (a click may land on a hover over it).
  const { index } = row;
  for (let i = 0; i < 30; i++) {
    const focused = await page.locator('.quick-input-widget .monaco-list-row.focused').first().getAttribute('data-index').catch(() => null);
    if (Number(focused) === index) break;
    await page.keyboard.press(focused !== null && Number(focused) > index ? 'ArrowUp' : 'ArrowDown');
    await sleep(50);
  }
  await page.keyboard.press('Enter');
  await waitFor(`the tab of ${rel}`, async () => (await activeTabTitle()) === base, 10000);
  await sleep(200);
}

async function activeTabTitle() {
  return (await page.locator('.tabs-container .tab.active .label-name').first().textContent({ timeout: 2000 }))?.trim();
}

/** Puts the cursor at line:col (1-based) with Quick Open's `:LINE:COL`. */
async function gotoLine(line, col = 1) {
  for (let attempt = 1; ; attempt++) {
    await quickOpen(`:${line}:${col}`);
    await sleep(200);
    await page.keyboard.press('Enter');
    try {
      await waitFor(`the cursor at ${line}:${col}`, async () => {
        const text = await page.locator('.statusbar-item', { hasText: /^Ln \d+, Col \d+/ }).first().innerText();
        return text.trim() === `Ln ${line}, Col ${col}`;
      }, 5000);
      return;
    } catch (err) {
      // The Enter may have met the list before it turned to "go to line": once more.
      if (attempt === 3) throw err;
    }
  }
}

/** Line and column (1-based) of `text` in the workspace file `rel`, on disk. */
function findIn(rel, text, root = WS) {
  const lines = fs.readFileSync(path.join(root, rel), 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const c = lines[i].indexOf(text);
    if (c >= 0) return [i + 1, c + 1];
  }
  throw new Error(`no ${text} in ${rel}`);
}

/** Shows the hover at the cursor ("Show or Focus Hover") and returns its text. */
async function hoverAt(line, col, { until } = {}) {
  return waitFor(
    'a hover' + (until ? ` matching ${until}` : ''),
    async () => {
      await page.keyboard.press('Escape');
      await gotoLine(line, col);
      await page.keyboard.press(`${mod}+K`);
      await page.keyboard.press(`${mod}+I`);
      const hover = page.locator('.monaco-hover:not(.hidden) .hover-contents, .monaco-hover:not(.hidden) .rendered-markdown').first();
      await hover.waitFor({ state: 'visible', timeout: 5000 });
      await sleep(300);
      const text = (await page.locator('.monaco-hover:not(.hidden)').first().innerText()).trim();
      if (text === '' || /^Loading/.test(text)) return false;
      if (until && !until.test(text)) throw new Error(text);
      return text;
    },
    45000,
  );
}

/** The Problems panel's rows, filtered with its filter box as a user narrows it. */
async function problems(filter = '') {
  const panel = page.locator('.markers-panel');
  if (!(await panel.isVisible().catch(() => false))) {
    await palette('Problems: Focus on Problems View');
    await panel.waitFor({ state: 'visible', timeout: 10000 });
  }
  const box = page.getByPlaceholder(/^Filter \(e\.g\. text/).first();
  if ((await box.inputValue()) !== filter) {
    await box.fill(filter);
    await sleep(600);
  }
  return (await page.locator('.markers-panel .monaco-list-row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
}

async function outputText() {
  await palette('Output: Show Output Channels');
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Salt Analyzer' }).first();
  await row.waitFor({ timeout: 10000 });
  await row.click();
  const view = page.locator('.output-view .view-lines').first();
  await view.waitFor({ state: 'visible', timeout: 10000 });
  await sleep(500);
  // Long lines wrap: join them again.
  return (await view.innerText()).replace(/\u00a0/g, ' ').replace(/\n/g, '');
}

/** The minion the status bar names, as a pattern for hovers (steps do not depend on each other). */
async function selectedMinion() {
  const m = /\S+\.example\.com/.exec(await statusItem().innerText());
  if (!m) throw new Error('the status bar names no minion');
  return new RegExp(m[0].replace(/\./g, '\\.'));
}

function statusItem() {
  return page.locator('[id*="salt-analyzer.minion"]').first();
}

async function notifications() {
  return (await page.locator('.notification-toast .notification-list-item-message').allInnerTexts()).join('\n');
}

/** Triggers completion and accepts the item labelled `label` (typed filter keeps it near the top). */
async function complete(label) {
  await page.keyboard.press(`${mod}+Space`);
  const widget = page.locator('.suggest-widget.visible');
  await widget.waitFor({ state: 'visible', timeout: 15000 });
  await waitFor(`completion item ${label}`, async () => {
    const labels = await page.locator('.suggest-widget.visible .monaco-list-row .label-name').allInnerTexts();
    return labels.some((l) => l.trim() === label);
  }, 15000);
  for (let i = 0; i < 30; i++) {
    const focused = (await page.locator('.suggest-widget.visible .monaco-list-row.focused .label-name').first().innerText()).trim();
    if (focused === label) break;
    await page.keyboard.press('ArrowDown');
    await sleep(50);
  }
  await page.keyboard.press('Enter');
  await sleep(300);
}

async function save() {
  await page.keyboard.press(`${mod}+S`);
  await sleep(500);
}

// ------------------------------------------------------------------ the steps
async function main() {
  port = await freePort();
  await startCodeServer(port);
  await openWindow(WS);

  const extDir = fs.readdirSync(path.join(STATE, 'extensions')).find((d) => d.startsWith('salt-analyzer.salt-analyzer-'));
  const bundled = path.join(STATE, 'extensions', extDir, 'server', 'salt-analyzer');

  await step('activation on a Salt tree: the bundled server runs and the status bar names the minion', async () => {
    await openFile('salt/base/web/init.sls');
    await waitFor('the status bar to show web01.example.com', async () => /web01\.example\.com/.test(await statusItem().innerText()), 60000);
    const pids = await waitFor('a salt-analyzer process', () => serverPids().length > 0 && serverPids(), 30000);
    if (!pids.every((p) => p.file === bundled)) throw new Error(`runs ${pids.map((p) => p.file)}, not ${bundled}`);
  });

  await step('the output channel says which binary runs (bundled, no server.path set)', async () => {
    const text = await outputText();
    if (!text.includes(`Server binary: ${bundled} (bundled with this extension), salt-analyzer `)) throw new Error(text.slice(0, 1500));
  });

  await step('diagnostics in the Problems panel: missing include and duplicate ID', async () => {
    await openFile('salt/base/db/users.sls');
    await waitFor('missing-include in Problems', async () => /web\.missing in saltenv base is not available/.test((await problems('web.missing')).join('\n')), 60000);
    await waitFor('duplicate-id in Problems', async () => (await problems('duplicate-id')).filter((r) => /Detected conflicting IDs/.test(r)).length === 2, 30000);
  });

  await step('a fix typed in the editor clears the duplicate-ID problem', async () => {
    await openFile('salt/base/db/users.sls');
    const [line, col] = findIn('salt/base/db/users.sls', 'motd:');
    await gotoLine(line, col + 4);
    await page.keyboard.type('_db');
    await waitFor('the duplicate-id problems to clear', async () => (await problems('duplicate-id')).filter((r) => /Detected conflicting IDs/.test(r)).length === 0, 60000);
    // The other problems stay.
    await waitFor('missing-include still there', async () => /web\.missing/.test((await problems('web.missing')).join('\n')), 10000);
  });

  await step('hover on an include names the file it loads', async () => {
    await openFile('salt/base/web/init.sls');
    const [l, c] = findIn('salt/base/web/init.sls', '.tls');
    const text = await hoverAt(l, c + 2, { until: /tls\.sls/ });
    if (!/web\.tls|web\/tls\.sls/.test(text)) throw new Error(text);
  });

  await step('hover on a mapstack value gives the value for the minion and its layer', async () => {
    await openFile('salt/base/app/init.sls');
    const [l, c] = findIn('salt/base/app/init.sls', 'pkg.name');
    await hoverAt(l, c + 5, { until: /app-debian/ });
  });

  await step('completion of a state function, then of its argument', async () => {
    await openFile('salt/base/web/init.sls');
    await page.keyboard.press(`${mod}+End`);
    await page.keyboard.type('\napp_pkg_x:\n  pkg.ins');
    await complete('installed');
    await page.keyboard.type(':\n    - vers');
    await complete('version');
    await save();
    const text = fs.readFileSync(path.join(WS, 'salt/base/web/init.sls'), 'utf8');
    if (!/\napp_pkg_x:\n {2}pkg\.installed:\n {4}- version:/.test(text)) throw new Error(text.slice(-200));
  });

  await step('go to definition on an include opens the included file', async () => {
    await openFile('salt/base/example/dev/virtual.sls');
    const [l, c] = findIn('salt/base/example/dev/virtual.sls', '.virt');
    await gotoLine(l, c + 2);
    await page.keyboard.press('F12');
    await waitFor('virt.sls to be the active tab', async () => (await activeTabTitle()) === 'virt.sls', 20000);
  });

  let before;
  await step('hover on a top-file environment names the selected minion', async () => {
    await openFile('salt/base/top.sls');
    const [l, c] = findIn('salt/base/top.sls', 'dev:');
    before = await hoverAt(l, c, { until: /web01\.example\.com/ });
  });

  await step('Salt: Select Minion (status-bar click) switches the minion and the hover changes', async () => {
    await statusItem().click();
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'db01.example.com' }).first().click();
    await waitFor('the status bar to show db01.example.com', async () => /db01\.example\.com/.test(await statusItem().innerText()), 20000);
    const [l, c] = findIn('salt/base/top.sls', 'dev:');
    const after = await hoverAt(l, c, { until: /db01\.example\.com/ });
    if (after === before) throw new Error('the hover did not change');
  });

  await step('Salt: Show Top Explanation opens the explanation for the selected minion', async () => {
    await palette('Salt: Show Top Explanation');
    await waitFor('the explanation tab', async () => /Top Explanation \(db01\.example\.com\)/.test((await activeTabTitle()) || ''), 20000);
    await waitFor('its text', async () => /Targets:/.test(await page.locator('.editor-instance .view-lines').first().innerText()), 20000);
  });

  await step('a settings change takes effect without a reload (salt-analyzer.minion in the Settings editor)', async () => {
    await palette('Preferences: Open User Settings');
    await page.locator('.settings-editor').waitFor({ state: 'visible', timeout: 15000 });
    await sleep(1000);
    await page.keyboard.type('salt-analyzer.minion');
    const box = page.locator('.settings-editor .setting-item-contents', { hasText: 'Minion profile (an id under' }).locator('input:visible').first();
    await box.waitFor({ state: 'visible', timeout: 30000 });
    await box.click();
    await box.fill('web01.example.com');
    await box.press('Tab');
    await waitFor('settings.json to hold the minion', () => /"salt-analyzer\.minion": "web01\.example\.com"/.test(fs.readFileSync(path.join(STATE, 'user', 'User', 'settings.json'), 'utf8')), 15000);
    await openFile('salt/base/top.sls');
    await waitFor('the status bar to show web01.example.com', async () => /web01\.example\.com/.test(await statusItem().innerText()), 20000);
    const [l, c] = findIn('salt/base/top.sls', 'dev:');
    await hoverAt(l, c, { until: /web01\.example\.com/ });
  });

  await step('inlay hints show the rendered value for the minion, and change with it', async () => {
    await openFile('salt/base/app/init.sls');
    // An inlay hint is drawn as injected text: the line's text, or the content of a
    // ::before/::after of one of its spans (VS Code draws it either way by version).
    const lines = () =>
      page.evaluate(() => {
        const root = document.querySelector('.editor-instance .view-lines');
        if (!root) return '';
        const out = [root.innerText];
        for (const el of root.querySelectorAll('span')) {
          for (const pseudo of ['::before', '::after']) {
            const c = getComputedStyle(el, pseudo).content;
            if (c && c !== 'none' && c !== 'normal') out.push(c);
          }
        }
        return out.join('\n');
      });
    await waitFor('the hint app-debian for web01', async () => /app-debian/.test(await lines()), 45000);
    const pick = async (id) => {
      await statusItem().click();
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 10000 });
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: id }).first().click();
      await waitFor(`the status bar to show ${id}`, async () => new RegExp(id.replace(/\./g, '\\.')).test(await statusItem().innerText()), 20000);
    };
    await pick('db01.example.com');
    await waitFor('the hint app-redhat for db01', async () => /app-redhat/.test(await lines()) && !/app-debian/.test(await lines()), 45000);
    await pick('web01.example.com');
    await waitFor('the hint app-debian again', async () => /app-debian/.test(await lines()), 45000);
  });

  await step('F2 renames a state ID at its declaration and its requisites in three files', async () => {
    await openFile('salt/base/web/tls.sls');
    const [l, c] = findIn('salt/base/web/tls.sls', 'tls_cert:');
    await gotoLine(l, c + 2);
    await page.keyboard.press('F2');
    const box = page.locator('.rename-box input, .rename-input').first();
    await box.waitFor({ state: 'visible', timeout: 15000 });
    await box.fill('tls_cert_x');
    await page.keyboard.press('Enter');
    await sleep(1000);
    await palette('File: Save All');
    const read = (rel) => fs.readFileSync(path.join(WS, rel), 'utf8');
    await waitFor(
      'the three files renamed on disk',
      () =>
        /^tls_cert_x:\n/.test(read('salt/base/web/tls.sls')) &&
        /\n {6}- tls_cert_x\n/.test(read('salt/base/web/tls.sls')) &&
        /- test: tls_cert_x\n/.test(read('salt/base/web/init.sls')) &&
        /- test: tls_cert_x\n/.test(read('salt/base/web/cert_user.sls')),
      30000,
    );
  });

  await step('semantic colours: the token at a position, as the editor reports it', async () => {
    await openFile('salt/base/app/init.sls');
    const [l, c] = findIn('salt/base/app/init.sls', 'pkg.installed');
    await gotoLine(l, c + 5);
    const widget = page.locator('.token-inspect-widget');
    await waitFor(
      'the token inspector to name the semantic token',
      async () => {
        if (!(await widget.isVisible())) await palette('Developer: Inspect Editor Tokens and Scopes');
        await sleep(500);
        const text = await widget.innerText().catch(() => '');
        return /semantic token type\s+function/.test(text) && /defaultLibrary/.test(text);
      },
      30000,
    );
    await page.keyboard.press('Escape');
  });

  await step('Ctrl-click on a salt:// URL opens the file the minion\'s file roots serve', async () => {
    await openFile('salt/base/app/init.sls');
    // The innermost span of the line's text that holds the URL (the link decoration splits it).
    const urlBox = () =>
      page.evaluate(() => {
        const spans = [...document.querySelectorAll('.editor-instance .view-lines span')].filter((e) => e.children.length === 0 && (e.textContent.includes('salt://') || e.textContent.includes('files/app.conf')));
        const r = spans.length ? spans[0].getBoundingClientRect() : null;
        return r && { x: r.x, y: r.y, width: r.width, height: r.height };
      });
    await waitFor('the salt:// URL on screen', async () => (await urlBox()) !== null, 15000);
    await waitFor(
      'app.conf to open',
      async () => {
        const b = await urlBox();
        if (!b) return false;
        await page.mouse.move(b.x + 12, b.y + b.height / 2);
        await page.keyboard.down(mod);
        await sleep(600);
        await page.mouse.click(b.x + 12, b.y + b.height / 2);
        await page.keyboard.up(mod);
        await sleep(500);
        return (await activeTabTitle()) === 'app.conf';
      },
      30000,
    );
  });

  await step('Salt: Restart Server starts a new server process that answers', async () => {
    // This window's server runs and answers before its pid is taken (after a window opened
    // again, its server may still be starting). The minion item shows on a Salt file.
    await openFile('salt/base/top.sls');
    await waitFor('the status bar to name the minion', async () => /example\.com/.test(await statusItem().innerText()), 60000);
    const old = serverPids().map((p) => p.pid);
    await palette('Salt: Restart Server');
    // One of the servers running before has gone and a new one runs. A window opened again
    // after Chromium went away leaves the old window's server waiting for its extension host,
    // so not every earlier pid goes.
    await waitFor('a new server process', () => {
      const now = serverPids().map((p) => p.pid);
      return now.some((p) => !old.includes(p)) && old.some((p) => !now.includes(p));
    }, 30000);
    await openFile('salt/base/top.sls');
    const [l, c] = findIn('salt/base/top.sls', 'dev:');
    await hoverAt(l, c, { until: await selectedMinion() });
    const text = await outputText();
    if ((text.match(/Server binary: /g) || []).length < 2) throw new Error(text.slice(0, 1500));
  });

  await step('Salt: Refresh Pillar reaches the server and is answered without an error', async () => {
    const errors = await notifications();
    await palette('Salt: Refresh Pillar');
    await sleep(2000);
    const now = await notifications();
    if (/Refresh Pillar failed/.test(now) && !/Refresh Pillar failed/.test(errors)) throw new Error(now);
    const text = await outputText();
    if (/Refresh Pillar failed/.test(text)) throw new Error(text);
    // The server still answers after the refresh.
    await openFile('salt/base/top.sls');
    const [l, c] = findIn('salt/base/top.sls', 'dev:');
    await hoverAt(l, c, { until: await selectedMinion() });
  });

  await step('Salt: Check Fleet reaches the server and says how many fleet minions it checked', async () => {
    // This workspace has no `fleet:`: the server answers that it checked none.
    await palette('Salt: Check Fleet');
    await waitFor('the Check Fleet message', async () => /checked 0 fleet minions, 0 findings/.test(await notifications()), 30000);
  });

  await step('Salt: Show Impact of Changes opens the report of the edits against HEAD in a preview', async () => {
    // The edits of the steps above (the duplicate-ID fix, the completed state) differ from HEAD.
    await palette('Salt: Show Impact of Changes');
    await waitFor('the impact report preview', async () => /^Preview/.test((await activeTabTitle()) || ''), 60000);
    // The preview's webview keeps the keyboard: give it back to a text editor (its tab) so the
    // steps after this one can type into Quick Open.
    await page.locator('.tabs-container .tab', { hasText: 'top.sls' }).first().click();
    await waitFor('a text editor to be active again', async () => (await activeTabTitle()) === 'top.sls', 10000);
    await sleep(300);
  });

  await step('the server is restarted after it is killed, and diagnostics come back', async () => {
    // One window, one server; a window opened again after Chromium went away leaves the old
    // window's extension host (and its server) waiting for a reconnection, so then all go.
    const old = serverPids().map((p) => p.pid);
    if (old.length !== 1 && !(reopened > 0 && old.length > 1)) throw new Error(`expected one server, found ${JSON.stringify(old)}`);
    for (const pid of old) process.kill(pid, 'SIGKILL');
    await waitFor('a new server process', () => {
      const now = serverPids();
      return now.length >= 1 && (reopened > 0 || now.length === 1) && now.every((p) => !old.includes(p.pid));
    }, 30000);
    await openFile('salt/base/web/init.sls');
    await waitFor('missing-include in Problems again', async () => /web\.missing/.test((await problems('web.missing')).join('\n')), 60000);
    await openFile('salt/base/top.sls');
    const [l, c] = findIn('salt/base/top.sls', 'dev:');
    await hoverAt(l, c, { until: await selectedMinion() });
    await waitFor('the status bar to show the minion again', async () => /example\.com/.test(await statusItem().innerText()), 20000);
  });

  await step('an SLS file renamed in the explorer: its includes and top entry follow it', async () => {
    const read = (rel) => fs.readFileSync(path.join(WS, rel), 'utf8');
    // A retry after the move went through only checks.
    if (!fs.existsSync(path.join(WS, 'salt/base/base_common.sls'))) {
      await openFile('salt/base/common.sls');
      await palette('File: Reveal Active File in Explorer View');
      const row = page.locator('.explorer-folders-view .monaco-list-row.selected', { hasText: 'common.sls' }).first();
      await row.waitFor({ state: 'visible', timeout: 15000 });
      await row.click();
      await page.keyboard.press('F2');
      const box = page.locator('.explorer-folders-view .monaco-inputbox input').first();
      await box.waitFor({ state: 'visible', timeout: 15000 });
      await box.fill('base_common.sls');
      await page.keyboard.press('Enter');
      // VS Code asks once before it applies an extension's edits for a move: the user says OK.
      const dialog = page.locator('.monaco-dialog-box', { hasText: 'refactoring changes' }).first();
      await dialog.waitFor({ state: 'visible', timeout: 30000 });
      await dialog.locator('.monaco-button', { hasText: /^OK$/ }).first().click();
      await waitFor('the file moved on disk', () => fs.existsSync(path.join(WS, 'salt/base/base_common.sls')), 30000);
      await sleep(1000);
      await palette('File: Save All');
    }
    await waitFor(
      'the top entry and both includes renamed on disk',
      () =>
        /\n {4}- base_common\n/.test(read('salt/base/top.sls')) &&
        /\n {2}- base_common\n/.test(read('salt/base/web/init.sls')) &&
        /\n {2}- base_common\n/.test(read('salt/base/db/init.sls')),
      30000,
    );
    // The server reads the moved tree: the new include loads the moved file.
    await openFile('salt/base/db/init.sls');
    const [l, c] = findIn('salt/base/db/init.sls', '- base_common');
    await hoverAt(l, c + 4, { until: /base_common\.sls/ });
  });

  // First run: a new window on a tree with no salt-analyzer.yaml and no Salt config.
  await step('first run: one notification says what the server found and offers a starter salt-analyzer.yaml', async () => {
    // A new window (a new Chromium when the old one went away).
    if (!page.isClosed()) await page.close().catch(() => {});
    await openWindow(FRESH);
    const toast = page.locator('.notification-toast', { hasText: 'found no salt-analyzer.yaml' });
    await toast.waitFor({ state: 'visible', timeout: 60000 });
    const text = await toast.innerText();
    for (const want of ['states from base: salt/base/, dev: salt/dev/', 'found salt/base/top.sls', 'no minion profiles']) {
      if (!text.includes(want)) throw new Error(`no "${want}" in: ${text}`);
    }
    // Before the file exists the server already uses those roots: `include: - common`
    // resolves (to the ID common.sls shares with db/users.sls), SLS names are relative to salt/base.
    await openFile('salt/base/db/init.sls');
    await waitFor('common found through the discovered roots', async () => /SLS 'base:db\.users' and SLS 'base:common'/.test((await problems('base:common')).join('\n')), 60000);
    // The toast may have gone by now: the notification center keeps it.
    await palette('Notifications: Show Notifications');
    const item = page.locator('.notifications-center .notification-list-item', { hasText: 'found no salt-analyzer.yaml' });
    await item.waitFor({ state: 'visible', timeout: 10000 });
    await item.locator('.monaco-button', { hasText: 'Create salt-analyzer.yaml' }).first().click();
    await waitFor('salt-analyzer.yaml on disk', () => fs.existsSync(path.join(FRESH, 'salt-analyzer.yaml')), 15000);
    const yaml = fs.readFileSync(path.join(FRESH, 'salt-analyzer.yaml'), 'utf8');
    if (!/\n {2}base: \[salt\/base\]\n {2}dev: \[salt\/dev\]\n/.test(yaml)) throw new Error(yaml);
    await waitFor('the starter file opened', async () => (await activeTabTitle()) === 'salt-analyzer.yaml', 15000);
    // After: the server reads it: `common` is found, and SLS names are relative to salt/base.
    await openFile('salt/base/db/init.sls');
    await waitFor('the missing include of common to go', async () => {
      const common = (await problems('SLS common')).join('\n');
      const ids = (await problems('base:common')).join('\n');
      return !/SLS common in saltenv base is not available/.test(common) && /SLS 'base:db\.users' and SLS 'base:common'/.test(ids);
    }, 60000);
  });

}

main()
  .catch((err) => {
    failed += 1;
    console.log(`not ok the run: ${String((err && err.stack) || err).replace(/\n/g, '\n    ')}`);
  })
  .finally(async () => {
    closing = true;
    if (browser) await browser.close().catch(() => {});
    if (chromiumServer) await chromiumServer.close().catch(() => {});
    if (server) {
      try {
        process.kill(-server.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    process.exit(failed === 0 ? 0 : 1);
  });
