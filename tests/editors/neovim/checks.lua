-- Headless Neovim checks for editors/neovim, driven by tests/editors/run.sh:
--
--   nvim --headless -u NONE --cmd 'set rtp^=editors/neovim' -l tests/editors/neovim/checks.lua TS_DIR
--
-- TS_DIR holds parser/{yaml,jinja}.so and queries/yaml/highlights.scm built by
-- run.sh. The language server is an in-process fake (a `cmd` function), so the
-- plugin's wiring is tested here without the real binary. Prints one line per
-- check, "ok NAME" or "not ok NAME: why", and exits 1 when any failed.

local ts_dir = assert(_G.arg[1], 'usage: checks.lua TS_DIR')
local results = { passed = 0, failed = 0 }

local function check(name, f)
  local ok, err = xpcall(f, debug.traceback)
  if ok then
    results.passed = results.passed + 1
    io.write('ok ' .. name .. '\n')
  else
    results.failed = results.failed + 1
    io.write('not ok ' .. name .. ': ' .. tostring(err):gsub('\n', '\n    ') .. '\n')
  end
end

local function eq(actual, expected, what)
  if not vim.deep_equal(actual, expected) then
    error(('%s: expected %s, got %s'):format(what or 'value', vim.inspect(expected), vim.inspect(actual)), 2)
  end
end

local function wait_for(what, cond, ms)
  if not vim.wait(ms or 3000, cond, 10) then
    error('timed out waiting for ' .. what, 2)
  end
end

-- Notifications go to a list instead of the message area.
local notes = {}
vim.notify = function(msg, level)
  table.insert(notes, { msg = msg, level = level })
end

local tmp = vim.fn.tempname()
local function write(path, lines)
  vim.fn.mkdir(vim.fs.dirname(path), 'p')
  vim.fn.writefile(lines, path)
end
write(tmp .. '/salt-analyzer.yaml', { 'default_minion: web01' })
write(tmp .. '/salt/base/top.sls', { 'base:', "  '*':", '    - web' })
write(tmp .. '/salt/base/web/init.sls', {
  '{%- set port = 80 %}',
  'nginx:',
  '  pkg.installed:',
  '    - name: "{{ pillar.get(\'pkg\', \'nginx\') }}"',
  '{%- if port %}',
  '    - port: {{ port }}',
  '{%- endif %}',
})
write(tmp .. '/other/alone.sls', { 'a: 1' })

-- A fake language server: answers initialize, shutdown and the three commands,
-- and records every message it receives.
local received = {}
local function fake_server(dispatchers)
  local closing, next_id = false, 0
  local function close()
    if not closing then
      closing = true
      vim.schedule(function()
        dispatchers.on_exit(0, 0)
      end)
    end
  end
  return {
    request = function(method, params, callback, notify_reply_callback)
      next_id = next_id + 1
      local id = next_id
      table.insert(received, { method = method, params = params })
      local result = vim.NIL
      if method == 'initialize' then
        result = { capabilities = {}, serverInfo = { name = 'fake-salt-analyzer' } }
      elseif method == 'workspace/executeCommand' then
        if params.command == 'salt-analyzer.listMinions' then
          result = { { id = 'web01', selected = true }, { id = 'db01', selected = false } }
        elseif params.command == 'salt-analyzer.topExplain' then
          result = 'top for ' .. ((params.arguments or {})[1] or 'the selected minion') .. '\nsecond line'
        end
      end
      vim.schedule(function()
        callback(nil, result)
        if notify_reply_callback then
          notify_reply_callback(id)
        end
      end)
      return true, id
    end,
    notify = function(method, params)
      table.insert(received, { method = method, params = params })
      if method == 'exit' then
        close()
      end
      return true
    end,
    is_closing = function()
      return closing
    end,
    terminate = close,
  }
end

local function last(method, command)
  for i = #received, 1, -1 do
    local m = received[i]
    if m.method == method and (command == nil or (m.params and m.params.command == command)) then
      return m
    end
  end
end

local function clients()
  return vim.lsp.get_clients({ name = 'salt_analyzer' })
end

local function stop_all()
  for _, c in ipairs(clients()) do
    c:stop(true)
  end
  wait_for('clients to stop', function()
    return #clients() == 0
  end)
  vim.cmd('silent! %bwipeout!')
  received = {}
end

vim.cmd('filetype on')
vim.cmd('syntax on')

-- ---------------------------------------------------------------- files and filetype
check('ftdetect/salt.lua: *.sls is salt', function()
  vim.cmd('runtime! ftdetect/salt.lua')
  eq(vim.filetype.match({ filename = 'top.sls' }), 'salt', 'top.sls')
  eq(vim.filetype.match({ filename = '/srv/salt/web/init.sls' }), 'salt', 'init.sls')
end)

check('plugin/salt-analyzer.lua defines :SaltMinion, :SaltTopExplain, :SaltRefreshPillar, :SaltImpact and :SaltCheckFleet', function()
  vim.cmd('runtime plugin/salt-analyzer.lua')
  local cmds = vim.api.nvim_get_commands({})
  eq(cmds.SaltMinion and cmds.SaltMinion.nargs, '?', 'SaltMinion nargs')
  eq(cmds.SaltTopExplain and cmds.SaltTopExplain.nargs, '?', 'SaltTopExplain nargs')
  eq(cmds.SaltRefreshPillar and cmds.SaltRefreshPillar.nargs, '0', 'SaltRefreshPillar nargs')
  eq(cmds.SaltImpact and cmds.SaltImpact.nargs, '?', 'SaltImpact nargs')
  eq(cmds.SaltCheckFleet and cmds.SaltCheckFleet.nargs, '0', 'SaltCheckFleet nargs')
  eq(type(vim.lsp.commands['salt-analyzer.showImpact']), 'function', 'the impact lens command')
end)

check('queries/sls is on the runtimepath (symlink to grammars/queries)', function()
  eq(#vim.api.nvim_get_runtime_file('queries/sls/injections.scm', false), 1, 'injections.scm')
  eq(#vim.api.nvim_get_runtime_file('queries/sls/highlights.scm', false), 1, 'highlights.scm')
end)

-- ---------------------------------------------------------------- settings
local settings = require('salt-analyzer.settings')

check('settings: nulls are JSON null, trace defaults to off', function()
  local none = { toSaltVersion = vim.NIL }
  local allhints = { values = true, conditions = true, loops = true, sets = true }
  eq(settings.server_settings({}), { minion = vim.NIL, saltConfig = vim.NIL, saltCall = vim.NIL, impact = none, inlayHints = allhints, trace = { server = 'off' } })
  eq(vim.json.encode(settings.server_settings({})), vim.json.encode({ minion = vim.NIL, saltConfig = vim.NIL, saltCall = vim.NIL, impact = none, inlayHints = allhints, trace = { server = 'off' } }))
end)

check('settings: values, relative salt_config, trace levels', function()
  local s = settings.server_settings({ minion = ' web01 ', salt_config = 'etc/salt', trace = 'verbose' }, '/ws')
  eq(s, { minion = 'web01', saltConfig = '/ws/etc/salt', saltCall = vim.NIL, impact = { toSaltVersion = vim.NIL }, inlayHints = { values = true, conditions = true, loops = true, sets = true }, trace = { server = 'verbose' } })
  eq(settings.server_settings({ impact_to_salt_version = 3008 }).impact, { toSaltVersion = '3008' }, 'impact target, a number')
  eq(settings.server_settings({ impact_to_salt_version = '2019.2' }).impact, { toSaltVersion = vim.NIL }, 'unknown impact target')
  eq(settings.server_settings({ salt_call = false }).saltCall, false, 'salt_call false: never ask Salt')
  eq(settings.server_settings({ inlay_hint_kinds = { loops = false, sets = 'no' } }).inlayHints, { values = true, conditions = true, loops = false, sets = true }, 'inlay hint kinds')
  eq(settings.server_settings({ salt_call = '/opt/salt/bin/salt-call' }).saltCall, '/opt/salt/bin/salt-call', 'salt_call path')
  eq(settings.server_settings({ salt_config = '/etc/salt' }, '/ws').saltConfig, '/etc/salt', 'absolute')
  eq(settings.server_settings({ trace = 'loud' }).trace.server, 'off', 'unknown trace')
  eq(settings.server_settings({ minion = '  ' }).minion, vim.NIL, 'blank minion')
end)

check('settings: option lists replace the defaults whole', function()
  settings.configured = {}
  eq(settings.options({ root_markers = { 'x' } }).root_markers, { 'x' })
  eq(settings.cmd({ cmd = '/opt/sa' }), { '/opt/sa' }, 'string cmd')
  eq(settings.cmd({}), { 'salt-analyzer' }, 'default cmd')
end)

check('settings: root markers in priority order', function()
  local buf = vim.fn.bufadd(tmp .. '/salt/base/web/init.sls')
  eq(settings.root_dir(buf), vim.fs.normalize(tmp), 'salt-analyzer.yaml beats a nearer top.sls')
  local top = vim.fn.bufadd(tmp .. '/other/alone.sls')
  eq(settings.root_dir(top, { 'salt-analyzer.yaml', 'top.sls' }), vim.fs.normalize(tmp), 'found upward')
end)

-- ---------------------------------------------------------------- lsp/salt_analyzer.lua (0.11+)
check('lsp/salt_analyzer.lua: cmd, filetypes, root markers, init_options', function()
  vim.g.salt_analyzer = { minion = 'web02', salt_config = 'etc/salt' }
  local file = vim.api.nvim_get_runtime_file('lsp/salt_analyzer.lua', false)[1]
  local config = dofile(file)
  eq(config.cmd, { 'salt-analyzer' }, 'cmd')
  eq(config.filetypes, { 'salt', 'sls' }, 'filetypes')
  eq(config.root_markers, { 'salt-analyzer.yaml', 'top.sls', '.git' }, 'root_markers')
  eq(config.init_options.minion, 'web02', 'minion')
  local params = {}
  config.before_init(params, { root_dir = '/ws' })
  eq(params.initializationOptions, { minion = 'web02', saltConfig = '/ws/etc/salt', saltCall = vim.NIL, impact = { toSaltVersion = vim.NIL }, inlayHints = { values = true, conditions = true, loops = true, sets = true }, trace = { server = 'off' } })
  eq(type(config.on_attach), 'function', 'on_attach turns on inlay hints')
end)

if vim.lsp.enable then
  check('vim.lsp.enable("salt_analyzer") starts the server with init_options from vim.g', function()
    vim.g.salt_analyzer = { minion = 'web02' }
    vim.lsp.config('salt_analyzer', { cmd = fake_server })
    vim.lsp.enable('salt_analyzer')
    vim.cmd.edit(vim.fn.fnameescape(tmp .. '/salt/base/web/init.sls'))
    eq(vim.bo.filetype, 'salt', 'filetype')
    wait_for('the client', function()
      return #clients() == 1 and clients()[1].initialized
    end)
    local init = last('initialize')
    eq(init.params.initializationOptions.minion, 'web02', 'minion')
    eq(init.params.rootUri, vim.uri_from_fname(vim.fs.normalize(tmp)), 'rootUri')
    vim.lsp.enable('salt_analyzer', false)
    stop_all()
    vim.g.salt_analyzer = nil
  end)
end

-- ---------------------------------------------------------------- setup() (0.10+) and commands
local sa = require('salt-analyzer')

check('setup(): a missing binary warns once with the install URL and does not throw', function()
  sa.setup({ cmd = { '/nonexistent/salt-analyzer' } })
  vim.cmd.edit(vim.fn.fnameescape(tmp .. '/salt/base/web/init.sls'))
  vim.cmd.edit(vim.fn.fnameescape(tmp .. '/other/alone.sls'))
  vim.wait(50)
  eq(#clients(), 0, 'clients')
  local warnings = vim.tbl_filter(function(n)
    return n.msg:find('salt-analyzer#install', 1, true) ~= nil
  end, notes)
  eq(#warnings, 1, 'warnings')
  stop_all()
end)

check('setup(): starts on FileType with root, init_options and settings', function()
  sa.setup({ cmd = fake_server, minion = 'web01', salt_config = 'etc/salt' })
  vim.cmd.edit(vim.fn.fnameescape(tmp .. '/salt/base/web/init.sls'))
  wait_for('the client', function()
    return #clients() == 1 and clients()[1].initialized
  end)
  local client = clients()[1]
  eq(client.config.root_dir, vim.fs.normalize(tmp), 'root_dir')
  local init = last('initialize')
  eq(init.params.initializationOptions, {
    minion = 'web01',
    saltConfig = vim.fs.normalize(tmp) .. '/etc/salt',
    saltCall = vim.NIL,
    impact = { toSaltVersion = vim.NIL },
    inlayHints = { values = true, conditions = true, loops = true, sets = true },
    trace = { server = 'off' },
  }, 'initializationOptions')
  eq(client.config.settings['salt-analyzer'].minion, 'web01', 'settings section')
end)

check(':SaltMinion ID calls selectMinion with [ID]', function()
  vim.cmd('SaltMinion db01')
  wait_for('selectMinion', function()
    return last('workspace/executeCommand', 'salt-analyzer.selectMinion') ~= nil
  end)
  eq(last('workspace/executeCommand', 'salt-analyzer.selectMinion').params.arguments, { 'db01' })
end)

check(':SaltMinion lists the profiles with vim.ui.select, then selects the pick', function()
  received = {}
  local shown
  local select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    shown = vim.tbl_map(opts.format_item, items)
    on_choice(items[2], 2)
  end
  vim.cmd('SaltMinion')
  wait_for('selectMinion', function()
    return last('workspace/executeCommand', 'salt-analyzer.selectMinion') ~= nil
  end)
  vim.ui.select = select
  eq(last('workspace/executeCommand', 'salt-analyzer.listMinions').params.arguments, {}, 'listMinions args')
  eq(shown, { 'web01  (selected)', 'db01' }, 'items')
  eq(last('workspace/executeCommand', 'salt-analyzer.selectMinion').params.arguments, { 'db01' }, 'selectMinion args')
end)

check(':SaltImpact RELEASE asks for the report with the changes on that release', function()
  vim.cmd('SaltImpact 3006')
  wait_for('impactReport', function()
    return last('workspace/executeCommand', 'salt-analyzer.impactReport') ~= nil
  end)
  eq(last('workspace/executeCommand', 'salt-analyzer.impactReport').params.arguments, { { toSaltVersion = '3006' } }, 'arguments')
  eq(vim.fn.getcompletion('SaltImpact 300', 'cmdline'), { '3006', '3007', '3008' }, 'completion')
end)

check(':SaltMinion completes minion ids', function()
  eq(sa.commands.complete_minions(''), { 'web01', 'db01' }, 'all')
  eq(sa.commands.complete_minions('d'), { 'db01' }, 'prefix')
end)

check(':SaltTopExplain opens a read-only scratch buffer with the text', function()
  local source = vim.api.nvim_get_current_buf()
  vim.cmd('SaltTopExplain')
  wait_for('the scratch buffer', function()
    return vim.api.nvim_buf_get_name(0):find('top-explain', 1, true) ~= nil
  end)
  eq(last('workspace/executeCommand', 'salt-analyzer.topExplain').params.arguments, {}, 'arguments')
  eq(vim.api.nvim_buf_get_lines(0, 0, -1, false), { 'top for the selected minion', 'second line' }, 'lines')
  eq(vim.bo.buftype, 'nofile', 'buftype')
  eq(vim.bo.modifiable, false, 'modifiable')
  vim.cmd('close')
  vim.api.nvim_set_current_buf(source)
  vim.cmd('SaltTopExplain web01')
  wait_for('the second scratch buffer', function()
    return vim.api.nvim_buf_get_name(0):find('top-explain/web01', 1, true) ~= nil
  end)
  eq(vim.api.nvim_buf_get_lines(0, 0, 1, false), { 'top for web01' }, 'lines')
  vim.cmd('close')
end)

check(':SaltRefreshPillar sends salt-analyzer.refreshPillar', function()
  vim.cmd('SaltRefreshPillar')
  wait_for('the refresh command', function()
    return last('workspace/executeCommand', 'salt-analyzer.refreshPillar') ~= nil
  end)
end)

check('reconfigure() sends workspace/didChangeConfiguration with the section', function()
  sa.reconfigure({ minion = 'db01' })
  wait_for('didChangeConfiguration', function()
    local m = last('workspace/didChangeConfiguration')
    return m ~= nil and m.params.settings['salt-analyzer'].minion == 'db01'
  end)
  stop_all()
end)

-- ---------------------------------------------------------------- regex syntax fallback
check('syntax/salt.vim: YAML keys and Jinja in keys, strings and statements', function()
  vim.cmd.edit(vim.fn.fnameescape(tmp .. '/salt/base/web/init.sls'))
  eq(vim.b.current_syntax, 'salt', 'current_syntax')
  local function group(lnum, text, offset)
    local line = vim.fn.getline(lnum)
    local col = assert(line:find(text, 1, true), text) + (offset or 0)
    return vim.fn.synIDattr(vim.fn.synID(lnum, col, 1), 'name')
  end
  eq(group(1, '{%-'), 'saltJinjaDelim', '{%- at line start')
  eq(group(1, 'set'), 'saltJinjaTag', 'tag')
  eq(group(2, 'nginx'), 'yamlBlockMappingKey', 'yaml key')
  eq(group(4, '{{'), 'saltJinjaDelim', '{{ inside a double-quoted string')
  eq(group(4, 'pillar'), 'saltJinjaSaltVar', 'salt variable')
  eq(group(4, "'pkg'"), 'saltJinjaString', 'Jinja string inside a YAML string')
  eq(group(6, '{{'), 'saltJinjaDelim', '{{ as a value')
  stop_all()
end)

-- ---------------------------------------------------------------- tree-sitter queries
vim.opt.runtimepath:prepend(ts_dir)
local function sample_parser(src)
  local parser = vim.treesitter.get_string_parser(src, 'sls')
  parser:parse(true)
  return parser
end

check('tree-sitter: `sls` registers with the jinja and yaml parsers', function()
  eq(sa.register_treesitter(), true, 'register_treesitter')
  eq(vim.treesitter.language.get_lang('salt'), 'sls', 'salt filetype language')
end)

check('tree-sitter: queries/sls/*.scm parse against the jinja parser', function()
  assert(vim.treesitter.query.get('sls', 'injections'), 'injections')
  assert(vim.treesitter.query.get('sls', 'highlights'), 'highlights')
end)

check('tree-sitter: one YAML tree spans the Jinja blocks (combined injection)', function()
  local src = table.concat(vim.fn.readfile(tmp .. '/salt/base/web/init.sls'), '\n') .. '\n'
  local parser = sample_parser(src)
  local yaml = parser:children().yaml
  assert(yaml, 'no yaml injection')
  local trees = yaml:trees()
  eq(#trees, 1, 'yaml trees')
  local root = trees[1]:root()
  eq(root:has_error(), false, 'yaml tree has errors')
  -- `- port:` sits between {%- if %} and {%- endif %} and still belongs to the
  -- same sequence as `- name:`.
  local query = vim.treesitter.query.parse('yaml', '(block_sequence) @seq')
  local items
  for _, node in query:iter_captures(root, src) do
    items = node:named_child_count()
  end
  eq(items, 2, 'items in the pkg.installed sequence')
end)

check('tree-sitter: Jinja captures outrank the YAML string around them', function()
  local buf = vim.fn.bufadd(tmp .. '/salt/base/web/init.sls')
  vim.fn.bufload(buf)
  vim.bo[buf].filetype = 'salt'
  eq(sa.treesitter(buf), true, 'treesitter(buf)')
  vim.treesitter.get_parser(buf):parse(true)
  local line = vim.api.nvim_buf_get_lines(buf, 3, 4, false)[1]
  local col = line:find('{{', 1, true) - 1
  local found = {}
  for _, c in ipairs(vim.treesitter.get_captures_at_pos(buf, 3, col)) do
    found[c.lang .. ':' .. c.capture] = (c.metadata and c.metadata.priority) or 'default'
  end
  assert(found['yaml:string'], 'no yaml string capture: ' .. vim.inspect(found))
  eq(tonumber(found['sls:keyword.directive']), 110, 'priority of the {{ capture')
end)

vim.fn.delete(tmp, 'rf')
io.write(('%d passed, %d failed\n'):format(results.passed, results.failed))
vim.cmd(results.failed == 0 and 'qall!' or 'cquit 1')
