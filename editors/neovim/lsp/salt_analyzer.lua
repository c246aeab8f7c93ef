--- Neovim 0.11+ config for `vim.lsp.enable('salt_analyzer')`.
--- Options come from `vim.g.salt_analyzer` (see lua/salt-analyzer/settings.lua):
---   vim.g.salt_analyzer = { minion = 'web01', salt_config = 'etc/salt', trace = 'off' }
---   vim.lsp.enable('salt_analyzer')
--- Override anything with vim.lsp.config('salt_analyzer', { ... }).
local settings = require('salt-analyzer.settings')

local opts = settings.options()
local server = settings.server_settings(opts)

return {
  cmd = settings.cmd(opts),
  -- Neovim names the *.sls filetype `salt`; `sls` is kept for custom setups.
  filetypes = { 'salt', 'sls' },
  -- Tried in this order: a salt-analyzer.yaml above the file wins over a nearer top.sls.
  root_markers = { 'salt-analyzer.yaml', 'top.sls', '.git' },
  init_options = server,
  settings = { [settings.section] = server },
  on_attach = function(_, bufnr)
    settings.attach_inlay_hints(settings.options(), bufnr)
  end,
  before_init = function(params, config)
    -- vim.g.salt_analyzer may have changed since this file was loaded, and a
    -- relative salt_config is taken from the root, known only now.
    local current = settings.server_settings(settings.options(), config.root_dir)
    params.initializationOptions = current
    config.settings = { [settings.section] = current }
  end,
}
