--- User commands: :SaltMinion [ID], :SaltTopExplain [ID], :SaltRefreshPillar, :SaltImpact and
--- :SaltCheckFleet.
if vim.g.loaded_salt_analyzer then
  return
end
vim.g.loaded_salt_analyzer = true

-- queries/ is a symlink to the repository's grammars/queries (one source of
-- truth). Where a checkout could not make the symlink (Windows without
-- core.symlinks), put grammars/ itself on the runtimepath instead.
if #vim.api.nvim_get_runtime_file('queries/sls/injections.scm', false) == 0 then
  local here = debug.getinfo(1, 'S').source:sub(2)
  local grammars = vim.fs.normalize(vim.fs.dirname(here) .. '/../../../grammars')
  if vim.fn.filereadable(grammars .. '/queries/sls/injections.scm') == 1 then
    vim.opt.runtimepath:append(grammars)
  end
end

local function commands()
  return require('salt-analyzer.commands')
end

vim.api.nvim_create_user_command('SaltMinion', function(cmd)
  if cmd.args ~= '' then
    commands().select(cmd.args)
  else
    commands().pick()
  end
end, {
  nargs = '?',
  desc = 'salt-analyzer: select the minion profile (a list to pick from without ID)',
  complete = function(arglead)
    return commands().complete_minions(arglead)
  end,
})

vim.api.nvim_create_user_command('SaltTopExplain', function(cmd)
  commands().explain(cmd.args ~= '' and cmd.args or nil)
end, {
  nargs = '?',
  desc = 'salt-analyzer: show how the top file applies to a minion (default: the selected one)',
  complete = function(arglead)
    return commands().complete_minions(arglead)
  end,
})

vim.api.nvim_create_user_command('SaltRefreshPillar', function()
  commands().refresh_pillar()
end, { nargs = 0, desc = 'salt-analyzer: re-read the pillar files and query the ext_pillar databases again' })

vim.api.nvim_create_user_command('SaltImpact', function(args)
  commands().impact(args.args)
end, {
  nargs = '?',
  desc = "salt-analyzer: what the uncommitted changes do to every minion's highstate (vs HEAD); with a release (3008), on that Salt",
  complete = function(arglead)
    return vim.tbl_filter(function(r)
      return vim.startswith(r, arglead)
    end, require('salt-analyzer.settings').releases)
  end,
})

vim.api.nvim_create_user_command('SaltCheckFleet', function()
  commands().check_fleet()
end, { nargs = 0, desc = "salt-analyzer: check every fleet minion's highstate and show the findings" })

-- The impact code lens's command runs on the client: it opens the same report.
vim.lsp.commands['salt-analyzer.showImpact'] = function()
  commands().impact()
end

-- Tree-sitter highlighting, when asked for with `treesitter = true` (see
-- lua/salt-analyzer/settings.lua for why it is off by default).
vim.api.nvim_create_autocmd('FileType', {
  group = vim.api.nvim_create_augroup('salt-analyzer-treesitter', { clear = true }),
  pattern = { 'salt', 'sls' },
  callback = function(ev)
    if require('salt-analyzer.settings').options().treesitter then
      require('salt-analyzer').treesitter(ev.buf)
    end
  end,
})
