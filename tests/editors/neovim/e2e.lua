-- End-to-end: a real headless Neovim with only our plugin on the runtimepath, the real
-- salt-analyzer binary, and a copy of examples/. Driven by tests/editors/run.sh:
--
--   nvim --headless -u NONE --cmd 'set rtp^=editors/neovim' -l tests/editors/neovim/e2e.lua BIN EXAMPLES
--
-- Prints "ok NAME" / "not ok NAME: why" per step and exits 1 when any failed. Every wait has a
-- timeout, so a hung server fails the step instead of the run.

local bin = assert(_G.arg[1], 'usage: e2e.lua BIN EXAMPLES')
local examples = assert(_G.arg[2], 'usage: e2e.lua BIN EXAMPLES')
local failed = 0

local function step(name, f)
  local ok, err = xpcall(f, debug.traceback)
  if ok then
    io.write('ok ' .. name .. '\n')
  else
    failed = failed + 1
    io.write('not ok ' .. name .. ': ' .. tostring(err):gsub('\n', '\n    ') .. '\n')
  end
end

local function wait_for(what, cond, ms)
  if not vim.wait(ms or 15000, cond, 20) then
    error('timed out waiting for ' .. what, 2)
  end
end

-- A private copy of the example tree, so edits never touch the repository.
local root = vim.fn.tempname()
vim.fn.mkdir(root, 'p')
vim.fn.system({ 'cp', '-r', examples .. '/.', root })
assert(vim.v.shell_error == 0, 'copy examples')
root = vim.fn.resolve(root)

-- A small saltext-formula-style formula added to the private copy (the map.jinja hover step).
local files = {
  ['salt/base/app/map.jinja'] = { '{%- set mapdata = salt["map.data"](tpldir) %}' },
  ['salt/base/app/parameters/defaults.yaml'] = { 'values:', '  pkg:', '    name: app' },
  ['salt/base/app/parameters/os_family/Debian.yaml'] = { 'values:', '  pkg:', '    name: app-debian' },
  ['salt/base/app/init.sls'] = {
    '{%- from tpldir ~ "/map.jinja" import mapdata with context %}',
    'app_pkg:',
    '  pkg.installed:',
    '    - name: {{ mapdata.pkg.name }}',
  },
}
for rel, lines in pairs(files) do
  vim.fn.mkdir(vim.fs.dirname(root .. '/' .. rel), 'p')
  vim.fn.writefile(lines, root .. '/' .. rel)
end
-- A small fleet (`salt '*' grains.items --out=json --static` output) for the fleet steps.
vim.fn.writefile({
  '{"web07.example.com": {"id": "web07.example.com", "os_family": "Debian", "roles": ["web"]},',
  ' "web08.example.com": {"id": "web08.example.com", "os_family": "Debian", "roles": ["web"]},',
  ' "mon01.example.com": {"id": "mon01.example.com", "os_family": "RedHat", "roles": ["monitoring"]}}',
}, root .. '/fleet.json')
vim.fn.writefile({ 'fleet: fleet.json' }, root .. '/salt-analyzer.yaml', 'a')

-- Notifications would interleave with the result lines on stdout.
local notes = {}
vim.notify = function(msg)
  table.insert(notes, msg)
end

-- `-u NONE` loads no plugins and detects no filetypes: do what a user's config would.
vim.cmd('filetype on')
vim.cmd('runtime! ftdetect/*.lua')
vim.cmd('runtime! plugin/salt-analyzer.lua')
require('salt-analyzer').setup({ cmd = { bin } })

local function open(rel)
  vim.cmd.edit(vim.fn.fnameescape(root .. '/' .. rel))
  local buf = vim.api.nvim_get_current_buf()
  wait_for('the server to attach to ' .. rel, function()
    return #vim.lsp.get_clients({ bufnr = buf, name = 'salt_analyzer' }) > 0
  end)
  return buf
end

local function diagnostics(buf, code)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if code == nil or d.code == code then
      table.insert(out, d.lnum + 1)
    end
  end
  table.sort(out)
  return out
end

local function has_line(lines, n)
  for _, l in ipairs(lines) do
    if l == n then
      return true
    end
  end
  return false
end

-- Put the cursor on the first occurrence of `text` at or after line `from` (1-based).
local function cursor_on(buf, text, from)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  for i = from or 1, #lines do
    local col = lines[i]:find(text, 1, true)
    if col then
      vim.api.nvim_win_set_cursor(0, { i, col - 1 })
      return
    end
  end
  error('no ' .. text .. ' in buffer')
end

local function hover_text(buf)
  local params = vim.lsp.util.make_position_params(0, 'utf-16')
  local res = vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, 10000) or {}
  for _, r in pairs(res) do
    if r.result and r.result.contents then
      local c = r.result.contents
      if type(c) == 'table' then
        return c.value or vim.inspect(c)
      end
      return c
    end
  end
  return ''
end

-- Jump with the editor's own go-to-definition and report where we landed.
local function jump()
  local before = vim.api.nvim_get_current_buf()
  local pos = vim.api.nvim_win_get_cursor(0)
  vim.lsp.buf.definition()
  wait_for('the jump', function()
    local now = vim.api.nvim_win_get_cursor(0)
    return vim.api.nvim_get_current_buf() ~= before or now[1] ~= pos[1]
  end)
  local name = vim.api.nvim_buf_get_name(0)
  return name:sub(#root + 2), vim.api.nvim_win_get_cursor(0)[1]
end

step('the server attaches and reports the requisite cycle in web/tls.sls', function()
  local buf = open('salt/base/web/tls.sls')
  wait_for('requisite-cycle diagnostics', function()
    local l = diagnostics(buf, 'requisite-cycle')
    return has_line(l, 1) and has_line(l, 7)
  end)
end)

local users
step('the duplicate ID is reported in db/users.sls and common.sls', function()
  users = open('salt/base/db/users.sls')
  wait_for('duplicate-id at line 6', function()
    return has_line(diagnostics(users, 'duplicate-id'), 6)
  end)
  local common = open('salt/base/common.sls')
  wait_for('duplicate-id at line 2 of common.sls', function()
    return has_line(diagnostics(common, 'duplicate-id'), 2)
  end)
end)

step('go to definition on a relative include lands in the included file', function()
  local buf = open('salt/base/example/dev/virtual.sls')
  cursor_on(buf, '.virt', 1)
  local file, line = jump()
  assert(file == 'salt/base/example/dev/virt.sls', 'landed in ' .. file)
  assert(line == 1, 'landed on line ' .. line)
end)

step('go to definition on a requisite lands on the state declaration', function()
  local buf = open('salt/base/web/init.sls')
  cursor_on(buf, 'tls_cert', 8)
  local file, line = jump()
  assert(file == 'salt/base/web/tls.sls', 'landed in ' .. file)
  assert(line == 1, 'landed on line ' .. line)
end)

local top, before
step('hover on a top-file environment key explains the section', function()
  top = open('salt/base/top.sls')
  cursor_on(top, 'dev:', 1)
  wait_for('a hover', function()
    before = hover_text(top)
    return before ~= ''
  end)
  assert(before:find('dev', 1, true), 'hover: ' .. before)
  assert(before:find('web01.example.com', 1, true), 'hover does not name the selected minion: ' .. before)
end)

step(':SaltMinion switches the profile and the hover changes', function()
  vim.cmd('SaltMinion db01.example.com')
  local after
  wait_for('the hover to change', function()
    after = hover_text(top)
    return after ~= '' and after ~= before
  end)
  assert(after:find('db01.example.com', 1, true), 'hover after the switch: ' .. after)
end)

step('editing a buffer clears a diagnostic', function()
  vim.api.nvim_set_current_buf(users)
  local lines = vim.api.nvim_buf_get_lines(users, 0, -1, false)
  for i, l in ipairs(lines) do
    if l:match('^motd:') then
      vim.api.nvim_buf_set_lines(users, i - 1, i, false, { (l:gsub('^motd:', 'motd_db:')) })
      break
    end
  end
  wait_for('the duplicate-id diagnostic to clear', function()
    return #diagnostics(users, 'duplicate-id') == 0
  end)
end)

-- Ask for completion at the end of line `row` (1-based; where the cursor is while typing in
-- insert mode) as the editor's client does, apply the item labelled `label` with the
-- client's own text-edit code, and return the line afterwards.
local function complete(buf, row, label)
  local text = vim.api.nvim_buf_get_lines(buf, row - 1, row, false)[1]
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = row - 1, character = vim.str_utfindex(text, 'utf-16') },
  }
  local res = vim.lsp.buf_request_sync(buf, 'textDocument/completion', params, 10000) or {}
  local labels = {}
  for _, r in pairs(res) do
    local items = r.result and (r.result.items or r.result) or {}
    for _, item in ipairs(items) do
      table.insert(labels, item.label)
      if item.label == label then
        vim.lsp.util.apply_text_edits({ item.textEdit }, buf, 'utf-16')
        return vim.api.nvim_buf_get_lines(buf, row - 1, row, false)[1]
      end
    end
  end
  error('no completion ' .. label .. ' among: ' .. table.concat(labels, ', '))
end

step('completion offers a state function, then its argument', function()
  local buf = open('salt/base/web/init.sls')
  local n = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_lines(buf, n, n, false, { '', 'app_pkg_ß:', '  pkg.ins' })
  local line = complete(buf, n + 3, 'installed')
  assert(line == '  pkg.installed', 'after the function: ' .. line)
  vim.api.nvim_buf_set_lines(buf, n + 2, n + 3, false, { '  pkg.installed:', '    - vers' })
  line = complete(buf, n + 4, 'version')
  assert(line == '    - version: ', 'after the argument: ' .. line)
end)

step('hover on a map.jinja import lists the formula layers for the selected minion', function()
  local buf = open('salt/base/app/init.sls')
  vim.cmd('SaltMinion web01.example.com')
  cursor_on(buf, 'import mapdata', 1)
  local text
  wait_for('the import hover for web01', function()
    text = hover_text(buf)
    return text:find('Layers of `app` for minion `web01.example.com`', 1, true) ~= nil
  end)
  assert(text:find('os_family/Debian.yaml', 1, true), 'hover: ' .. text)
  assert(text:find('app-debian', 1, true), 'hover: ' .. text)
end)

step('the top file carries fleet counts, :SaltMinion offers the fleet, :SaltCheckFleet reports', function()
  local buf = open('salt/base/top.sls')
  local titles
  wait_for('the fleet lenses', function()
    vim.lsp.codelens.refresh({ bufnr = buf })
    vim.wait(200)
    titles = {}
    for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
      if lens.command and lens.command.title:find('fleet minions', 1, true) then
        titles[lens.range.start.line + 1] = lens.command.title
      end
    end
    return titles[4] ~= nil
  end, 30000)
  assert(titles[2] == '3 of 3 fleet minions', "'*': " .. tostring(titles[2]))
  assert(titles[4] == '2 of 3 fleet minions', "'web*': " .. tostring(titles[4]))
  local listed = require('salt-analyzer.commands').complete_minions('mon')
  assert(vim.deep_equal(listed, { 'mon01.example.com' }), 'complete: ' .. vim.inspect(listed))
  vim.cmd('SaltCheckFleet')
  wait_for('the fleet check', function()
    for _, n in ipairs(notes) do
      if n:find('checked 3 fleet minions', 1, true) then
        return true
      end
    end
    return false
  end, 60000)
end)

step('the impact lens counts the minions an unsaved change alters and opens the report', function()
  -- The tree becomes a repository whose HEAD is what is on disk; the buffers' unsaved edits
  -- (the state the completion step added to web/init.sls) are the change.
  for _, cmd in ipairs({
    { 'git', 'init', '-q' },
    { 'git', 'add', '-A' },
    { 'git', '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'base' },
  }) do
    vim.fn.system(vim.list_extend({ 'git', '-C', root }, vim.list_slice(cmd, 2)))
    assert(vim.v.shell_error == 0, table.concat(cmd, ' '))
  end
  local buf = open('salt/base/web/init.sls')
  local title
  wait_for('the impact lens', function()
    vim.lsp.codelens.refresh({ bufnr = buf })
    vim.wait(200)
    for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
      if lens.command and lens.command.title:find('changes vs HEAD', 1, true) then
        title = lens.command.title
        return true
      end
    end
    return false
  end, 30000)
  -- The example tree's minions fail to compile at both sides (its planted mistakes): the lens
  -- counts them apart as still failing, not as changed or unchanged.
  assert(title:match("^changes vs HEAD: .*%(2 compared%), 2 still fail$"), 'lens: ' .. title)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.lsp.codelens.run()
  local report
  wait_for('the impact report buffer', function()
    local b = vim.fn.bufnr('^salt-analyzer://impact$')
    if b == -1 then
      return false
    end
    report = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n')
    return report:find('minion(s) changed', 1, true) ~= nil
  end, 30000)
  -- The example tree's minions do not compile (its planted mistakes): the report says how
  -- their errors change.
  assert(report:find('### salt-analyzer: `HEAD`', 1, true), 'report: ' .. report)
  assert(report:find('errors now:', 1, true), 'report: ' .. report)
  assert(vim.bo[vim.fn.bufnr('^salt-analyzer://impact$')].filetype == 'markdown', 'not markdown')
end)

step('inlay hints show what the Jinja blocks rendered to, and follow the minion', function()
  local buf = open('salt/base/common.sls')
  local n = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_lines(buf, n, n, false, {
    "{%- set greeting = 'grüß-' ~ grains.os_family %}",
    '{%- for ß in grains.roles %}',
    'greet-{{ ß }}: {test.nop: [{name: "{{ greeting }} 💣"}]}',
    '{%- endfor %}',
  })
  local function labels()
    local out = {}
    for _, h in ipairs(vim.lsp.inlay_hint.get({ bufnr = buf })) do
      local l = h.inlay_hint.label
      table.insert(out, (h.inlay_hint.position.line + 1 - n) .. ':' .. (type(l) == 'string' and l or vim.inspect(l)))
    end
    table.sort(out)
    return table.concat(out, ' | ')
  end
  local want = '1:= grüß-Debian | 2:1 iteration | 3:grüß-Debian | 3:web'
  local got
  wait_for('the hints of web01', function()
    vim.wait(200)
    got = labels()
    return got == want
  end, 30000)
  vim.cmd('SaltMinion db01.example.com')
  want = '1:= grüß-RedHat | 2:1 iteration | 3:db | 3:grüß-RedHat'
  wait_for('the hints of db01 (was: ' .. got .. ')', function()
    vim.wait(200)
    got = labels()
    return got == want
  end, 30000)
  vim.cmd('SaltMinion web01.example.com')
end)

step('semantic tokens as Neovim reports them, and folds from the server with vim.lsp.foldexpr', function()
  local buf = open('salt/base/app/init.sls')
  -- The tokens Neovim keeps at a position (0-based), as `type+modifier+...`.
  local function token_at(row, col)
    local out = {}
    for _, t in ipairs(vim.lsp.semantic_tokens.get_at_pos(buf, row, col) or {}) do
      local mods = {}
      for m, on in pairs(t.modifiers or {}) do
        if on then
          table.insert(mods, m)
        end
      end
      table.sort(mods)
      table.insert(out, table.concat(vim.list_extend({ t.type }, mods), '+'))
    end
    return table.concat(out, ',')
  end
  wait_for('semantic tokens', function()
    return token_at(1, 0) ~= ''
  end)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local want = {
    { 1, 0, 'variable+declaration' }, -- app_pkg
    { 2, 2, 'namespace+defaultLibrary' }, -- pkg
    { 2, 6, 'function+defaultLibrary' }, -- installed
    { 3, 6, 'parameter' }, -- name
    { 3, lines[4]:find('mapdata', 1, true) - 1, 'variable' },
    { 0, lines[1]:find('from', 1, true) - 1, 'keyword' },
    { 0, 0, 'macro' }, -- {%-
  }
  for _, w in ipairs(want) do
    local got = token_at(w[1], w[2])
    assert(got == w[3], ('line %d col %d: %s, not %s'):format(w[1] + 1, w[2], got, w[3]))
  end
  vim.wo.foldmethod = 'expr'
  vim.wo.foldexpr = 'v:lua.vim.lsp.foldexpr()'
  -- `app_pkg:` (line 2) folds to its last argument, `pkg.installed:` (line 3) inside it.
  wait_for('folds from the server', function()
    return vim.fn.foldlevel(4) == 2
  end)
  assert(vim.fn.foldlevel(1) == 0 and vim.fn.foldlevel(2) == 1, ('fold levels %d %d'):format(vim.fn.foldlevel(1), vim.fn.foldlevel(2)))
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  vim.cmd('normal! zC')
  assert(vim.fn.foldclosed(2) == 2 and vim.fn.foldclosedend(2) == 4, ('closed %d-%d'):format(vim.fn.foldclosed(2), vim.fn.foldclosedend(2)))
  vim.cmd('normal! zR')
end)

step('rename a state ID with vim.lsp.buf.rename: the declaration and its requisites in two files', function()
  local buf = open('salt/base/web/tls.sls')
  cursor_on(buf, 'tls_cert:')
  vim.lsp.buf.rename('tls_cert_ℝ')
  local init = vim.fn.bufnr(root .. '/salt/base/web/init.sls')
  wait_for('the edits in both files', function()
    local tls = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    init = vim.fn.bufnr(root .. '/salt/base/web/init.sls')
    local web = init > 0 and table.concat(vim.api.nvim_buf_get_lines(init, 0, -1, false), '\n') or ''
    return tls[1] == 'tls_cert_ℝ:' and tls[10] == '      - tls_cert_ℝ' and web:find('- test: tls_cert_ℝ', 1, true) ~= nil
  end)
  -- The name was given, so nothing else changed.
  assert(vim.api.nvim_buf_get_lines(buf, 2, 3, false)[1] == '    - name: /etc/ssl/web.pem')
end)

step(':checkhealth salt-analyzer: binary, version, workspace file, Salt config, minion', function()
  local buf = open('salt/base/top.sls')
  require('salt-analyzer').reconfigure({ salt_config = 'etc/salt' })
  vim.cmd('silent checkhealth salt-analyzer')
  local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  vim.api.nvim_set_current_buf(buf)
  for _, want in ipairs({
    'binary found: ' .. bin,
    'version: salt-analyzer ',
    'workspace file: ' .. root .. '/salt-analyzer.yaml',
    'Salt config read from the salt_config option: ' .. root .. '/etc/salt/minion',
    'minion selected: web01.example.com',
    'answers are for Salt 3008 (',
  }) do
    assert(report:find(want, 1, true), 'no "' .. want .. '" in:\n' .. report)
  end
  assert(not report:find('ERROR', 1, true), report)
end)

for _, c in ipairs(vim.lsp.get_clients()) do
  c:stop()
end
os.exit(failed == 0 and 0 or 1)
