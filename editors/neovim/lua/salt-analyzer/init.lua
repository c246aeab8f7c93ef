--- salt-analyzer for Neovim's built-in LSP client.
---
---   require('salt-analyzer').setup({ cmd = {...}, minion = 'web01', salt_config = 'etc/salt' })
---
--- works on Neovim 0.10+ (a FileType autocmd calling vim.lsp.start). On 0.11+ you
--- may instead use `vim.lsp.enable('salt_analyzer')`, which reads lsp/salt_analyzer.lua
--- and the same options from `vim.g.salt_analyzer`.
local settings = require('salt-analyzer.settings')

local M = {}

M.settings = settings
M.commands = require('salt-analyzer.commands')

local warned = {}

local function warn_once(key, msg)
  if warned[key] then
    return
  end
  warned[key] = true
  vim.schedule(function()
    vim.notify('salt-analyzer: ' .. msg, vim.log.levels.WARN)
  end)
end

--- Client configuration for vim.lsp.start (also the basis of lsp/salt_analyzer.lua).
---@param opts table plugin options
---@param root_dir string|nil
---@return table
function M.client_config(opts, root_dir)
  local server = settings.server_settings(opts, root_dir)
  return {
    name = settings.name,
    cmd = settings.cmd(opts),
    root_dir = root_dir,
    init_options = server,
    settings = { [settings.section] = server },
    trace = server.trace.server,
    on_attach = function(_, bufnr)
      settings.attach_inlay_hints(opts, bufnr)
    end,
  }
end

--- Starts (or reuses) the client for `bufnr`.
---@param bufnr integer|nil
---@param opts table|nil plugin options (default: the ones given to setup)
---@return integer|nil client id
function M.start(bufnr, opts)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  opts = opts or settings.options()
  local cmd = settings.cmd(opts)
  if type(cmd) == 'table' and vim.fn.executable(cmd[1]) ~= 1 then
    warn_once('cmd', ('`%s` was not found (not executable or not on PATH). Install it: %s'):format(cmd[1], settings.install_url))
    return nil
  end
  local root = settings.root_dir(bufnr, opts.root_markers)
  return vim.lsp.start(M.client_config(opts, root), { bufnr = bufnr })
end

--- Registers the tree-sitter language `sls` (the jinja parser, with yaml injected;
--- queries/sls/) for the salt filetype and starts highlighting `bufnr` with it.
--- Returns false, keeping the regex syntax, when a parser is missing or too old.
---@param bufnr integer|nil
---@return boolean
function M.treesitter(bufnr)
  local ok = M.register_treesitter()
  if ok and bufnr then
    ok = pcall(vim.treesitter.start, bufnr, 'sls')
  end
  return ok
end

local registered

--- Registers `sls` once; see M.treesitter.
---@return boolean
function M.register_treesitter()
  if registered ~= nil then
    return registered
  end
  registered = false
  local jinja = vim.api.nvim_get_runtime_file('parser/jinja.*', false)[1]
  local has_yaml = #vim.api.nvim_get_runtime_file('parser/yaml.*', false) > 0
  if not jinja or not has_yaml then
    warn_once('ts', 'tree-sitter needs the `jinja` and `yaml` parsers (:TSInstall jinja yaml); using the regex syntax')
    return false
  end
  local added = pcall(vim.treesitter.language.add, 'sls', { path = jinja, symbol_name = 'jinja' })
  -- queries/sls/injections.scm names the `content` node, which the jinja parser
  -- has from tree-sitter-jinja 0.13 (nvim-treesitter main) on; older parsers
  -- call it `words`, and the query then fails to parse.
  local queries = added
    and pcall(vim.treesitter.query.get, 'sls', 'injections')
    and pcall(vim.treesitter.query.get, 'sls', 'highlights')
  if not queries then
    warn_once('ts', 'the installed jinja parser does not fit queries/sls (it needs tree-sitter-jinja 0.13 or later); using the regex syntax')
    return false
  end
  vim.treesitter.language.register('sls', { 'salt', 'sls' })
  registered = true
  return true
end

--- Sets the plugin up: options, a FileType autocmd that starts the client, and
--- the client for buffers that are already open.
---@param opts table|nil { cmd, minion, salt_config, trace, filetypes, root_markers, treesitter }
function M.setup(opts)
  settings.configured = vim.tbl_extend('force', settings.configured, opts or {})
  local merged = settings.options()
  local group = vim.api.nvim_create_augroup('salt-analyzer', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = merged.filetypes,
    callback = function(ev)
      M.start(ev.buf)
    end,
  })
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(merged.filetypes, vim.bo[buf].filetype) then
      M.start(buf)
    end
  end
end

--- Sends the current options to running clients (workspace/didChangeConfiguration).
---@param opts table|nil new options merged over the current ones
function M.reconfigure(opts)
  settings.configured = vim.tbl_extend('force', settings.configured, opts or {})
  local merged = settings.options()
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  for _, client in ipairs(get({ name = settings.name })) do
    local server = settings.server_settings(merged, client.config.root_dir)
    client.config.settings = { [settings.section] = server }
    if vim.fn.has('nvim-0.11') == 1 then
      client:notify('workspace/didChangeConfiguration', { settings = client.config.settings })
    else
      client.notify('workspace/didChangeConfiguration', { settings = client.config.settings })
    end
  end
end

return M
