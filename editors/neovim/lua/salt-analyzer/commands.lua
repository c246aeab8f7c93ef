--- The server's commands over workspace/executeCommand: listMinions,
--- selectMinion, topExplain and impactReport, and the UI around them (vim.ui.select, a
--- scratch buffer). Works with Neovim 0.10 (client.request) and 0.11+ (client:request).
local settings = require('salt-analyzer.settings')

local M = {}

M.list_minions = 'salt-analyzer.listMinions'
M.select_minion = 'salt-analyzer.selectMinion'
M.top_explain = 'salt-analyzer.topExplain'
M.refresh_pillar_command = 'salt-analyzer.refreshPillar'
M.impact_report = 'salt-analyzer.impactReport'
M.check_fleet_command = 'salt-analyzer.checkFleet'

local function notify(msg, level)
  vim.notify('salt-analyzer: ' .. msg, level or vim.log.levels.INFO)
end

--- The salt_analyzer client for `bufnr`, else any running one.
---@param bufnr integer|nil
function M.client(bufnr)
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  local clients = get({ name = settings.name, bufnr = bufnr })
  if #clients == 0 then
    clients = get({ name = settings.name })
  end
  return clients[1]
end

local has_011 = vim.fn.has('nvim-0.11') == 1

local function request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function request_sync(client, method, params, timeout, bufnr)
  if has_011 then
    return client:request_sync(method, params, timeout, bufnr)
  end
  return client.request_sync(method, params, timeout, bufnr)
end

--- Runs a server command; `on_result(result)` is called on the main loop.
---@param command string
---@param arguments table
---@param on_result fun(result: any)
function M.execute(command, arguments, on_result)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    notify('no running salt-analyzer client (open an .sls file first)', vim.log.levels.WARN)
    return
  end
  local params = { command = command, arguments = arguments }
  request(client, 'workspace/executeCommand', params, function(err, result)
    vim.schedule(function()
      if err then
        notify(command .. ' failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        return
      end
      on_result(result)
    end)
  end, bufnr)
end

--- Keeps only well-formed `{ id = string, selected = boolean }` entries (with the fleet's
--- `source` and the grains `detail` the picker shows and searches).
---@param result any
---@return { id: string, selected: boolean, fleet: boolean, detail: string }[]
function M.parse_minions(result)
  local out = {}
  if type(result) ~= 'table' then
    return out
  end
  for _, item in ipairs(result) do
    if type(item) == 'table' and type(item.id) == 'string' and item.id ~= '' then
      table.insert(out, {
        id = item.id,
        selected = item.selected == true,
        fleet = item.source == 'fleet',
        detail = type(item.detail) == 'string' and item.detail or '',
        -- The Salt release its answers are for, and where that came from.
        salt = type(item.salt) == 'table' and type(item.salt.version) == 'string' and item.salt or nil,
      })
    end
  end
  return out
end

--- Minion ids for command-line completion (a short synchronous request).
---@return string[]
function M.complete_minions(arglead)
  local client = M.client(vim.api.nvim_get_current_buf())
  if not client then
    return {}
  end
  local response = request_sync(client, 'workspace/executeCommand', { command = M.list_minions, arguments = {} }, 1000)
  local ids = {}
  for _, m in ipairs(M.parse_minions(response and response.result)) do
    if vim.startswith(m.id, arglead or '') then
      table.insert(ids, m.id)
    end
  end
  return ids
end

--- Selects `id` directly.
---@param id string
function M.select(id)
  M.execute(M.select_minion, { id }, function()
    notify('minion ' .. id .. ' selected')
  end)
end

--- Makes the server forget its pillars: pillar files are read and ext_pillar databases
--- queried again.
function M.refresh_pillar()
  M.execute(M.refresh_pillar_command, {}, function()
    notify('pillar refreshed')
  end)
end

--- Opens the impact report (what the uncommitted and unsaved changes do to every minion's
--- highstate against HEAD, minions with the same change grouped) in a markdown scratch buffer.
--- The impact code lens runs this too (`salt-analyzer.showImpact`). With `release` ('3008'),
--- the changes compile on that Salt release (the option `impact_to_salt_version` sets it for
--- the lens and a plain :SaltImpact).
---@param release string|nil
function M.impact(release)
  local args = {}
  if release ~= nil and release ~= '' then
    local settings = require('salt-analyzer.settings')
    if not settings.release(release) then
      notify(('%s is not a Salt release the server knows (%s)'):format(release, table.concat(settings.releases, ', ')), vim.log.levels.ERROR)
      return
    end
    args = { { toSaltVersion = release } }
  end
  M.execute(M.impact_report, args, function(result)
    if type(result) ~= 'string' then
      notify('no impact report: the workspace is not in a git repository with a commit', vim.log.levels.WARN)
      return
    end
    local bufnr = M.show_scratch('salt-analyzer://impact', result)
    vim.bo[bufnr].filetype = 'markdown'
  end)
end

--- Checks every fleet minion's highstate on the server (progress through LspProgress); the
--- findings arrive as diagnostics.
function M.check_fleet()
  notify('checking the fleet...')
  M.execute(M.check_fleet_command, {}, function(result)
    local r = type(result) == 'table' and result or {}
    notify(('checked %d fleet minions, %d findings'):format(r.minions or 0, r.findings or 0))
  end)
end

--- Lists the profiles and lets the user pick one with vim.ui.select.
function M.pick()
  M.execute(M.list_minions, {}, function(result)
    local minions = M.parse_minions(result)
    if #minions == 0 then
      notify('no minion profiles: add them under `minions:` in salt-analyzer.yaml', vim.log.levels.WARN)
      return
    end
    vim.ui.select(minions, {
      prompt = 'Salt minion:',
      -- The grains are part of the line, so a fuzzy picker finds a minion by them too.
      format_item = function(m)
        local tags = {}
        if m.selected then
          table.insert(tags, 'selected')
        end
        if m.fleet then
          table.insert(tags, 'fleet')
        end
        local line = m.id
        if #tags > 0 then
          line = line .. '  (' .. table.concat(tags, ', ') .. ')'
        end
        if m.detail ~= '' then
          line = line .. '  ' .. m.detail
        end
        return line
      end,
    }, function(choice)
      if choice then
        M.select(choice.id)
      end
    end)
  end)
end

--- Opens the `topExplain` text for `id` (or the selected minion) in a scratch buffer.
---@param id string|nil
function M.explain(id)
  local args = (id and id ~= '') and { id } or {}
  M.execute(M.top_explain, args, function(result)
    local text = type(result) == 'string' and result or vim.inspect(result)
    M.show_scratch('salt-analyzer://top-explain/' .. (args[1] or 'selected'), text)
  end)
end

--- A read-only scratch buffer in a new split, reused when it is already open.
---@param name string
---@param text string
---@return integer bufnr
function M.show_scratch(name, text)
  local bufnr = vim.fn.bufnr('^' .. vim.pesc(name) .. '$')
  if bufnr == -1 then
    bufnr = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(bufnr, name)
  end
  local win = vim.fn.bufwinid(bufnr)
  if win == -1 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, bufnr)
  else
    vim.api.nvim_set_current_win(win)
  end
  vim.bo[bufnr].buftype = 'nofile'
  vim.bo[bufnr].bufhidden = 'wipe'
  vim.bo[bufnr].swapfile = false
  vim.bo[bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].modified = false
  return bufnr
end

return M
