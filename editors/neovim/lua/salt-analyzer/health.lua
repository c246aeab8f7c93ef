--- `:checkhealth salt-analyzer`: the binary (found, its version), the workspace file, the Salt
--- configuration the server reads, and the minion the running server has selected.
local settings = require('salt-analyzer.settings')
local commands = require('salt-analyzer.commands')

local M = {}

local health = vim.health

--- `workspace/executeCommand` COMMAND, synchronously (the method call changed in 0.11).
local function execute(client, command)
  local params = { command = command, arguments = {} }
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request_sync('workspace/executeCommand', params, 5000)
  end
  return client.request_sync('workspace/executeCommand', params, 5000)
end

--- The running salt_analyzer clients.
local function clients()
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  return get({ name = settings.name })
end

--- The workspace root: a running client's, else the one an open salt buffer would get, else cwd.
local function root(opts)
  local c = clients()[1]
  if c and c.config.root_dir then
    return c.config.root_dir, c
  end
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(opts.filetypes, vim.bo[buf].filetype) then
      return settings.root_dir(buf, opts.root_markers), nil
    end
  end
  return vim.fn.getcwd(), nil
end

--- `salt_config:` of a workspace file (a plain scalar on its own line), or nil.
local function workspace_salt_config(file)
  for _, line in ipairs(vim.fn.readfile(file)) do
    local value = line:match('^salt_config:%s*([^#]-)%s*$') or line:match('^salt_config:%s*([^#]-)%s+#')
    if value and value ~= '' then
      return (value:gsub('^["\'](.*)["\']$', '%1'))
    end
  end
  return nil
end

local function absolute(path, dir)
  path = vim.fs.normalize(path)
  if path:match('^/') or path:match('^%a:[/\\]') then
    return path
  end
  return vim.fs.normalize(dir .. '/' .. path)
end

function M.check()
  local opts = settings.options()

  health.start('salt-analyzer: binary')
  local cmd = settings.cmd(opts)
  if type(cmd) == 'function' then
    health.ok('`cmd` is a function (an in-process server): nothing to look up')
  else
    local exe = vim.fn.exepath(cmd[1])
    if exe == '' then
      health.error(('`%s` was not found (not executable or not on PATH)'):format(cmd[1]), {
        'Download a release binary or run `cargo install --locked --path server/analyzer`: ' .. settings.install_url,
        'Or give its path: require("salt-analyzer").setup({ cmd = { "/path/to/salt-analyzer" } })',
      })
    else
      health.ok('binary found: ' .. exe)
      local out = vim.fn.system({ exe, '--version' })
      if vim.v.shell_error == 0 then
        health.ok('version: ' .. vim.trim(out))
      else
        health.error('`' .. exe .. ' --version` failed: ' .. vim.trim(out))
      end
    end
  end

  health.start('salt-analyzer: workspace')
  local dir, client = root(opts)
  health.info('workspace root: ' .. dir)
  local ws_file = dir .. '/salt-analyzer.yaml'
  local from_file
  if vim.fn.filereadable(ws_file) == 1 then
    health.ok('workspace file: ' .. ws_file)
    from_file = workspace_salt_config(ws_file)
  else
    -- The server's zero-configuration discovery: where it found the states and the pillar.
    local found
    if client ~= nil then
      local response = execute(client, 'salt-analyzer.workspaceInfo')
      found = response and response.result and response.result.discovery
    end
    if type(found) == 'string' then
      health.warn(found, {
        'Create one with file_roots and minion profiles (README, "Configuration").',
      })
    else
      health.warn('no salt-analyzer.yaml in ' .. dir .. ': the server finds the roots itself (open an .sls file to see what it found)', {
        'Create one with file_roots and minion profiles (README, "Configuration").',
      })
    end
  end

  local salt_config = settings.server_settings(opts, dir).saltConfig
  local source = 'the salt_config option'
  if salt_config == vim.NIL then
    salt_config = from_file and absolute(from_file, dir) or nil
    source = 'salt_config in salt-analyzer.yaml'
  end
  if salt_config == nil then
    health.info('no Salt config (neither the salt_config option nor salt_config in salt-analyzer.yaml): roots and profiles come from the workspace file')
  else
    local minion_file, master_file = salt_config .. '/minion', salt_config .. '/master'
    if vim.fn.filereadable(minion_file) == 1 then
      health.ok(('Salt config read from %s: %s (as salt-call -c %s)'):format(source, minion_file, salt_config))
    elseif vim.fn.filereadable(master_file) == 1 then
      health.ok(('Salt config read from %s: %s (as salt-call -c %s)'):format(source, master_file, salt_config))
    else
      health.error(('Salt config %s (%s) has neither a minion nor a master file'):format(salt_config, source))
    end
  end

  health.start('salt-analyzer: server')
  if client == nil then
    health.warn('no salt-analyzer client is running', { 'Open an .sls file (the client starts on the salt filetype).' })
    return
  end
  health.ok(('client %d running (root %s)'):format(client.id, client.config.root_dir or '?'))
  local response = execute(client, commands.list_minions)
  if response == nil or response.err then
    health.error('salt-analyzer.listMinions failed: ' .. vim.inspect(response and response.err))
    return
  end
  local minions = commands.parse_minions(response.result)
  local ids, selected, salt = {}, nil, nil
  for _, m in ipairs(minions) do
    table.insert(ids, m.id)
    if m.selected then
      selected, salt = m.id, m.salt
    end
  end
  if selected then
    health.ok(('minion selected: %s (profiles: %s)'):format(selected, table.concat(ids, ', ')))
    if salt then
      health.info(('answers are for Salt %s (%s)'):format(salt.version, tostring(salt.source)))
    end
  else
    health.warn('no minion selected (profiles: ' .. (#ids > 0 and table.concat(ids, ', ') or 'none') .. ')', {
      ':SaltMinion ID, or default_minion in salt-analyzer.yaml',
    })
  end
end

return M
