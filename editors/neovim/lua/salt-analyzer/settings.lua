--- Plugin options (from `setup()` or `vim.g.salt_analyzer`) and the settings the
--- server reads: `{ minion, saltConfig, saltCall, impact = { toSaltVersion }, inlayHints, trace = { server } }`,
--- the same shape the
--- VS Code extension sends as initializationOptions and workspace configuration.
local M = {}

M.name = 'salt_analyzer'
M.section = 'salt-analyzer'
M.install_url = 'https://github.com/salt-analyzer/salt-analyzer#install'

M.defaults = {
  cmd = { 'salt-analyzer' },
  filetypes = { 'salt', 'sls' },
  root_markers = { 'salt-analyzer.yaml', 'top.sls', '.git' },
  minion = nil,
  salt_config = nil,
  -- The salt-call asked for Salt's state docs (hovers): nil = the one on PATH, false = never.
  salt_call = nil,
  -- The Salt release ('3006', '3007', '3008') the impact lens and :SaltImpact compile the
  -- changes on, HEAD keeping each minion's own: the change and an upgrade at once. nil: none.
  impact_to_salt_version = nil,
  -- Inlay hints of rendered values (what each Jinja block took for the selected minion):
  -- shown in the buffers the server attaches to unless false; `inlay_hint_kinds` turns kinds
  -- off, e.g. { loops = false } (values, conditions, loops, sets).
  inlay_hints = true,
  inlay_hint_kinds = {},
  trace = 'off',
  -- Tree-sitter highlighting (jinja host + injected yaml, queries/sls/). Off by
  -- default: the jinja parser rejects `{% from tpldir ~ "/map.jinja" import ... %}`,
  -- the first line of most formulas, and then leaves the whole file without YAML
  -- highlighting. The regex syntax (syntax/salt.vim) has no such failure.
  treesitter = false,
}

--- Options given to setup(); kept in Lua (not vim.g) so that `cmd` may be a function.
M.configured = {}

--- Options: defaults < vim.g.salt_analyzer < setup() < `overrides`.
---@param overrides table|nil
---@return table
function M.options(overrides)
  local g = vim.g.salt_analyzer
  -- Shallow on purpose: a list option (cmd, root_markers) replaces the default whole.
  return vim.tbl_extend('force', {}, M.defaults, type(g) == 'table' and g or {}, M.configured, overrides or {})
end

local function non_empty(value)
  if type(value) ~= 'string' then
    return nil
  end
  value = vim.trim(value)
  if value == '' then
    return nil
  end
  return value
end

local function trace_level(value)
  if type(value) == 'table' then
    value = value.server
  end
  if value == 'messages' or value == 'verbose' then
    return value
  end
  return 'off'
end

--- The server settings. Missing values are sent as JSON null (vim.NIL), not left
--- out, so the server sees the same keys from every editor. A relative
--- `salt_config` is taken from `root_dir` when one is given.
---@param opts table|nil plugin options (default: M.options())
---@param root_dir string|nil
---@return table
function M.server_settings(opts, root_dir)
  opts = opts or M.options()
  local salt_config = non_empty(opts.salt_config)
  if salt_config then
    salt_config = vim.fs.normalize(salt_config)
    if root_dir and not salt_config:match('^/') and not salt_config:match('^%a:[/\\]') then
      salt_config = vim.fs.normalize(root_dir .. '/' .. salt_config)
    end
  end
  local minion = non_empty(opts.minion)
  local salt_call = opts.salt_call
  if salt_call ~= false then
    salt_call = non_empty(salt_call)
    salt_call = salt_call and vim.fs.normalize(salt_call)
  end
  return {
    minion = minion == nil and vim.NIL or minion,
    saltConfig = salt_config == nil and vim.NIL or salt_config,
    saltCall = salt_call == nil and vim.NIL or salt_call,
    impact = { toSaltVersion = M.release(opts.impact_to_salt_version) or vim.NIL },
    inlayHints = M.inlay_hint_kinds(opts.inlay_hint_kinds),
    trace = { server = trace_level(opts.trace) },
  }
end

--- `{ values, conditions, loops, sets }`, each true unless the option says false.
---@param kinds table|nil
---@return table
function M.inlay_hint_kinds(kinds)
  kinds = type(kinds) == 'table' and kinds or {}
  local out = {}
  for _, k in ipairs({ 'values', 'conditions', 'loops', 'sets' }) do
    out[k] = kinds[k] ~= false
  end
  return out
end

--- Turns on the editor's inlay hints for `bufnr` (Neovim 0.10+) unless `inlay_hints` is false.
---@param opts table plugin options
---@param bufnr integer
function M.attach_inlay_hints(opts, bufnr)
  if opts.inlay_hints ~= false and vim.lsp.inlay_hint and vim.lsp.inlay_hint.enable then
    pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr })
  end
end

--- The Salt releases the server compiles for (the impact target's choices).
M.releases = { '3006', '3007', '3008' }

--- `value` if it names a supported Salt release (a number is read as its text), else nil.
---@param value any
---@return string|nil
function M.release(value)
  if type(value) == 'number' then
    value = tostring(value)
  end
  value = non_empty(value)
  if value and vim.tbl_contains(M.releases, value) then
    return value
  end
  return nil
end

--- The command line as a list, or a function (an in-process server, see :h vim.lsp.ClientConfig).
---@param opts table|nil
---@return string[]|function
function M.cmd(opts)
  opts = opts or M.options()
  local cmd = opts.cmd
  if type(cmd) == 'function' then
    return cmd
  end
  if type(cmd) == 'string' then
    cmd = { cmd }
  end
  if type(cmd) ~= 'table' or cmd[1] == nil then
    cmd = vim.deepcopy(M.defaults.cmd)
  end
  return cmd
end

--- The workspace root: the first marker found upward wins, in the order given
--- (salt-analyzer.yaml before top.sls before .git), else the file's directory.
---@param bufnr integer
---@param markers string[]|nil
---@return string|nil
function M.root_dir(bufnr, markers)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' then
    return vim.fn.getcwd()
  end
  local start = vim.fs.dirname(name)
  for _, marker in ipairs(markers or M.defaults.root_markers) do
    local found = vim.fs.find(marker, { path = start, upward = true })[1]
    if found then
      return vim.fs.dirname(found)
    end
  end
  return start
end

return M
