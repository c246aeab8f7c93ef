//! VS Code glue: starts salt-analyzer, keeps its settings in sync, and offers the
//! minion status-bar item, the top-explanation document, a restart command and the
//! first-run offer of a starter salt-analyzer.yaml. Decisions that need no VS Code API
//! live in discovery.ts, settings.ts, minions.ts and firstrun.ts.

import { execFile } from 'child_process';
import * as os from 'os';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  State,
} from 'vscode-languageclient/node';

import { describeSource, findServer, INSTALL_URL, isExecutableFile, notFoundMessage, serverExecutable } from './discovery';
import { firstRunMessage, parseWorkspaceInfo, starterWorkspaceFile, WorkspaceInfo } from './firstrun';
import { COMMANDS, parseMinions, pickItems, selectedMinion, selectedSalt, statusText, topExplainArguments, topExplainText } from './minions';
import { didChangeConfigurationParams, SALT_RELEASES, SECTION, ServerSettings, toServerSettings } from './settings';

const LANGUAGE_ID = 'sls';
const TOP_SCHEME = 'salt-analyzer';

let current: SaltExtension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const ext = new SaltExtension(context);
  context.subscriptions.push(ext);
  await ext.start();
  void ext.offerStarterWorkspaceFile();
}

export function deactivate(): Thenable<void> | undefined {
  return current?.stop();
}

class SaltExtension implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly output = vscode.window.createOutputChannel('Salt Analyzer');
  private readonly status = vscode.window.createStatusBarItem('salt-analyzer.minion', vscode.StatusBarAlignment.Left, 10);
  private readonly topDocs = new TopExplanationProvider((minion) => this.topExplain(minion));
  private readonly disposables: vscode.Disposable[] = [];
  private selected: string | undefined;
  /** The minion picked in the status bar since the `minion` setting last changed. */
  private picked: string | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {
    current = this;
    this.status.name = 'Salt Minion';
    this.status.command = 'salt-analyzer.pickMinion';
    this.disposables.push(
      this.output,
      this.status,
      vscode.workspace.registerTextDocumentContentProvider(TOP_SCHEME, this.topDocs),
      vscode.commands.registerCommand('salt-analyzer.pickMinion', () => this.guard('Select Minion', () => this.pickMinion())),
      vscode.commands.registerCommand('salt-analyzer.showTopExplanation', (minion?: unknown) =>
        this.guard('Show Top Explanation', () => this.showTopExplanation(typeof minion === 'string' ? minion : undefined)),
      ),
      vscode.commands.registerCommand('salt-analyzer.restartServer', () => this.guard('Restart Server', () => this.restart())),
      // The server re-reads the pillar files and queries the ext_pillar databases again.
      vscode.commands.registerCommand('salt-analyzer.reloadPillar', () =>
        this.guard('Refresh Pillar', async () => {
          await this.execute(COMMANDS.refreshPillar, []);
        }),
      ),
      // The impact code lens runs this too: the server's grouped report of what the unsaved and
      // uncommitted changes do to every minion's highstate (against HEAD), as a Markdown preview.
      vscode.commands.registerCommand('salt-analyzer.showImpact', () => this.guard('Show Impact of Changes', () => this.showImpact())),
      // The same report with the changes compiled on a release picked here (the setting
      // `impact.toSaltVersion` sets it for the lens and the plain report).
      vscode.commands.registerCommand('salt-analyzer.showUpgradeImpact', (release?: unknown) =>
        this.guard('Show Upgrade Impact', () => this.showUpgradeImpact(typeof release === 'string' ? release : undefined)),
      ),
      // Every fleet minion's highstate checked by the server (with its own progress); the
      // findings arrive as diagnostics in the Problems panel.
      vscode.commands.registerCommand('salt-analyzer.runCheckFleet', () =>
        this.guard('Check Fleet', async () => {
          const result = (await this.execute(COMMANDS.checkFleet, [])) as { minions?: number; findings?: number } | null;
          void vscode.window.showInformationMessage(`salt-analyzer: checked ${result?.minions ?? 0} fleet minions, ${result?.findings ?? 0} findings.`);
        }),
      ),
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfigurationChanged(e)),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateStatusVisibility()),
    );
  }

  async start(): Promise<void> {
    this.setStatus({ kind: 'starting' });
    const config = vscode.workspace.getConfiguration(SECTION);
    const discovery = findServer(config.get('server.path'), {
      platform: process.platform,
      env: process.env,
      workspaceFolder: workspaceFolder(),
      home: os.homedir(),
      extensionPath: this.context.extensionPath,
      isExecutable: (file) => isExecutableFile(file),
    });
    if (!discovery.found) {
      const message = notFoundMessage(discovery);
      this.output.appendLine(`${message}\nLooked at:\n  ${discovery.searched.join('\n  ') || '(nothing: PATH is empty)'}`);
      this.setStatus({ kind: 'stopped', reason: message });
      void vscode.window.showErrorMessage(message, 'Open Install Instructions', 'Open Settings').then((choice) => {
        if (choice === 'Open Install Instructions') void vscode.env.openExternal(vscode.Uri.parse(INSTALL_URL));
        if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'salt-analyzer.server.path');
      });
      return;
    }
    this.output.appendLine(`Server binary: ${discovery.path} (${describeSource(discovery.source)}), ${await binaryVersion(discovery.path)}`);

    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: LANGUAGE_ID },
        { scheme: 'untitled', language: LANGUAGE_ID },
      ],
      // The extension says what zero configuration found itself, with its offer.
      initializationOptions: { ...this.serverSettings(), firstRunMessage: false },
      outputChannel: this.output,
      middleware: {
        workspace: {
          // Answer workspace/configuration for our section with the same shape as
          // initializationOptions rather than VS Code's raw settings tree.
          configuration: async (params, token, next) => {
            const result = await next(params, token);
            if (!Array.isArray(result)) return result;
            return params.items.map((item, i) =>
              item.section === SECTION ? this.serverSettings(item.scopeUri) : result[i],
            );
          },
        },
      },
    };
    const client = new LanguageClient(
      SECTION, // also makes the client honour `salt-analyzer.trace.server`
      'Salt Analyzer',
      serverExecutable(discovery.path, workspaceFolder()),
      clientOptions,
    );
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped) this.setStatus({ kind: 'stopped', reason: 'salt-analyzer stopped. Run "Salt: Restart Server".' });
      // The client restarts a server that died: give it back the picked minion.
      if (e.newState === State.Running && e.oldState === State.Starting && this.client === client) void this.guard('Restart', () => this.afterStart());
    });
    this.client = client;
    try {
      await client.start();
    } catch (err) {
      this.setStatus({ kind: 'stopped', reason: `salt-analyzer failed to start: ${errorText(err)}` });
      void vscode.window.showErrorMessage(`salt-analyzer failed to start: ${errorText(err)}`, 'Show Log').then((c) => {
        if (c === 'Show Log') this.output.show();
      });
      return;
    }
    await this.afterStart();
  }

  /** A new server process knows only the settings: re-select the minion picked in the status bar. */
  private async afterStart(): Promise<void> {
    if (this.picked !== undefined) await this.execute(COMMANDS.selectMinion, [this.picked]);
    await this.refreshMinion();
    this.topDocs.refreshAll();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) return;
    try {
      await client.stop();
    } catch (err) {
      this.output.appendLine(`Stopping the server failed: ${errorText(err)}`);
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
    this.topDocs.refreshAll();
  }

  dispose(): void {
    void this.stop();
    for (const d of this.disposables) d.dispose();
    if (current === this) current = undefined;
  }

  private serverSettings(scopeUri?: string): ServerSettings {
    const scope = scopeUri ? vscode.Uri.parse(scopeUri) : undefined;
    const config = vscode.workspace.getConfiguration(SECTION, scope);
    return toServerSettings(
      { minion: config.get('minion'), saltConfig: config.get('saltConfig'), saltCall: config.get('saltCall'), impact: config.get('impact'), inlayHints: config.get('inlayHints'), trace: config.get('trace') },
      { platform: process.platform, env: process.env, workspaceFolder: workspaceFolder(scope), home: os.homedir() },
    );
  }

  private async onConfigurationChanged(e: vscode.ConfigurationChangeEvent): Promise<void> {
    if (!e.affectsConfiguration(SECTION)) return;
    // The server reads `saltCall` once, when it starts.
    if (e.affectsConfiguration(`${SECTION}.server.path`) || e.affectsConfiguration(`${SECTION}.saltCall`)) {
      await this.restart();
      return;
    }
    if (e.affectsConfiguration(`${SECTION}.minion`)) this.picked = undefined;
    const client = this.client;
    if (client === undefined || !client.isRunning()) return;
    await client.sendNotification(DidChangeConfigurationNotification.type, didChangeConfigurationParams(this.serverSettings()));
    await this.refreshMinion();
    this.topDocs.refreshAll();
  }

  /**
   * With no salt-analyzer.yaml and no Salt config, says once what the server found (its
   * zero-configuration discovery) and offers a starter workspace file with those roots.
   */
  async offerStarterWorkspaceFile(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (folder === undefined || folder.uri.scheme !== 'file' || this.context.workspaceState.get(STARTER_DISMISSED) === true) return;
    const saltConfig = vscode.workspace.getConfiguration(SECTION).get<string | null>('saltConfig');
    if (typeof saltConfig === 'string' && saltConfig.trim() !== '') return;
    const wsFile = vscode.Uri.joinPath(folder.uri, 'salt-analyzer.yaml');
    if (await exists(wsFile)) return;
    let info: WorkspaceInfo;
    let minions: string[] = [];
    try {
      info = parseWorkspaceInfo(await this.execute(COMMANDS.workspaceInfo, []));
      minions = parseMinions(await this.execute(COMMANDS.listMinions, [])).map((m) => m.id);
    } catch (err) {
      this.output.appendLine(`${COMMANDS.workspaceInfo} failed: ${errorText(err)}`);
      return;
    }
    if (info.discovery === null) return;
    this.output.appendLine(`salt-analyzer: ${info.discovery}`);
    const create = 'Create salt-analyzer.yaml';
    const choice = await vscode.window.showInformationMessage(firstRunMessage(info, minions), create, 'Not Now');
    if (choice === create) {
      if (!(await exists(wsFile))) {
        await vscode.workspace.fs.writeFile(wsFile, Buffer.from(starterWorkspaceFile(info.fileRoots, minions[0], info.pillarRoots), 'utf8'));
      }
      await vscode.window.showTextDocument(wsFile, { preview: false });
      // The server reads the workspace file when it starts.
      await this.guard('Restart Server', () => this.restart());
    } else if (choice === 'Not Now') {
      await this.context.workspaceState.update(STARTER_DISMISSED, true);
    }
  }

  private async pickMinion(): Promise<void> {
    const minions = parseMinions(await this.execute(COMMANDS.listMinions, []));
    if (minions.length === 0) {
      void vscode.window.showInformationMessage('salt-analyzer knows no minion profiles. Add them under `minions:` in salt-analyzer.yaml.');
      return;
    }
    const picked = await vscode.window.showQuickPick(pickItems(minions), {
      title: 'Salt: Select Minion',
      placeHolder: 'Minion (profile or fleet) whose grains and pillar drive the analysis; type an id or a grain',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (picked === undefined) return;
    await this.execute(COMMANDS.selectMinion, [picked.id]);
    this.selected = picked.id;
    this.picked = picked.id;
    this.setStatus({ kind: 'running', minion: picked.id });
    this.topDocs.refreshAll();
  }

  private async showTopExplanation(minion: string | undefined): Promise<void> {
    const uri = TopExplanationProvider.uriFor(minion ?? this.selected);
    this.topDocs.refresh(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: false });
  }

  private async topExplain(minion: string | undefined): Promise<string> {
    return topExplainText(await this.execute(COMMANDS.topExplain, topExplainArguments(minion)));
  }

  private async refreshMinion(): Promise<void> {
    try {
      const minions = parseMinions(await this.execute(COMMANDS.listMinions, []));
      this.selected = selectedMinion(minions);
      this.setStatus({ kind: 'running', minion: this.selected, salt: selectedSalt(minions) });
    } catch (err) {
      this.output.appendLine(`${COMMANDS.listMinions} failed: ${errorText(err)}`);
      this.setStatus({ kind: 'running', minion: undefined });
    }
  }

  /** Runs a server command with a direct request, so it works whether or not the server advertises it. */
  private async showImpact(args: unknown[] = []): Promise<void> {
    const report = await this.execute(COMMANDS.impactReport, args);
    if (typeof report !== 'string') {
      void vscode.window.showInformationMessage('salt-analyzer: no impact report (the workspace is not in a git repository with a commit).');
      return;
    }
    const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: report });
    await vscode.commands.executeCommand('markdown.showPreview', doc.uri);
  }

  /** Asks for the release (unless given), then shows the impact report with the changes on it. */
  private async showUpgradeImpact(release?: string): Promise<void> {
    const picked =
      release ?? (await vscode.window.showQuickPick([...SALT_RELEASES].reverse(), { placeHolder: 'Compile the changes on Salt ...' }));
    if (picked === undefined) return;
    await this.showImpact([{ toSaltVersion: picked }]);
  }

  private async execute(command: string, args: unknown[]): Promise<unknown> {
    const client = this.client;
    if (client === undefined || !client.isRunning()) {
      throw new Error('salt-analyzer is not running. Run "Salt: Restart Server".');
    }
    return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  }

  private setStatus(state: Parameters<typeof statusText>[0]): void {
    const { text, tooltip } = statusText(state);
    this.status.text = text;
    this.status.tooltip = tooltip;
    this.updateStatusVisibility();
  }

  private updateStatusVisibility(): void {
    if (vscode.window.activeTextEditor?.document.languageId === LANGUAGE_ID) this.status.show();
    else this.status.hide();
  }

  private async guard(what: string, f: () => Promise<void>): Promise<void> {
    try {
      await f();
    } catch (err) {
      this.output.appendLine(`Salt: ${what} failed: ${errorText(err)}`);
      void vscode.window.showErrorMessage(`Salt: ${what} failed: ${errorText(err)}`);
    }
  }
}

/** Read-only documents `salt-analyzer:/Top Explanation (ID)` holding `topExplain` output. */
class TopExplanationProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly open = new Map<string, vscode.Uri>();

  constructor(private readonly fetch: (minion: string | undefined) => Promise<string>) {}

  static uriFor(minion: string | undefined): vscode.Uri {
    const label = minion ?? 'selected minion';
    return vscode.Uri.from({ scheme: TOP_SCHEME, path: `/Top Explanation (${label})`, query: minion ?? '' });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    this.open.set(uri.toString(), uri);
    try {
      return await this.fetch(uri.query === '' ? undefined : uri.query);
    } catch (err) {
      return `salt-analyzer.topExplain failed: ${errorText(err)}\n`;
    }
  }

  refresh(uri: vscode.Uri): void {
    if (this.open.has(uri.toString())) this.changed.fire(uri);
  }

  refreshAll(): void {
    for (const uri of this.open.values()) this.changed.fire(uri);
  }
}

const STARTER_DISMISSED = 'salt-analyzer.starterWorkspaceFileDismissed';

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/** `salt-analyzer --version`'s answer, for the output channel. */
function binaryVersion(file: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(file, ['--version'], { timeout: 10000 }, (err, stdout) => {
      resolve(err ? `--version failed: ${err.message}` : stdout.trim());
    });
  });
}

function workspaceFolder(scope?: vscode.Uri): string | undefined {
  const folder = scope ? vscode.workspace.getWorkspaceFolder(scope) : undefined;
  const first = folder ?? vscode.workspace.workspaceFolders?.[0];
  return first?.uri.scheme === 'file' ? first.uri.fsPath : undefined;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
